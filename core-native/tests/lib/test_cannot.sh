#!/bin/bash
# test_cannot.sh - cannot KEY WHY (cannot.sh): a case skips (77) only where MANA_TEST_CANNOT names its key,
# in any of the forms docs/testing.md allows; otherwise it fails (1) and says which key would skip it.
set -u
here=$(dirname -- "$(readlink -f -- "$0")")
bad=0
# check EXPECTED-RC EXPECTED-TEXT MANA_TEST_CANNOT-VALUE: run `cannot pid7fff "no ns_last_pid"` under it
check() {
    local out rc
    out=$(MANA_TEST_CANNOT=$3 bash -c '. "$1"; cannot pid7fff "no ns_last_pid"; echo "went on"' sh "$here/cannot.sh" 2>&1)
    rc=$?
    if [ "$rc" != "$1" ] || ! printf '%s' "$out" | grep -q -- "$2" || printf '%s' "$out" | grep -q "went on"; then
        echo "FAIL: MANA_TEST_CANNOT='$3': exit $rc (want $1), output: $out"
        bad=1
    fi
}
check 1 "set MANA_TEST_CANNOT=pid7fff where this machine cannot do it" ""
check 1 "no ns_last_pid" "cluster slurm"
check 1 "no ns_last_pid" "pid7ff"                 # a key is matched whole
check 1 "no ns_last_pid" "xpid7fff"
check 77 "SKIP (pid7fff, MANA_TEST_CANNOT): no ns_last_pid" "pid7fff"
check 77 "SKIP" "cluster pid7fff"
check 77 "SKIP" "cluster,pid7fff,slurm"
# unset, not just empty
out=$(env -u MANA_TEST_CANNOT bash -c '. "$1"; cannot cluster "no root"' sh "$here/cannot.sh" 2>&1)
[ $? = 1 ] || { echo "FAIL: unset MANA_TEST_CANNOT did not fail: $out"; bad=1; }
[ $bad = 0 ] && echo "cannot.sh: skips only where asked"
exit $bad
