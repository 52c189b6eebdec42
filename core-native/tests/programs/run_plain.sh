#!/bin/sh
# run_plain.sh BUILD_DIR - every test program, without the runtime, short
# arguments: exit 0, a final "done" line, no FAIL; twice, same final line.
set -u
b=$1
tmp=$(mktemp -d /tmp/mana_programs.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
fails=0
run() {
    name=$1
    shift
    for k in 1 2; do
        rm -f "$tmp/output.txt"
        if ! timeout 60 "$b/$@" > "$tmp/$name.$k" 2>"$tmp/$name.err"; then
            echo "FAIL: $name exited non-zero"; cat "$tmp/$name.$k" "$tmp/$name.err"; fails=$((fails + 1)); return
        fi
    done
    l1=$(tail -n 1 "$tmp/$name.1") l2=$(tail -n 1 "$tmp/$name.2")
    case $l1 in *" done: "*) ;; *) echo "FAIL: $name: last line '$l1'"; fails=$((fails + 1)); return;; esac
    [ "$l1" = "$l2" ] || { echo "FAIL: $name: '$l1' then '$l2'"; fails=$((fails + 1)); return; }
    ! grep -q FAIL "$tmp/$name.1" || { echo "FAIL: $name printed FAIL"; fails=$((fails + 1)); return; }
    echo "ok: $name: $l1"
}
run counter counter 20 1
run threads threads 50 1
run files files "$tmp" 20 1
run signals signals 10 30
run mallocs mallocs 30 0
run compute compute 1000000
run data data 4M 1 50
[ "$(grep -c '^count ' "$tmp/counter.1")" = 20 ] || { echo "FAIL: counter line count"; fails=$((fails + 1)); }
[ "$fails" = 0 ]
