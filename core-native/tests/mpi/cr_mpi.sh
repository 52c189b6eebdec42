#!/usr/bin/env bash
# cr_mpi.sh - checkpoint/restart of an MPI test program under the runtime, compared bit for bit with
# an uninterrupted native run of the same number of iterations (see mpitest.h).
#
#   cr_mpi.sh [--mode kill|continue|cycles|reconnect|incremental] [--cycles N] [--seed S] [--extra E] [--native REF]
#             [--script FILE [--launcher-mpi]] [--restart-env VAR=VALUE] [--rank-pid P] [--hold] MPI NP PROGRAM [ARGS]
#
#   kill      launch; at a random moment after "ready": checkpoint-and-kill; restart; stop; compare
#   continue  launch; checkpoint (the job goes on); stop; compare
#   cycles    launch, then N times: checkpoint-and-kill and restart; then stop; compare
#   incremental  launch with incremental checkpoints (MANA_INCREMENTAL=1); N checkpoints while it runs,
#             then checkpoint-and-kill: every rank's images after the first are incremental, each on the
#             one before; restart from the chain; stop; compare
#   forked    launch; N checkpoints while it runs: the first as launched (unforked), the others asked
#             forked (a checkpoint asked --forked), each written by a writer process per rank while the ranks go
#             on (the ranks' logs say so, N-1 times each); then the ranks are killed (SIGKILL: a
#             checkpoint-and-kill is written unforked); restart from the last, forked, generation; stop;
#             compare.  (Forked from launch, mana_launch --forked: tests/process/incr_test.sh, and the
#             IDE's MpiJobFlowTest on MPI.)
#   reconnect launch; checkpoint; the coordinator dies (SIGKILL); every rank says it goes on
#             unprotected; a new coordinator of the same status file starts (new port and secret);
#             every rank registers with it again; checkpoint-and-kill through it (the next generation);
#             restart; stop; compare
# MPI is openmpi or mpich.  --native: the reference run uses REF (the same source built with the MPI's
# own mpicc) instead of PROGRAM, for programs that only run under the runtime (mpicc_mana builds).
# --script: PROGRAM is an interpreter and FILE its script (before the protocol's arguments); the MPI
# comes from MPI (MANA_MPI), since the interpreter's own libraries do not name one.  --launcher-mpi:
# MANA_MPI stays unset, so mana_launch takes the MPI from MPI's mpirun, as a user's
# `mpirun -n N mana_launch python3 app.py` does.
# --restart-env: the restarts run with VAR=VALUE in their environment (e.g. MANA_NO_FSGSBASE=1: an
# image taken with one way of switching FS restarts with the other, as on another CPU).
# --new-rc: each restart's coordinator writes a status file of its own (mana2.rc, mana3.rc...) and the
# launch's is removed, as when a new Slurm job restarts the checkpoint (~/.mana-slurm-$NEWJOB.rc), while
# the restored program's environment still names the old one; every rank must register with the new
# coordinator at its first try (no "restarted without a coordinator").
# --hold: the launch runs with MT_HOLD_FILE naming a file that exists; the program holds at a point of
# its own while the file exists and says so ("holding" from every rank but one, "waiting" from that one,
# pscw.c); the first checkpoint comes once all these lines are out, and the file goes right after it
# (before any restart), so the checkpoint certainly falls at that point; in mode cycles after the last
# checkpoint instead, so every restart but the last is checkpointed again at that point, before the
# program has gone on.  The native run has no MT_HOLD_FILE.
# --rank-pid: the last rank is launched as pid P (rank_pid.sh steers the kernel's next pid through
# /proc/sys/kernel/ns_last_pid; exit 77, skipped, where that cannot be written; launched again, 5 times
# at most, when another process took the pid first).
# P=32767 is 0x7fff, the upper half of every pointer into 0x7fff........: a scan for the tid field of
# glibc's thread descriptor once took such a pointer for it in that rank.
# --agent: every run registers through the node agent (MANA_NODE_AGENT=1, bin/mana_node_agent): once all
# ranks run after the launch and after the last restart, the coordinator must list them all on ONE
# connection (one client id), and at the end each run's agent must have gone with its ranks (its endpoint
# removed) without a complaint in its log; the last restart is told to stop only after that check.
# Every wait is bounded; a hang fails the test.  Exit 0 = PASS.
set -u
ROOT=${MANA_ROOT:-$(cd "$(dirname -- "$(readlink -f -- "$0")")/../../.." && pwd -P)}
mode=kill cycles=3 seed=${MANA_TEST_SEED:-$$} extra=50 native='' script= restart_env=() rank_pid= launcher_mpi= new_rc= hold= agent=
while [ $# -gt 0 ]; do
    case $1 in
        --mode) mode=$2; shift 2;;
        --cycles) cycles=$2; shift 2;;
        --seed) seed=$2; shift 2;;
        --extra) extra=$2; shift 2;;
        --native) native=$2; shift 2;;
        --script) script=$2; shift 2;;
        --launcher-mpi) launcher_mpi=1; shift;;
        --restart-env) restart_env+=("$2"); shift 2;;
        --rank-pid) rank_pid=$2; shift 2;;
        --new-rc) new_rc=1; shift;;
        --hold) hold=1; shift;;
        --agent) agent=1; shift;;
        *) break;;
    esac
done
[ $# -ge 3 ] || { echo "usage: cr_mpi.sh [--mode kill|continue|cycles] MPI NP PROGRAM [ARGS]" >&2; exit 2; }
mpi=$1 np=$2 prog=$3
shift 3
# the ranks run in $tmp/run: make paths given relative to here absolute
case $prog in */*) prog=$(readlink -f -- "$prog");; esac
case $script in ?*) script=$(readlink -f -- "$script");; esac
case $native in ?*) native=$(readlink -f -- "$native");; esac
RANDOM=$seed
case $mpi in
    openmpi) MPIRUN="mpirun.openmpi --oversubscribe -n $np"
             export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
             # ranks that exit without MPI_Finalize (checkpoint-and-kill): mpirun ends the job at once,
             # not after its 1 s SIGTERM grace (a second of each kill, a tenth of an Open MPI test)
             export OMPI_MCA_odls_base_sigkill_timeout=0;;
    mpich) MPIRUN="mpirun.mpich -n $np";;
    *) echo "bad MPI $mpi" >&2; exit 2;;
esac
name=$(basename "${script:-$prog}")
unset MANA_MPI MANA_INCREMENTAL MANA_INCREMENTAL_FULL_EVERY MANA_FORKED MANA_TIMING
[ "$mode" = incremental ] && export MANA_INCREMENTAL=1
[ "$mode" = forked ] && export MANA_TIMING=1
if [ -n "$script" ] && [ -z "$launcher_mpi" ]; then
    export MANA_MPI=$mpi
fi
tmp=$(mktemp -d /tmp/mana_crmpi.XXXXXX) || exit 1
mkdir "$tmp/run" || exit 1
unset MT_HOLD_FILE
ckpts=0 hold_for=1
[ "$mode" = cycles ] && hold_for=$cycles
if [ -n "$hold" ]; then
    : > "$tmp/hold" || exit 1
    export MT_HOLD_FILE=$tmp/hold
fi
say() { printf 'cr_mpi[%s %s np=%s %s seed=%s]: %s\n' "$name" "$mpi" "$np" "$mode" "$seed" "$*"; }
fail() {
    say "FAIL: $*"
    for f in "$tmp"/*.out "$tmp"/*.err "$tmp"/*.log; do [ -s "$f" ] && { echo "---- $f"; tail -n 25 "$f"; }; done
    show_cores
    exit 1
}
# A rank that crashed left a core in $tmp/run (the ranks' working folder, kept by a restart):
# say where it stopped, so a rare crash on a CI machine can be placed later.  gdb gets the executable
# the core names (lower-half-MPI), so the lower half's libraries have their symbols in every thread's
# backtrace; gdb does not know the upper half's, so every pc, sp, fs base and frame address is placed
# in its mapping, and an address in a shared object's text gets addr2line's function and line.
show_cores() {
    local c exe
    for c in "$tmp"/run/core*; do
        [ -f "$c" ] || continue
        echo "---- $c (gdb)"
        exe=$(timeout 30 gdb -q -n -batch -c "$c" 2>&1 | sed -n "s/^Core was generated by \`\([^ ']*\).*/\1/p")
        timeout 60 gdb -q -n -batch ${exe:+"$exe"} -c "$c" -ex 'info registers rip rsp fs_base' -ex 'x/4i $pc' \
            -ex 'thread apply all bt 16' -ex 'thread apply all info registers rip rsp fs_base' \
            -ex 'info proc mappings' 2>&1 | grep -v '^warning' > "$tmp/core.gdb"
        # everything up to the mappings, then only the mappings that hold a thread's pc, sp or fs base
        sed '/^Mapped address spaces/,$d' "$tmp/core.gdb" | head -n 200
        local addrs a lo hi off file
        addrs=$( { grep -E '^(rip|rsp|fs_base) ' "$tmp/core.gdb" | awk '{print $2}'
                   sed -n 's/^#[0-9]*  *\(0x[0-9a-f]*\) in ?? ().*/\1/p' "$tmp/core.gdb"; } | sort -u)
        sed -n '/^Mapped address spaces/,$p' "$tmp/core.gdb" | grep -E '^ +0x' | while read -r lo hi _ off file; do
            for a in $addrs; do
                (( a >= lo && a < hi )) || continue
                echo "$a in $lo-$hi $off $file"
                case $file in
                    *.so|*.so.*) addr2line -f -i -e "$file" "$(printf '%#x' $((a - lo + off)))" 2>/dev/null | sed 's/^/        /';;
                esac
            done
        done
    done
}
jobs_pid=
cleanup() {
    [ -n "$jobs_pid" ] && { pkill -KILL -P "$jobs_pid" 2>/dev/null; kill -KILL "$jobs_pid" 2>/dev/null; }
    pkill -f "status-file $tmp/" 2>/dev/null
    if [ -n "${MANA_TEST_KEEP:-}" ]; then echo "cr_mpi: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
export HOME=$tmp MANA_RC=$tmp/mana.rc
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_NODE_AGENT MANA_AGENT_DIR
if [ -n "$agent" ]; then
    # the agents' directories (one per run: the launcher's parent is each run's mpirun) under $tmp
    export MANA_NODE_AGENT=1 TMPDIR=$tmp/t
    mkdir -m 0700 "$TMPDIR" || exit 1
fi

. "$(dirname -- "$(readlink -f -- "$0")")/../lib/wait.sh"     # wait_for, await_running, start_coord_on
. "$(dirname -- "$(readlink -f -- "$0")")/../lib/cannot.sh"     # cannot KEY WHY: skip only where asked
has() { grep -q -- "$2" "$1" 2>/dev/null; }
start_coordinator() {
    start_coord_on "$MANA_RC" "$tmp/coordinator.log" || fail "coordinator did not start"
}
random_pause() { sleep "0.$(printf '%03d' $((RANDOM % 400)))"; }

# One run of the job in the background: its output in $tmp/$1.out / .err.
wrap=                      # a command the ranks run under (--rank-pid: rank_pid.sh), empty for none
start_job() {
    local envs=()
    case $2 in mana_restart) envs=("${restart_env[@]}");; esac
    (cd "$tmp/run" && ulimit -c unlimited 2>/dev/null
     exec env ${envs[@]+"${envs[@]}"} timeout 300 $MPIRUN $wrap "$ROOT/bin/$2" "${@:3}") > "$tmp/$1.out" 2> "$tmp/$1.err" &
    jobs_pid=$!
}
# finish_job [SECONDS]: the job's exit status; with SECONDS (a job told to stop), a job still running
# after them is a hang: what each rank was doing is shown and the test fails, well inside ctest's limit
# (a bare wait reached that limit, which kills the harness before it can say anything).
finish_job() {
    if [ -n "${1:-}" ] && ! wait_for "$1" job_gone; then
        hang_report
        fail "the job did not end $1 s after it was told to stop"
    fi
    wait "$jobs_pid"
    local rc=$?
    jobs_pid=
    return $rc
}
job_gone() { ! kill -0 "$jobs_pid" 2>/dev/null; }
# A checkpoint that did not complete: what each rank was doing, so a rare hang can be placed later.
hang_report() {
    echo "---- mana_status --list"
    timeout 20 "$ROOT/bin/mana_status" --list 2>&1
    local r
    for r in $(seq 0 $((np - 1))); do
        echo "---- rank $r: threads (mana_gdb, both halves' symbols)"
        timeout 40 "$ROOT/bin/mana_gdb" --rank "$r" --batch -ex 'thread apply all bt 25' \
            -ex "source $(dirname -- "$(readlink -f -- "$0")")/drain_state.py" 2>&1 |
            grep -E '^(Thread|#|drain state|  comm |lower half|  thread LWP)' | head -n 160
    done
}
# checkpoint [--kill] [--forked]: through mana_coord_probe (C), not mana_status: a JVM per checkpoint
# (~0.7 s of CPU) was a tenth of the MPI suite's time on a 2-core machine; mana_status has its own tests
# (control-plane's CommandsIT) and drives the checkpoints of the other MPI harnesses (mpiio_*, errors_mpi...).
checkpoint() {
    local flags=()
    [ "${1:-}" = --kill ] && { flags+=(--exit); shift; }
    flags+=("$@")
    timeout 100 "$ROOT/bin/mana_coord_probe" --checkpoint "${flags[@]}" --timeout 90000 > "$tmp/status.out" 2>&1 ||
        { local rc=$?; hang_report; fail "checkpoint ${flags[*]} failed (exit $rc): $(cat "$tmp/status.out")"; }
    grep -q "^checkpoint ok generation=" "$tmp/status.out" || fail "no checkpoint written: $(cat "$tmp/status.out")"
    # --hold: the program was held for this checkpoint; let it go on after the last one it is held for
    # (a restart finds no file)
    ckpts=$((ckpts + 1))
    if [ -n "$hold" ] && [ -e "$tmp/hold" ]; then
        say "checkpoint $ckpts taken while held"
        [ "$ckpts" -ge "$hold_for" ] && rm -f "$tmp/hold"
    fi
}

launch_ready_or_gone() { has "$tmp/launch.out" '^ready' || job_gone; }
launch_once() {
    if [ -n "$script" ]; then
        start_job launch mana_launch --ckptdir "$tmp/ck" "$prog" "$script" --stop-file "$tmp/stop" "$@"
    else
        start_job launch mana_launch --ckptdir "$tmp/ck" "$prog" --stop-file "$tmp/stop" "$@"
    fi
    wait_for 60 launch_ready_or_gone
    has "$tmp/launch.out" '^ready' ||
        fail "no 'ready' line from the launched program$(job_gone && echo ' (the job ended)')"
    await_running "$np" 60 || fail "not every rank registered"
}
# the last restart: a new coordinator, the job told to stop at once (after $extra iterations), run to
# its end
restart_to_the_end() {
    start_coordinator
    [ -n "$agent" ] || echo "$extra" > "$tmp/stop"
    start_job restart1 mana_restart --restartdir "$tmp/ck"
    final=restart1
    if [ -n "$agent" ]; then
        await_running "$np" 60 || fail "restart: not every rank came back"
        one_group restart
        echo "$extra" > "$tmp/stop"
    fi
    finish_job 100 || fail "the restarted job failed"
}
# --agent: the coordinator lists the np ranks on one connection (a rank group: one client id for all)
one_group() {
    local ids
    ids=$("$ROOT/bin/mana_coord_probe" --list 2>&1) || fail "cannot list the ranks: $ids"
    [ "$(echo "$ids" | grep -c '^rank ')" = "$np" ] || fail "the coordinator lists $(echo "$ids" | grep -c '^rank ') ranks, want $np: $ids"
    local n
    n=$(echo "$ids" | awk '{print $NF}' | sort -u | wc -l)
    [ "$n" = 1 ] || fail "$1: the ranks are on $n connections, want one group: $(echo "$ids" | tr '\n' ';')"
    say "$1: $np ranks on one connection through the node agent (client $(echo "$ids" | awk 'NR==1 {print $NF}'))"
}
rank_pids() { "$ROOT/bin/mana_status" --list --json 2>/dev/null | grep -o '"pid":[0-9]*' | cut -d: -f2; }
start_coordinator
if [ -z "$rank_pid" ]; then
    launch_once "$@"
else
    # a write of its own value, not a -w test: root without CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE
    # passes that and gets EPERM
    v=$(cat /proc/sys/kernel/ns_last_pid 2>/dev/null) && (echo "$v" > /proc/sys/kernel/ns_last_pid) 2>/dev/null ||
        cannot pid7fff "cannot steer pids (/proc/sys/kernel/ns_last_pid: needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE)"
    try=0
    wrap="$(dirname -- "$(readlink -f -- "$0")")/rank_pid.sh $rank_pid $((np - 1))"
    while :; do
        try=$((try + 1))
        launch_once "$@"
        pids=$(echo $(rank_pids))
        case " $pids " in *" $rank_pid "*) say "rank pids $pids (launch $try)"; break;; esac
        [ "$try" -lt 5 ] || fail "no rank got pid $rank_pid in 5 launches (last: $pids)"
        echo 1 > "$tmp/stop"
        finish_job 100 || fail "a launch that missed pid $rank_pid did not end cleanly"
        rm -f "$tmp/stop"
        pkill -f "status-file $tmp/" 2>/dev/null
        start_coordinator
    done
    wrap=                  # restarts run as they are
fi
[ -n "$agent" ] && one_group launch
if [ -n "$hold" ]; then
    all_held() { [ "$(grep -c '^holding' "$tmp/launch.out")" -ge $((np - 1)) ]; }
    wait_for 60 all_held || fail "$(grep -c '^holding' "$tmp/launch.out") 'holding' lines from the launched program, want $((np - 1))"
    wait_for 60 has "$tmp/launch.out" '^waiting' || fail "no 'waiting' line from the launched program"
else
    random_pause
fi
final=launch
case $mode in
    incremental)
        for c in $(seq 1 "$cycles"); do
            checkpoint
            random_pause
        done
        checkpoint --kill
        finish_job 60
        for r in $(seq 0 $((np - 1))); do
            for g in $(seq 2 $((cycles + 1))); do
                f=$(ls "$tmp"/ck/ckpt_rank_$r/ckpt_*_gen$g.mana 2>/dev/null) || fail "rank $r has no image of generation $g"
                out=$("$ROOT/bin/lower-half" --check "$f" 2>&1) || fail "rank $r generation $g: $out"
                case $out in *"incremental on ckpt_"*"_gen$((g - 1)).mana"*) ;;
                    *) fail "rank $r generation $g is not incremental on $((g - 1)): $out";; esac
            done
        done
        say "every rank: generation 1 full, 2..$((cycles + 1)) incremental; $(du -sh "$tmp/ck" | cut -f1) in all"
        restart_to_the_end;;
    forked)
        checkpoint
        [ "$(grep -c "checkpoint: forked writer, program running" "$tmp/launch.err")" = 0 ] ||
            fail "a checkpoint not asked forked was forked"
        for c in $(seq 2 "$cycles"); do
            random_pause
            checkpoint --forked
        done
        # each rank prints its timings after the commit, so the last may come after the request returned
        forked_writes() { grep -c "checkpoint: forked writer, program running" "$tmp/launch.err"; }
        all_forked() { [ "$(forked_writes)" -ge $((np * (cycles - 1))) ]; }
        wait_for 30 all_forked || fail "$(forked_writes) forked writes in the ranks' logs, want $((np * (cycles - 1)))"
        nw=$(forked_writes)
        [ "$nw" = $((np * (cycles - 1))) ] || fail "$nw forked writes in the ranks' logs, want $((np * (cycles - 1)))"
        grep "not forked" "$tmp/launch.err" && fail "a checkpoint was written unforked"
        pids=$(rank_pids)
        [ -n "$pids" ] || fail "no rank pids from the coordinator"
        kill -KILL $pids
        finish_job 60
        ls "$tmp"/ck/ckpt_rank_*/*.tmp >/dev/null 2>&1 && fail "a *.tmp image was left behind"
        for r in $(seq 0 $((np - 1))); do
            f=$(ls "$tmp"/ck/ckpt_rank_$r/*_gen$cycles.mana 2>/dev/null) || fail "rank $r has no image of generation $cycles"
            out=$("$ROOT/bin/lower-half" --check "$f" 2>&1) || fail "rank $r generation $cycles: $out"
        done
        say "$cycles forked checkpoints, $nw writer processes; the ranks killed"
        restart_to_the_end;;
    continue)
        checkpoint
        echo "$extra" > "$tmp/stop"
        finish_job 100 || fail "the launched job failed";;
    kill|cycles)
        n=1; [ "$mode" = cycles ] && n=$cycles
        for c in $(seq 1 "$n"); do
            checkpoint --kill
            finish_job 60
            ls "$tmp"/ck/ckpt_rank_*/*.tmp >/dev/null 2>&1 && fail "a *.tmp image was left behind"
            if [ -n "$new_rc" ]; then rm -f "$MANA_RC"; MANA_RC=$tmp/mana$((c + 1)).rc; fi
            start_coordinator
            [ "$c" = "$n" ] && [ -z "$agent" ] && echo "$extra" > "$tmp/stop"
            start_job restart$c mana_restart --restartdir "$tmp/ck"
            final=restart$c
            if [ "$c" = "$n" ] && [ -n "$agent" ]; then
                await_running "$np" 60 || fail "restart $c: not every rank came back"
                one_group "restart $c"
                echo "$extra" > "$tmp/stop"
            elif [ "$c" != "$n" ]; then
                await_running "$np" 60 || fail "restart $c: not every rank came back"
                random_pause
            fi
        done
        finish_job 100 || fail "the restarted job failed";;
    reconnect)
        checkpoint
        grep -q "generation=1 " "$tmp/status.out" || fail "the first checkpoint is not generation 1"
        pkill -KILL -f "status-file $tmp/" || fail "cannot kill the coordinator"
        lost() { [ "$(grep -c 'takes it back (retrying)' "$tmp/launch.err")" = "$np" ]; }
        wait_for 60 lost || fail "not every rank said it lost the coordinator"
        start_coordinator
        back() { [ "$(grep -c 'registered with the coordinator at .* again' "$tmp/launch.err")" = "$np" ]; }
        wait_for 90 back || fail "not every rank registered with the new coordinator"
        await_running "$np" 30 || fail "the new coordinator does not list every rank as running"
        checkpoint --kill
        grep -q "generation=2 " "$tmp/status.out" || fail "the checkpoint through the new coordinator is not generation 2"
        finish_job 60
        restart_to_the_end;;
    *) fail "bad mode $mode";;
esac
if [ -n "$agent" ]; then
    # each run's agent left with its ranks (no endpoint left behind) and wrote no complaint
    no_endpoint() { [ ! -e "$1/endpoint" ]; }
    for d in "$tmp"/t/mana-agent-*/*/; do
        wait_for 10 no_endpoint "$d" || fail "an agent's endpoint is still there: $d"
        [ -s "$d/agent.log" ] && fail "the agent in $d complained: $(cat "$d/agent.log")"
    done
    nagents=$(ls -d "$tmp"/t/mana-agent-*/*/ 2>/dev/null | wc -l)
    [ "$nagents" -ge 2 ] || fail "$nagents agent directories, want one per run (launch and restarts)"
fi
if [ -n "$new_rc" ]; then
    for f in "$tmp"/restart*.err; do
        grep -E 'restarted without a coordinator|cannot reach coordinator|cannot read status file' "$f" &&
            fail "$(basename "$f" .err): a rank did not register with its restart's coordinator at the first try"
    done
fi
unset MT_HOLD_FILE
got=$(grep "done: " "$tmp/$final.out" | tail -n 1)
[ -n "$got" ] || fail "no 'done:' line"
iters=$(echo "$got" | sed -n 's/.*iters=\([0-9]*\).*/\1/p')
if [ -n "$script" ]; then
    timeout 120 $MPIRUN "$prog" "$script" --iters "$iters" "$@" > "$tmp/native.out" 2>&1 || fail "native run failed"
else
    timeout 120 $MPIRUN "${native:-$prog}" --iters "$iters" "$@" > "$tmp/native.out" 2>&1 || fail "native run failed"
fi
want=$(grep "done: " "$tmp/native.out" | tail -n 1)
[ "$got" = "$want" ] || fail "results differ: runtime '$got', native '$want'"
say "PASS ($got)"
