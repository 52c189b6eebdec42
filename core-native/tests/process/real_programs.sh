#!/bin/bash
# real_programs.sh ROOT [PROCESS_BUILD_DIR] - real programs under the runtime: checkpoint at a random
# moment, kill -9, restart, compare with a native run (docs/benchmarks.md, "Real programs").
#
# Not part of ctest (a minute or two): a table, then one JSON line.  Each row: the checkpoint time
# (mana_status --checkpoint), the image size, the restarted run's wall time (mana_restart to the
# program's end), and whether the restarted run's result is identical to a native run's.  Programs that are missing
# are left out.  Also: the image overhead of a database written in place (sqlite3, FILEDATA) against
# MANA_SAVE_FILES_MAX=0.
set -u
ROOT=$1
PB=${2:-$(cd "$(dirname "$0")/../../build/tests/process" 2>/dev/null && pwd)}
B=$ROOT/bin
W=$(mktemp -d /tmp/mana-real.XXXXXX)
export MANA_RC=$W/coord.rc
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_CKPT_DIR MANA_DEBUG MANA_NO_COORD
cleanup() {
    timeout 10 "$B/mana_status" --quit >/dev/null 2>&1
    rm -rf "$W"
}
trap cleanup EXIT
"$B/mana_coordinator" --verbose -p 0 --no-exit-on-last --status-file "$MANA_RC" --log-file "$W/coord.log" >/dev/null 2>&1 ||
    { echo "coordinator did not start" >&2; exit 1; }
now() { date +%s%N; }
ms() { echo $(( ($2 - $1) / 1000000 )); }

# result FILE...: what a run leaves (output and files), as one checksum
# LAST: the program's final "done" line on stdout
result() {
    if [ "$1" = LAST ]; then grep -a 'done' out.txt | tail -n 1; else cat "$@" 2>/dev/null | sha256sum | cut -c1-16; fi
}

rows=() json=()
# run NAME SETUP CMD RESULT_FILES [STDIN] : native, then launch / checkpoint / kill / restart (the
# restart gets STDIN again, as the user would give it: the runtime seeks it to the checkpoint's offset)
run() {
    local name=$1 setup=$2 cmd=$3 files=$4 input=${5:-/dev/null}
    rm -rf "$W/n" "$W/r"; mkdir -p "$W/n" "$W/r"
    (cd "$W/n" && eval "$setup" && eval "$cmd" > out.txt 2>/dev/null)
    local want=$(cd "$W/n" && result $files)
    (cd "$W/r" && eval "$setup")
    (cd "$W/r" && eval "exec $B/mana_launch --ckptdir $W/r/ck $cmd" > "$W/r/out.txt" 2> "$W/r/launch.err") &
    local pid=$!
    local i=0
    until grep -q 'registered:' "$W/coord.log" 2>/dev/null && [ "$(grep -c 'registered:' "$W/coord.log")" -gt "${REG:-0}" ]; do
        sleep 0.05; i=$((i + 1)); [ $i -lt 400 ] || break
    done
    REG=$(grep -c 'registered:' "$W/coord.log")
    sleep "0.$(( 3 + RANDOM % 5 ))"
    local t0=$(now)
    timeout 60 "$B/mana_status" --checkpoint > "$W/st" 2>&1
    local t1=$(now)
    kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
    local img=$(ls "$W/r/ck/ckpt_rank_0/"*.mana 2>/dev/null | head -n 1)
    local size=$( [ -n "$img" ] && stat -c %s "$img" || echo 0)
    local t2=$(now)
    (cd "$W/r" && timeout 120 "$B/mana_restart" --restartdir "$W/r/ck" < "$input" >> out.txt 2> restart.err)
    local t3=$(now)
    REG=$(grep -c 'registered:' "$W/coord.log")
    local got=$(cd "$W/r" && result $files)
    local same=no
    [ "$got" = "$want" ] && same=yes
    [ "$size" = 0 ] && same="not checkpointed (ended first)"
    rows+=("$(printf '| %s | %d ms | %.1f MB | %d ms | %s |' "$name" "$(ms $t0 $t1)" "$(echo "$size / 1000000" | bc -l)" "$(ms $t2 $t3)" "$same")")
    json+=("\"$name\": {\"ckpt_ms\": $(ms $t0 $t1), \"image_bytes\": $size, \"restart_run_ms\": $(ms $t2 $t3), \"identical\": \"$same\"}")
}

# "identical": each program's result (a file it writes, or its final line) against a native run's.
command -v python3 >/dev/null && run python3 '' \
    "python3 -c 'import time,hashlib
h=hashlib.sha256()
for i in range(300):
    h.update(str(i*i).encode()); time.sleep(0.01)
open(\"res\",\"w\").write(h.hexdigest())'" res
command -v perl >/dev/null && run perl '' \
    "perl -e 'my \$s=0; for my \$i (1..300) { \$s = (\$s * 31 + \$i) % 1000000007; select(undef,undef,undef,0.01) } open(F, \">res\"); print F \$s'" res
run awk 'seq 1 300000 > in.txt' \
    "awk '{ s = (s * 31 + \$1) % 1000000007; if (NR % 100 == 0) for (j = 0; j < 20000; j++) x += j } END { print s > \"res\" }' in.txt" res
run gzip 'seq 1 4000000 > in.txt' "gzip -n -k -9 in.txt" in.txt.gz
run xz 'seq 1 600000 > in.txt' "xz -k -T1 in.txt" in.txt.xz
if command -v sqlite3 >/dev/null; then
    { echo "CREATE TABLE t(a INTEGER, b TEXT);"
      for i in $(seq 1 400); do echo "INSERT INTO t VALUES($i, 'row $i');"
          echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<20000) SELECT count(*) FROM c;"; done
      echo "SELECT count(*), sum(a) FROM t;" ; } > "$W/s.sql"
    run sqlite3 "cp $W/s.sql s.sql" "sqlite3 t.db < s.sql" "t.db" "$W/r/s.sql"
fi
for jdk in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
    [ -x "$jdk/bin/java" ] && [ -x "$jdk/bin/javac" ] || continue
    mkdir -p "$W/cls"; "$jdk/bin/javac" --release 17 -d "$W/cls" "$(dirname "$0")/Count.java" 2>/dev/null
    run "java $(basename "$jdk")" '' "$jdk/bin/java -cp $W/cls Count 60" LAST
done
[ -x "$PB/ptimers" ] && run "POSIX timers" '' "$PB/ptimers 150 30" LAST
run "bash exec wrapper" '' "/bin/bash -c 'exec $PB/../programs/counter 60 30'" LAST

echo "| program | checkpoint | image | restart to the end | identical |"
echo "| --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"

# Image overhead of a database written in place: 16 MB of sqlite data, saved with the image or not.
if command -v sqlite3 >/dev/null; then
    for lim in 0 64M; do
        rm -rf "$W/o"; mkdir -p "$W/o"
        sqlite3 "$W/o/big.db" "CREATE TABLE t(b BLOB); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<4000) INSERT INTO t SELECT randomblob(4000) FROM c;"
        { for i in $(seq 1 400); do echo "UPDATE t SET b = randomblob(4000) WHERE rowid = $i;"
              echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<20000) SELECT count(*) FROM c;"; done; } > "$W/o/u.sql"
        (cd "$W/o" && MANA_SAVE_FILES_MAX=$lim exec "$B/mana_launch" --ckptdir "$W/o/ck" sqlite3 big.db < u.sql > out 2>&1) &
        pid=$!
        i=0
        until [ "$(grep -c 'registered:' "$W/coord.log")" -gt "${REG:-0}" ] || [ $i -ge 400 ]; do sleep 0.05; i=$((i + 1)); done
        REG=$(grep -c 'registered:' "$W/coord.log")
        sleep 1
        t0=$(now); timeout 60 "$B/mana_status" --checkpoint > /dev/null 2>&1; t1=$(now)
        kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
        sz=$(stat -c %s "$W/o/ck/ckpt_rank_0/"*.mana 2>/dev/null || echo 0)
        echo "in-place database $(stat -c %s "$W/o/big.db") bytes, MANA_SAVE_FILES_MAX=$lim: image $sz bytes, checkpoint $(ms $t0 $t1) ms"
        json+=("\"sqlite_inplace_limit_$lim\": {\"db_bytes\": $(stat -c %s "$W/o/big.db"), \"image_bytes\": $sz, \"ckpt_ms\": $(ms $t0 $t1)}")
    done
fi
(IFS=,; echo "{${json[*]}}")
