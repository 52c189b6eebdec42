#!/bin/bash
# The update site installs into a plain Eclipse Platform with p2's director (headless), and every bundle
# resolves and the MANA bundles start (dev.mana.eclipse.core.check -bundles), with the bundled runtime usable
# and its MPI coverage manifest (share/mana/mpi-coverage.json) installed; the base feature alone (no debugger
# bundles), then with the debugger's feature beside it. Then the update: build N+1 of the
# site (requalify.py: every dev.mana unit one qualifier later, as a rebuild with a forced higher qualifier
# makes it) is offered (its feature is newer than the installed root) and installed by p2 in place of N,
# and the updated platform passes the same check.
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
# the base feature leaves the debugger out: it is a feature of its own
if ls "$eclipse"/plugins | grep -q '^dev\.mana\.eclipse\.debug'; then
  echo "install test: the base feature installed the debugger's bundles" >&2; exit 1
fi

echo "== p2 director: install the debugger's feature beside it; the platform still checks OK"
run -application org.eclipse.equinox.p2.director -repository "file:$site" \
    -installIU dev.mana.eclipse.debug.feature.feature.group \
    -destination "$eclipse" -profile PlatformProfile 2>&1 | tee "$work/director-debug.log"
grep -q "Operation completed" "$work/director-debug.log" || { echo "install test: the debugger's feature did not install" >&2; exit 1; }
for b in dev.mana.eclipse.debug dev.mana.eclipse.debug.ui dev.mana.gdb-integration; do
  ls -d "$eclipse"/plugins/${b}_* >/dev/null 2>&1 || { echo "install test: $b not installed by the debugger's feature" >&2; exit 1; }
done
set +e
run -application dev.mana.eclipse.core.check -bundles 2>&1 | tee "$work/check-debug.log"
set -e
grep -q "^MANA CHECK: OK" "$work/check-debug.log" || { echo "install test: FAILED with the debugger (see above)" >&2; exit 1; }

# every installed MANA bundle has a real qualifier: a fixed one (0.1.0.SNAPSHOT) never increases, so p2
# would never offer an update of it
snap=$(ls "$eclipse"/plugins | grep '^dev\.mana' | grep -v '_[0-9]*\.[0-9]*\.[0-9]*\.[0-9]\{12\}\(\.jar\)\?$' || true)
[ -z "$snap" ] || { echo "install test: bundles without a time-stamp qualifier: $snap" >&2; exit 1; }

feature=dev.mana.eclipse.feature.feature.group
dfeature=dev.mana.eclipse.debug.feature.feature.group
# version of a feature ($2, default the base one) installed as a root of the profile, and the newest one a
# repository offers
installed() { local f=${1:-$feature}; run -application org.eclipse.equinox.p2.director -destination "$eclipse" \
                  -profile PlatformProfile -listInstalledRoots 2>&1 | sed -n "s|^$f/||p" | head -1; }
offered() { local f=${2:-$feature}; run -application org.eclipse.equinox.p2.director -repository "file:$1" -list "$f" 2>&1 \
                | sed -n "s|^$f=||p" | sort | tail -1; }
# p2 compares versions as major.minor.micro then the qualifier as a string
newer() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -t. -k1,1n -k2,2n -k3,3n -k4,4 | tail -1)" = "$1" ]; }

echo "== p2 update: build N+1 of the site, offered and installed over build N"
n=$(installed)
[ -n "$n" ] || { echo "install test: $feature is not an installed root" >&2; exit 1; }
python3 "$(dirname "$0")/requalify.py" "$site" "$work/site-next"
next=$(offered "$work/site-next")
echo "installed: $feature $n; offered by build N+1: $next"
newer "$next" "$n" || { echo "install test: build N+1 offers $feature '$next', not newer than the installed $n" >&2; exit 1; }
dn=$(installed "$dfeature")
dnext=$(offered "$work/site-next" "$dfeature")
run -application org.eclipse.equinox.p2.director -repository "file:$work/site-next" \
    -uninstallIU "$feature/$n,$dfeature/$dn" -installIU "$feature/$next,$dfeature/$dnext" \
    -destination "$eclipse" -profile PlatformProfile 2>&1 | tee "$work/update.log"
grep -q "Operation completed" "$work/update.log" || { echo "install test: the update did not complete" >&2; exit 1; }
now=$(installed)
[ "$now" = "$next" ] || { echo "install test: after the update the installed root is '$now', not $next" >&2; exit 1; }
qualifier=${next##*.}
for b in dev.mana.coordinator dev.mana.eclipse.core dev.mana.eclipse.ui dev.mana.eclipse.runtime.linux.x86_64 dev.mana.eclipse.debug; do
  ls -d "$eclipse"/plugins/${b}_*."$qualifier"* >/dev/null 2>&1 \
    || { echo "install test: $b was not updated to qualifier $qualifier" >&2; ls "$eclipse"/plugins | grep "^$b" >&2; exit 1; }
done
echo "updated: $feature $n -> $now"
set +e
run -application dev.mana.eclipse.core.check -bundles 2>&1 | tee "$work/check-updated.log"
set -e
grep -q "^MANA CHECK: OK" "$work/check-updated.log" || { echo "install test: the updated platform FAILED its check" >&2; exit 1; }
echo "install test: passed in $(( $(date +%s) - start )) s"
echo "3 passed, 0 failed"
