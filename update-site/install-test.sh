#!/bin/bash
# The update site installs into a plain Eclipse Platform with p2's director (headless), and every bundle
# resolves and the MANA bundles start (dev.mana.eclipse.core.check -bundles), with the bundled runtime usable
# and its MPI coverage manifest (share/mana/mpi-coverage.json) installed.
#   install-test.sh JAVA SITE_REPOSITORY PLATFORM_PRODUCT WORK_DIR
set -euo pipefail
java=$1 site=$2 platform=$3 work=$4
[ -d "$platform/plugins" ] || { echo "install test: no platform at $platform (targets/test-platform builds it)" >&2; exit 1; }
[ -f "$site/content.jar" ] || [ -f "$site/content.xml" ] || [ -f "$site/content.xml.xz" ] || { echo "install test: no p2 repository at $site" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
cp -a "$platform" "$work/eclipse"
eclipse=$work/eclipse
launcher=$(ls "$eclipse"/plugins/org.eclipse.equinox.launcher_*.jar | head -1)
run() { "$java" -Xmx1g -Dosgi.instance.area="$work/workspace" -Duser.home="$work/home" -jar "$launcher" -nosplash -consoleLog "$@"; }
mkdir -p "$work/home"

start=$(date +%s)
echo "== p2 director: install dev.mana.eclipse.feature from $site into $eclipse"
run -application org.eclipse.equinox.p2.director \
    -repository "file:$site" \
    -installIU dev.mana.eclipse.feature.feature.group \
    -destination "$eclipse" -profile PlatformProfile 2>&1 | tee "$work/director.log"
grep -q "Operation completed" "$work/director.log" || { echo "install test: the director did not complete" >&2; exit 1; }
ls "$eclipse"/plugins | grep '^dev\.mana' | sed 's/^/installed: /'
ls -d "$eclipse"/plugins/dev.mana.eclipse.runtime.linux.x86_64_*/ >/dev/null 2>&1 \
  || { echo "install test: the runtime fragment was not installed as a folder" >&2; exit 1; }
manifest=$(ls "$eclipse"/plugins/dev.mana.eclipse.runtime.linux.x86_64_*/runtime/share/mana/mpi-coverage.json 2>/dev/null | head -1)
[ -n "$manifest" ] && grep -q '"format": *"mana-mpi-coverage"' "$manifest" \
  || { echo "install test: the runtime fragment has no MPI coverage manifest (runtime/share/mana/mpi-coverage.json)" >&2; exit 1; }
for f in "$eclipse"/plugins/dev.mana.eclipse.runtime.linux.x86_64_*/runtime/bin/*; do
  [ -x "$f" ] || { echo "install test: $f is not executable after the install (p2.inf chmod)" >&2; exit 1; }
done

echo "== start the installed platform: every bundle resolves, the MANA bundles start, the bundled runtime is usable"
set +e
run -application dev.mana.eclipse.core.check -bundles 2>&1 | tee "$work/check.log"
set -e
grep -q "^MANA CHECK: OK" "$work/check.log" || { echo "install test: FAILED (see above)" >&2; exit 1; }
echo "install test: passed in $(( $(date +%s) - start )) s"
echo "1 passed, 0 failed"
