#!/bin/bash
# o0_test.sh ROOT O0ROOT PROGDIR SCENARIO... - checkpoint/restart scenarios of cr_test.sh through the
# lower half and plugin built at -O0 (O0ROOT/bin/lower-half, O0ROOT/lib/libmana.so: targets
# lower-half-O0 and mana-O0). The rest of O0ROOT is the installed runtime ROOT: the launch scripts are
# copied (they find the runtime from their own real path), everything else is linked.
# Optimisation hides some mistakes that -O0 shows (an asm jump target in a register the asm zeroed
# sent every launch to address 0); this keeps them from coming back.  Exit 0 = every scenario passed.
set -u
ROOT=$1 O0=$2 PROGDIR=$3
shift 3
[ -x "$O0/bin/lower-half" ] && [ -r "$O0/lib/libmana.so" ] || { echo "FAIL: $O0: the -O0 build is missing"; exit 1; }
for f in "$ROOT"/bin/*; do
    n=$(basename -- "$f")
    case $n in
        lower-half) ;;
        mana_launch|mana_restart) cp -f -- "$f" "$O0/bin/$n" || exit 1;;
        *) ln -sfn -- "$f" "$O0/bin/$n" || exit 1;;
    esac
done
for d in "$ROOT"/lib/*/; do
    ln -sfn -- "${d%/}" "$O0/lib/$(basename -- "$d")" || exit 1
done
rc=0
for s in "$@"; do
    echo "== $s (-O0)"
    "$(dirname -- "$0")/cr_test.sh" "$O0" "$PROGDIR" "$s"
    r=$?
    [ $r = 77 ] && exit 77      # skipped where MANA_TEST_CANNOT asks it, as cr_test.sh says
    [ $r = 0 ] || rc=1
done
exit $rc
