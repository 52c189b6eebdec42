#!/bin/bash
# agent.sh MANA_ROOT PROGRAMS - the node agent (bin/mana_node_agent) against the real coordinator, with probe ranks
# (bin/mana_coord_probe) as the node's fake ranks:
#   - three callers of --ensure at once elect one agent and all get its port;
#   - 3 ranks through the agent + 1 direct: LIST shows the 3 with one client id, not the direct one's;
#   - barriers, sum, max, min and or through the agent give the right values (the probes check);
#   - a wrong secret is refused by the agent;
#   - a checkpoint through the agent commits (4 images reported); a member that drops out mid-checkpoint
#     aborts it (the coordinator's reason names it) and the others go on; exit-after-commit ends the
#     group and the agent;
#   - restarting ranks (HELLO restarting=1, phases 32-34) through the agent, then a checkpoint;
#   - a late rank (the agent's group already registered) carried on its own connection;
#   - a program without an MPI launcher (PROGRAMS/counter) launched, checkpointed and restarted through
#     agents by mana_launch/mana_restart with MANA_NODE_AGENT=1;
#   - the coordinator going away: the members' connections drop, the agent exits.
set -u
ROOT=$1 PROGS=${2:-}
PROBE=$ROOT/bin/mana_coord_probe AGENT=$ROOT/bin/mana_node_agent
for b in "$ROOT/bin/mana_coordinator" "$PROBE" "$AGENT"; do
    [ -x "$b" ] || { echo "FAIL: $b not built (make build)"; exit 1; }
done
. "$(dirname "$0")/../lib/wait.sh"

tmp=$(mktemp -d /tmp/mana_agent_it.XXXXXX) || exit 2
rcf=$tmp/coord.rc
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for f in "$tmp"/*/endpoint; do
        [ -r "$f" ] && p=$(sed -n 's/^Pid: *//p' "$f") && [ -n "$p" ] && kill "$p" 2>/dev/null
    done
    [ -r "$rcf" ] && cpid=$(sed -n 's/^Pid: *//p' "$rcf") && [ -n "$cpid" ] && kill "$cpid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

start_coord_on "$rcf" "$tmp/coord.out" || { echo "FAIL: coordinator wrote no status file"; cat "$tmp/coord.out"; exit 1; }
export MANA_RC=$rcf
unset MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_SECRET MANA_COORD_SECRET_FD DMTCP_COORD_HOST DMTCP_COORD_PORT
unset OMPI_COMM_WORLD_LOCAL_SIZE MPI_LOCALNRANKS SLURM_NODEID SLURM_STEP_TASKS_PER_NODE SLURM_TASKS_PER_NODE
cport=$(sed -n 's/^Port: *//p' "$rcf")
secret=$(sed -n 's/^Secret: *//p' "$rcf")

# Keeps the coordinator alive between steps (it exits when the last rank leaves).
timeout 100 "$PROBE" -q -j hold --serve-for 90 > "$tmp/hold.out" 2>&1 &
pids="$pids $!"

# How many local ranks the agent expects, from each launcher's variables (MANA_DEBUG says it).
expects() { # WANT FROM VAR=VALUE...: the agent, elected, expects WANT ranks, as told by FROM
    local want=$1 from=$2 d
    shift 2
    d=$tmp/count-$want-$from
    out=$(printf '%s' "$secret" | env "$@" MANA_DEBUG=1 MANA_AGENT_GATHER_MS=1 "$AGENT" --foreground --dir "$d" \
          --coord-host 127.0.0.1 --coord-port "$cport" 2>&1)
    case $out in
        *"$want local ranks (from $from)"*) ok "local ranks from $from ($*): $want";;
        *) fail "local ranks from $*: want $want from $from: $out";;
    esac
}
expects 5 OMPI_COMM_WORLD_LOCAL_SIZE OMPI_COMM_WORLD_LOCAL_SIZE=5
expects 3 MPI_LOCALNRANKS MPI_LOCALNRANKS=3
expects 1 SLURM_STEP_TASKS_PER_NODE "SLURM_STEP_TASKS_PER_NODE=2(x3),1" SLURM_NODEID=3
expects 2 SLURM_STEP_TASKS_PER_NODE "SLURM_STEP_TASKS_PER_NODE=2(x3),1" SLURM_NODEID=2
expects 2 SLURM_TASKS_PER_NODE "SLURM_TASKS_PER_NODE=4,2" SLURM_NODEID=1
expects 7 MANA_AGENT_RANKS MANA_AGENT_RANKS=7 OMPI_COMM_WORLD_LOCAL_SIZE=5
out=$(printf '%s' "$secret" | "$AGENT" --ensure --dir "$tmp/count-none" --coord-host 127.0.0.1 --coord-port "$cport" 2>&1)
rc=$?
case $rc$out in
    1*"cannot tell how many ranks"*) ok "no local rank count: refused ($out)";;
    *) fail "no local rank count: exit $rc: $out";;
esac

# ensure NAME: what a launcher does: find or start the agent of directory $tmp/NAME, print its port.
ensure() {
    printf '%s' "$secret" | MANA_AGENT_RANKS=3 "$AGENT" --ensure --dir "$tmp/$1" \
        --coord-host 127.0.0.1 --coord-port "$cport"
}
agent_pid() { sed -n 's/^Pid: *//p' "$tmp/$1/endpoint" 2>/dev/null; }
no_endpoint() { [ ! -e "$tmp/$1/endpoint" ]; }
# ended PID: the process is gone (or a zombie nobody reaps: the agent's parent, --ensure, has exited)
ended() { ! kill -0 "$1" 2>/dev/null || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]; }

# group NAME OPTS...: ranks 0-2 of job NAME (4 ranks) through the agent NAME, rank 3 direct; each exits 0.
group() {
    name=$1
    shift
    ensure "$name" > "$tmp/$name.p0" & e0=$!
    ensure "$name" > "$tmp/$name.p1" & e1=$!
    ensure "$name" > "$tmp/$name.p2"; s2=$?
    wait $e0; s0=$?
    wait $e1; s1=$?
    p=$(cat "$tmp/$name.p2")
    if [ $s0$s1$s2 != 000 ] || [ -z "$p" ] || [ "$(cat "$tmp/$name.p0")" != "$p" ] || [ "$(cat "$tmp/$name.p1")" != "$p" ]; then
        fail "$name: --ensure x3: exit $s0/$s1/$s2, ports $(cat "$tmp/$name.p"*)"; cat "$tmp/$name/agent.log"
        return 1
    fi
    for r in 0 1 2; do
        timeout 60 "$PROBE" -h 127.0.0.1 -p "$p" -s "$secret" -j "$name" -r $r -n 4 "$@" > "$tmp/$name.$r" 2>&1 &
        eval "g$r=\$!"
    done
    timeout 60 "$PROBE" -j "$name" -r 3 -n 4 "$@" > "$tmp/$name.3" 2>&1
    s3=$?
    wait $g0; s0=$?
    wait $g1; s1=$?
    wait $g2; s2=$?
    if [ $s0$s1$s2$s3 = 0000 ]; then
        ok "$name: $(grep collectives "$tmp/$name.0")"
    else
        fail "$name: exit $s0/$s1/$s2/$s3"; cat "$tmp/$name."[0-3] "$tmp/$name/agent.log"
    fi
    wait_for 10 no_endpoint "$name" && ok "$name: the agent left with its group" ||
        fail "$name: the agent's endpoint is still there after its ranks left"
}
group barriers -k 100
group sum --op sum -k 50
group max --op max -k 50
group min --op min -k 50
group or --op or -k 50

# serve NAME ARGS...: ranks 0-2 through the agent, rank 3 direct, serving checkpoints; waits until all 4
# run.  Sets sp0..sp3.
serve() {
    name=$1
    shift
    p=$(ensure "$name") || { fail "$name: no agent"; return 1; }
    for r in 0 1 2; do
        extra=; [ "$r" = 1 ] && extra=${DROP:-}
        timeout 60 "$PROBE" -h 127.0.0.1 -p "$p" -s "$secret" -j "$name" -r $r -n 4 --serve-for 50 --ckptdir "$tmp" $extra "$@" > "$tmp/$name.$r" 2>&1 &
        eval "sp$r=\$!"
        eval "pids=\"\$pids \$sp$r\""
    done
    timeout 60 "$PROBE" -j "$name" -r 3 -n 4 --serve-for 50 --ckptdir "$tmp" "$@" > "$tmp/$name.3" 2>&1 &
    sp3=$!
    pids="$pids $sp3"
    # (until a rank of the job has registered, the coordinator knows no job of that name)
    wait_for 20 "$PROBE" -j "$name" --await-running 4 --timeout 1000 > /dev/null 2>&1 ||
        { fail "$name: 4 ranks not running"; cat "$tmp/$name."[0-3] "$tmp/$name/agent.log"; return 1; }
}

# A wrong secret: the agent refuses the rank as the coordinator would (error 3, AUTH).
p=$(ensure wrong)
out=$(timeout 20 "$PROBE" -h 127.0.0.1 -p "$p" -s not-the-secret -j wrong -r 0 -n 1 -k 1 2>&1)
case $out in *"error 3"*) ok "wrong secret refused by the agent";; *) fail "wrong secret: $out";; esac
kill "$(agent_pid wrong)" 2>/dev/null

# LIST: the agent's three ranks share one client id, the direct rank has another.
if serve ck; then
    "$PROBE" -j ck --list > "$tmp/ck.list"
    ids=$(awk '$2<3 {print $NF}' "$tmp/ck.list" | sort -u)
    direct=$(awk '$2==3 {print $NF}' "$tmp/ck.list")
    if [ "$(wc -l < "$tmp/ck.list")" = 4 ] && [ "$(echo "$ids" | wc -l)" = 1 ] && [ -n "$ids" ] && [ "$ids" != "$direct" ]; then
        ok "LIST: ranks 0-2 on one connection (client $ids), rank 3 on its own (client $direct)"
    else
        fail "LIST: $(tr '\n' ';' < "$tmp/ck.list")"
    fi
    if out=$(timeout 30 "$PROBE" -j ck --checkpoint 2>&1) && echo "$out" | grep -q "checkpoint ok generation=1 .* ranks=4"; then
        ok "checkpoint through the agent: $out"
    else
        fail "checkpoint through the agent: $out"; cat "$tmp/ck/agent.log"
    fi
    apid=$(agent_pid ck)
    if out=$(timeout 30 "$PROBE" -j ck --checkpoint --exit 2>&1) && echo "$out" | grep -q "generation=2"; then
        ok "checkpoint and exit: $out"
    else
        fail "checkpoint and exit: $out"
    fi
    wait $sp0 && wait $sp1 && wait $sp2 && grep -q "checkpoint 2 committed" "$tmp/ck.0" &&
        ok "members exited after the commit" || { fail "members did not exit after commit"; cat "$tmp/ck."[0-3]; }
    wait_for 10 no_endpoint ck && wait_for 10 ended "$apid" && ok "the agent left with its group (BYE)" ||
        fail "the agent is still there after checkpoint-and-exit"
fi

# A member that drops out mid-checkpoint (after phase 1, without BYE) aborts it, as a direct rank would.
if DROP=--drop-in-ckpt serve drop; then
    out=$(timeout 30 "$PROBE" -j drop --checkpoint 2>&1)
    case $out in
        *"rank 1 disconnected"*) ok "a member dropping mid-checkpoint aborted it: $out";;
        *) fail "member dropped mid-checkpoint: checkpoint said: $out"; cat "$tmp/drop/agent.log";;
    esac
    wait_for 10 grep -q "aborted" "$tmp/drop.0" && kill -0 $sp0 && kill -0 $sp2 && kill -0 $sp3 &&
        ok "the other ranks saw the abort and go on" || { fail "abort not seen"; cat "$tmp/drop."[0-3]; }
    if "$PROBE" -j drop --list | awk '$2==1 {f=1; s=$8} END {exit !(f && s==7)}' ; then
        ok "the dropped rank is EXITED"
    else
        fail "dropped rank: $("$PROBE" -j drop --list | tr '\n' ';')"
    fi
    for s in $sp0 $sp2 $sp3; do kill "$s" 2>/dev/null; done
fi

# Restart through the agent: HELLO restarting=1 generation 5, phases 32-34, then a checkpoint (6).
if serve rs --restarting 5; then
    if out=$(timeout 30 "$PROBE" -j rs --checkpoint --exit 2>&1) && echo "$out" | grep -q "generation=6 .* ranks=4"; then
        ok "restart through the agent, then a checkpoint: $out"
    else
        fail "restart through the agent: $out"; cat "$tmp/rs."[0-3] "$tmp/rs/agent.log"
    fi
fi

# A rank later than the group (the agent expects 2, a third comes after they were registered): carried
# on a connection of its own; the job's collectives and checkpoints include it.
late=$(printf '%s' "$secret" | MANA_AGENT_RANKS=2 "$AGENT" --ensure --dir "$tmp/late" --coord-host 127.0.0.1 --coord-port "$cport")
for r in 0 1; do
    timeout 60 "$PROBE" -h 127.0.0.1 -p "$late" -s "$secret" -j late -r $r -n 4 --serve-for 50 --ckptdir "$tmp" > "$tmp/late.$r" 2>&1 &
    pids="$pids $!"
done
two_listed() { [ "$("$PROBE" -j late --list 2>/dev/null | grep -c '^rank')" = 2 ]; }
if wait_for 20 two_listed; then
    timeout 60 "$PROBE" -h 127.0.0.1 -p "$late" -s "$secret" -j late -r 2 -n 4 --serve-for 50 --ckptdir "$tmp" > "$tmp/late.2" 2>&1 &
    l2=$!
    timeout 60 "$PROBE" -j late -r 3 -n 4 --serve-for 50 --ckptdir "$tmp" > "$tmp/late.3" 2>&1 &
    pids="$pids $l2 $!"
    if wait_for 20 "$PROBE" -j late --await-running 4 --timeout 1000 > /dev/null 2>&1; then
        "$PROBE" -j late --list > "$tmp/late.list"
        g=$(awk '$2<2 {print $NF}' "$tmp/late.list" | sort -u)
        c2=$(awk '$2==2 {print $NF}' "$tmp/late.list")
        c3=$(awk '$2==3 {print $NF}' "$tmp/late.list")
        [ "$(echo "$g" | wc -l)" = 1 ] && [ -n "$c2" ] && [ "$c2" != "$g" ] && [ "$c2" != "$c3" ] &&
            grep -q "rank 2 came after" "$tmp/late/agent.log" &&
            ok "a late rank through the agent is carried on its own connection (group $g, rank 2: $c2)" ||
            fail "late rank: $(tr '\n' ';' < "$tmp/late.list") $(cat "$tmp/late/agent.log")"
        out=$(timeout 30 "$PROBE" -j late --checkpoint --exit 2>&1)
        case $out in *"ranks=4"*) ok "checkpoint with the late rank: $out";; *) fail "checkpoint with the late rank: $out";; esac
        wait_for 10 no_endpoint late && ok "the agent left when its group and its late rank had" ||
            fail "the agent outlived its ranks (late)"
    else
        fail "late: 4 ranks not running: $(cat "$tmp/late."[0-3] "$tmp/late/agent.log")"
    fi
else
    fail "late: the group of 2 did not register"
fi

# A program without an MPI launcher, launched and restarted with MANA_NODE_AGENT=1: the launchers start
# an agent for its one rank; checkpoint-and-exit through it, the restart through a new one goes on.
if [ -x "$PROGS/counter" ]; then
    (export MANA_NODE_AGENT=1 TMPDIR=$tmp/solo-t TEST_HOLD_FILE=$tmp/solo.go
     mkdir -m 0700 "$TMPDIR" && cd "$tmp" &&
     exec timeout 60 "$ROOT/bin/mana_launch" --job solo --ckptdir "$tmp/solo" "$PROGS/counter" 20 10) > "$tmp/solo.out" 2> "$tmp/solo.err" &
    sl=$!
    pids="$pids $sl"
    if wait_for 20 "$PROBE" -j solo --await-running 1 --timeout 1000 > /dev/null 2>&1; then
        c=$("$PROBE" -j solo --list)
        ls "$tmp"/solo-t/mana-agent-*/solo-*/endpoint > /dev/null 2>&1 && ok "a rank without MPI launcher, through its agent: $c" ||
            fail "solo: no agent endpoint under $tmp/solo-t: $(ls -R "$tmp/solo-t")"
        out=$(timeout 30 "$PROBE" -j solo --checkpoint --exit 2>&1) || fail "solo: checkpoint: $out"
        wait $sl
        : > "$tmp/solo.go"
        (export MANA_NODE_AGENT=1 TMPDIR=$tmp/solo-t
         exec timeout 60 "$ROOT/bin/mana_restart" --job solo --restartdir "$tmp/solo") > "$tmp/solo.r.out" 2> "$tmp/solo.r.err"
        grep -q "counter done: last=20 sum=210" "$tmp/solo.r.out" && [ ! -s "$tmp/solo.r.err" ] &&
            [ "$(ls -d "$tmp"/solo-t/mana-agent-*/solo-*/ | wc -l)" = 2 ] &&
            ok "... checkpointed, exited and restarted through agents: $(tail -1 "$tmp/solo.r.out")" ||
            fail "solo restart: $(cat "$tmp/solo.r.out" "$tmp/solo.r.err" "$tmp"/solo-t/*/*/agent.log)"
    else
        fail "solo: the rank did not register: $(cat "$tmp/solo.out" "$tmp/solo.err")"
    fi
else
    fail "$PROGS/counter not built"
fi

# The coordinator goes away: each member's connection drops (as a direct rank's), the agent exits.
if serve gone; then
    apid=$(agent_pid gone)
    cpid=$(sed -n 's/^Pid: *//p' "$rcf")
    kill "$cpid"
    wait $sp0; s0=$?
    wait $sp1; s1=$?
    if [ $s0 = 1 ] && [ $s1 = 1 ] && grep -q "connection lost" "$tmp/gone.0"; then
        ok "coordinator gone: the members' connections dropped ($(grep -o 'connection lost.*' "$tmp/gone.0" | head -1))"
    else
        fail "coordinator gone: exits $s0/$s1: $(cat "$tmp/gone.0")"
    fi
    wait_for 10 no_endpoint gone && wait_for 10 ended "$apid" && ok "the agent exited with its coordinator" ||
        fail "the agent outlived its coordinator"
fi

[ $fails = 0 ] && echo "PASS" && exit 0
echo "$fails failure(s)"
exit 1
