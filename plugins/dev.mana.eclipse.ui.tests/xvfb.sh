#!/bin/bash
# Starts a private X server for the UI tests; writes the display number to
# $1/xvfb.properties (mana.xvfb.display=N) and the server's pid to $1/xvfb.pid. Uses $DISPLAY_OVERRIDE if set (e.g. a real
# display). The server dies with the Maven process that started it (or after 45 minutes at most).
set -e
dir=$1
mkdir -p "$dir"
rm -f "$dir/xvfb.properties" "$dir/xvfb.display.tmp" "$dir/xvfb.pid"
if [ -n "$DISPLAY_OVERRIDE" ]; then echo "mana.xvfb.display=${DISPLAY_OVERRIDE#:}" > "$dir/xvfb.properties"; exit 0; fi
# The workbench needs GTK 3 (and a font); Xvfb runs it. The Makefile's deps step should install them;
# as root on Debian this installs what is still missing, like that step does.
missing=""
ldconfig -p 2>/dev/null | grep -q 'libgtk-3\.so\.0' || missing="$missing libgtk-3-0"
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing="$missing fonts-dejavu-core"
command -v Xvfb >/dev/null || missing="$missing xvfb"
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "UI tests: installing Debian packages:$missing"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    echo "UI tests need the Debian packages:$missing (GTK 3 for the workbench, Xvfb to show it)" >&2; exit 1
  fi
fi
# GTK without animations (the tests point XDG_CONFIG_HOME here): a button enabled a moment before a
# screenshot is drawn enabled, not half-way through the theme's 200 ms fade from its disabled look.
mkdir -p "$dir/xdg/gtk-3.0"
printf '[Settings]\ngtk-enable-animations=false\n' > "$dir/xdg/gtk-3.0/settings.ini"
owner=$PPID
setsid bash -c '
  exec 3>"'"$dir"'/xvfb.display.tmp"
  timeout 2700 Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp -noreset >"'"$dir"'/xvfb.log" 2>&1 &
  xpid=$!
  exec 3>&-
  echo $xpid > "'"$dir"'/xvfb.pid"
  while kill -0 '"$owner"' 2>/dev/null && kill -0 $xpid 2>/dev/null; do sleep 2; done
  kill $xpid 2>/dev/null || true
' </dev/null >/dev/null 2>&1 &
for i in $(seq 1 100); do
  if grep -q '^[0-9][0-9]*$' "$dir/xvfb.display.tmp" 2>/dev/null; then
    echo "mana.xvfb.display=$(tr -d '\n' < "$dir/xvfb.display.tmp")" > "$dir/xvfb.properties"
    echo "UI tests on Xvfb display :$(tr -d '\n' < "$dir/xvfb.display.tmp")"; exit 0
  fi
  sleep 0.1
done
echo "Xvfb did not start; see $dir/xvfb.log" >&2
exit 1
