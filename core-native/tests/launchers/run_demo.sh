#!/bin/sh
# run_demo.sh MANA_ROOT - `make demo` as a test (30 steps instead of 60).
# Fails until the coordinator and the runtime are installed (make build).
ROOT=$1
for t in mana_coordinator mana_status mana_launch mana_restart lower-half; do
    [ -x "$ROOT/bin/$t" ] || { echo "FAIL: $ROOT/bin/$t not installed (make build)"; exit 1; }
done
MANA_DEMO_STEPS=30 exec "$ROOT/core-native/examples/demo.sh"
