#!/usr/bin/env bash
# cluster.sh - a small cluster of "nodes" on this machine, for the multi-node tests.
#
#   cluster.sh [--nodes N] [--slurm] [--keep] [--dir DIR] -- COMMAND [ARGS...]
#
# Each node is a Linux network namespace (its own address on a bridge, its own loopback) plus a UTS
# namespace (its own host name) and a mount namespace whose /tmp is the node's own scratch folder and
# whose /dev/shm is the node's own (shared-memory segments and windows are a node's, as on real nodes).
# The bridge lives in one more network namespace, the "head" (10.77.0.1), which is where COMMAND runs,
# as on a login node; nodes are node1..nodeN at 10.77.0.11... No interface, address or route of the
# machine's own network is touched: every address used is on that bridge or a namespace's loopback.
# The whole cluster runs inside a private mount namespace of its own, where /etc/hosts names the
# nodes (so host names resolve on every node, as on a real cluster) and nothing is mounted outside.
# Shared by all nodes, as a parallel file system would be: $CLUSTER_DIR/shared (the checkpoint
# directory of the tests) and $CLUSTER_DIR/home (HOME: the coordinator's status file).
# --slurm starts real Slurm on it (slurm.sh: munged, slurmctld on the head, one slurmd per node).
#
# COMMAND gets: CLUSTER_DIR, CLUSTER_NODES ("node1 node2 ..."), HOME, SLURM_CONF (with --slurm), and
# on its PATH ($CLUSTER_DIR/bin):
#   on NODE COMMAND...     runs COMMAND on NODE (its namespaces, its /tmp), in the current folder
#   node_kill NODE         SIGKILLs every process of NODE (a node failure); the node stays, empty
#   rsh_agent HOST CMD...  a remote shell for MPI launchers (Open MPI plm_rsh_agent, MPICH
#                          -launcher-exec): runs CMD on HOST through `on`
# Everything is removed when COMMAND ends, also after a failure or a signal (--keep: the folder stays);
# what a cluster.sh killed by SIGKILL left is removed by the next cluster.sh (reap_stale).  Every
# process started in the cluster carries CLUSTER_DIR=<its folder> in its environment (COMMAND's, and so
# the daemons', jobs' and launchers' below it): that mark finds them wherever they are, also after their
# node's holder is gone or the folder was removed.
# Needs root (namespaces, mounts); without it, one line says so and the exit status is 77 (ctest: skipped).
# Exit status: COMMAND's; 1 when the cluster could not be made.
set -u
here=$(cd "$(dirname -- "$(readlink -f -- "$0")")" && pwd -P)
nodes=2 slurm= keep= base=/var/tmp
while [ $# -gt 0 ]; do
    case $1 in
        --nodes) nodes=$2; shift 2;;
        --slurm) slurm=1; shift;;
        --keep) keep=1; shift;;
        --dir) base=$2; shift 2;;
        --) shift; break;;
        *) echo "usage: cluster.sh [--nodes N] [--slurm] [--keep] [--dir DIR] -- COMMAND [ARGS...]" >&2; exit 2;;
    esac
done
[ $# -ge 1 ] || { echo "cluster.sh: no command given" >&2; exit 2; }
case $nodes in ''|*[!0-9]*) echo "cluster.sh: bad --nodes '$nodes'" >&2; exit 2;; esac
[ "$nodes" -ge 1 ] && [ "$nodes" -le 200 ] || { echo "cluster.sh: --nodes must be 1..200" >&2; exit 2; }

say() { echo "cluster: $*" >&2; }

# kill_marked DIR|--orphans: SIGKILL every process whose environment says CLUSTER_DIR=DIR; with --orphans,
# those of any cluster folder under $base that no longer exists.  Only processes in a network namespace
# other than this shell's are looked at (every process a cluster starts runs in one of its namespaces; the
# namespace link is read without touching the process's memory), and each environment is read under a
# time limit: reading another process's environment waits for its memory map, and a process stuck
# holding that (a test's restart, a program stopped under a debugger) must not hold up a teardown, nor
# anything else, for good.  Repeated while it finds some (a dying parent may still fork).
kill_marked() {
    local q p v round found me
    me=$(readlink /proc/self/ns/net)
    for round in 1 2 3 4 5 6 7 8 9 10; do
        found=
        for q in /proc/[0-9]*; do
            p=${q#/proc/}
            [ "$p" = $$ ] && continue
            v=$(readlink "$q/ns/net" 2>/dev/null) && [ -n "$v" ] && [ "$v" != "$me" ] || continue
            v=$(timeout 2 tr '\0' '\n' < "$q/environ" 2>/dev/null | grep -m1 '^CLUSTER_DIR=') || continue
            v=${v#CLUSTER_DIR=}
            if [ "$1" = --orphans ]; then
                case $v in "$base"/mana-cluster.??????) [ -e "$v" ] && continue;; *) continue;; esac
            else
                [ "$v" = "$1" ] || continue
            fi
            kill -KILL "$p" 2>/dev/null && found=1
        done
        [ -z "$found" ] && return 0
        sleep 0.1
    done
    say "processes marked CLUSTER_DIR=$1 are still alive"
}
. "$(dirname -- "$(readlink -f -- "$0")")/../lib/cannot.sh"     # cannot KEY WHY: skip only where asked
if [ "$(id -u)" != 0 ]; then
    cannot cluster "cluster: needs root (network, UTS and mount namespaces, a bridge): not run"
fi
for t in ip nsenter unshare mount; do
    command -v "$t" > /dev/null || cannot cluster "cluster: needs '$t' (iproute2, util-linux): not run"
done

# The cluster lives in a private mount namespace of its own: enter it first (re-executing this script).
if [ -z "${MANA_CLUSTER_INSIDE:-}" ]; then
    MANA_CLUSTER_INSIDE=1 exec unshare --mount --propagation private -- "$0" --nodes "$nodes" \
        ${slurm:+--slurm} ${keep:+--keep} --dir "$base" -- "$@"
fi
unset MANA_CLUSTER_INSIDE

# A cluster whose cluster.sh was killed outright (SIGKILL, e.g. a test runner's time-out) could not tear
# itself down: its namespaces (mcPID-*) and daemons would live on.  Remove every such leftover first,
# found by the namespaces' names and the folders' owner files, only where that owner is gone.
reap_stale() {
    local ns owner p q d
    for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }' | grep -E '^mc[0-9]+-(head|node[0-9]+)$'); do
        owner=${ns#mc}; owner=${owner%%-*}
        [ -d "/proc/$owner" ] && grep -q cluster.sh "/proc/$owner/cmdline" 2>/dev/null && continue
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null && say "removed namespace $ns of a cluster whose cluster.sh ($owner) is gone"
    done
    for d in "$base"/mana-cluster.*; do
        [ -f "$d/owner" ] || continue
        owner=$(cat "$d/owner")
        [ -d "/proc/$owner" ] && grep -q cluster.sh "/proc/$owner/cmdline" 2>/dev/null && continue
        # a pid of the list only while it is still that cluster's daemon (its command line names the
        # folder): a pid reused by another process is left alone
        while read -r p; do
            [ -n "$p" ] && tr '\0' ' ' 2>/dev/null < "/proc/$p/cmdline" | grep -qF "$d/" && kill -KILL "$p" 2>/dev/null
        done < "$d/pids"
        # the nodes' holders (`sleep`, their command line names no folder) and whatever still runs in their
        # network namespaces: the namespaces' names are gone with the mount namespace of the cluster.sh that
        # made them, so `ip netns pids` above found nothing; a holder is known by its pid file, its command
        # and a network namespace other than this one's
        local h net me
        me=$(readlink /proc/self/ns/net)
        for h in "$d"/nodes/*/holder.pid; do
            [ -f "$h" ] || continue
            p=$(cat "$h")
            [ "$(tr '\0' ' ' 2>/dev/null < "/proc/$p/cmdline")" = "sleep 2147483647 " ] || continue
            net=$(readlink "/proc/$p/ns/net" 2>/dev/null) && [ -n "$net" ] && [ "$net" != "$me" ] || continue
            for q in /proc/[0-9]*; do
                [ "$(readlink "$q/ns/net" 2>/dev/null)" = "$net" ] && kill -KILL "${q#/proc/}" 2>/dev/null
            done
        done
        rm -rf -- "$d" && say "removed $d of a cluster whose cluster.sh ($owner) is gone"
    done
    # what the holders' namespaces no longer lead to (a node whose holder died first, a teardown cut short
    # between its kills, a child forked while its parent was being killed), found by the mark of a folder
    # that is gone: those just removed, and any removed before their processes died
    kill_marked --orphans
}
reap_stale

D=$(mktemp -d "$base/mana-cluster.XXXXXX") || { say "cannot make a folder under $base"; exit 1; }
echo $$ > "$D/owner"
chmod 0755 "$D"
tag=mc$$                       # namespace names: unique per cluster, so clusters never meet
head_ns=$tag-head
pids_file=$D/pids              # the daemons and namespace holders this script started
: > "$pids_file"
made_ns=()

# ---- teardown: always (trap), in reverse order; only what this script made ---------------------
teardown() {
    local rc=$? n p round left
    trap - EXIT
    # a second signal (a runner's SIGTERM after the first, Ctrl-C twice) must not cut the teardown short:
    # what it had not yet killed would live on with nothing left to find it but its mark
    trap '' INT TERM HUP
    [ "$(type -t slurm_stop)" = function ] && slurm_stop
    # every process still in a node's or the head's network namespace is ours (started there by us);
    # repeated while some are left, as node_kill does
    for round in 1 2 3 4 5 6 7 8 9 10; do
        left=
        for n in "${made_ns[@]}"; do
            for p in $(ip netns pids "$n" 2>/dev/null); do kill -KILL "$p" 2>/dev/null && left=1; done
        done
        [ -z "$left" ] && break
        sleep 0.1
    done
    while read -r p; do [ -n "$p" ] && kill -KILL "$p" 2>/dev/null; done < "$pids_file"
    kill_marked "$D"
    for n in "${made_ns[@]}"; do ip netns del "$n" 2>/dev/null; done
    if [ -n "$keep" ]; then say "kept $D"; else rm -rf -- "$D"; fi
    exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

fail() { say "FAIL: $*"; exit 1; }

mkdir -p "$D/bin" "$D/shared" "$D/home" "$D/nodes" || fail "cannot populate $D"
chmod 0700 "$D/home" "$D/shared"

# ---- network: the head holds the bridge; each node a veth on it --------------------------------
addr_of() { case $1 in head) echo 10.77.0.1;; node*) echo "10.77.0.$((10 + ${1#node}))";; esac; }
ip netns add "$head_ns" || fail "cannot create network namespace $head_ns"
made_ns+=("$head_ns")
ip -n "$head_ns" link set lo up || fail "loopback of the head"
ip -n "$head_ns" link add br0 type bridge || fail "cannot create the bridge"
ip -n "$head_ns" addr add 10.77.0.1/24 dev br0 || fail "address of the bridge"
ip -n "$head_ns" link set br0 up || fail "bridge up"
names="node$(seq -s ' node' 1 "$nodes")"
for n in $names; do
    ns=$tag-$n
    ip netns add "$ns" || fail "cannot create network namespace $ns"
    made_ns+=("$ns")
    ip -n "$head_ns" link add "v$n" type veth peer name eth0 netns "$ns" || fail "veth of $n"
    ip -n "$head_ns" link set "v$n" master br0 up || fail "veth of $n on the bridge"
    ip -n "$ns" addr add "$(addr_of "$n")/24" dev eth0 || fail "address of $n"
    ip -n "$ns" link set eth0 up || fail "eth0 of $n up"
    ip -n "$ns" link set lo up || fail "loopback of $n"
done

# ---- names: /etc/hosts of this mount namespace (and so of every node) ---------------------------
{
    echo "127.0.0.1 localhost"
    echo "::1 localhost ip6-localhost ip6-loopback"
    echo "$(addr_of head) head"
    for n in $names; do echo "$(addr_of "$n") $n"; done
} > "$D/hosts"
mount --bind "$D/hosts" /etc/hosts || fail "cannot bind $D/hosts over /etc/hosts (private mount namespace)"

# ---- one holder process per namespace set: node = netns + UTS (host name) + mount (/tmp) ----------
# The holder sleeps in the node's namespaces; `on` enters them with nsenter.  Its mount namespace
# is a copy of this one (so /etc/hosts, the shared folders) with the node's scratch over /tmp and its
# own folder over /dev/shm.
start_holder() {   # NAME NETNS
    local name=$1 ns=$2 scratch=$D/nodes/$1/tmp shm=$D/nodes/$1/shm
    mkdir -p "$scratch" "$shm" && chmod 1777 "$scratch" "$shm" || fail "scratch of $name"
    nsenter --net="/run/netns/$ns" -- unshare --uts --mount --propagation private -- \
        sh -c 'hostname "$1" && mount --bind "$2" /tmp && mount --bind "$4" /dev/shm && echo ready > "$3" &&
               exec sleep 2147483647' \
        holder "$name" "$scratch" "$D/nodes/$name/up" "$shm" > "$D/nodes/$name/holder.log" 2>&1 &
    echo $! > "$D/nodes/$name/holder.pid"
    echo $! >> "$pids_file"
    disown $!                  # killed at teardown: no "Killed" line from bash
}
mkdir -p "$D/nodes/head" || fail "head folder"
start_holder head "$head_ns"
for n in $names; do mkdir -p "$D/nodes/$n" || fail "folder of $n"; start_holder "$n" "$tag-$n"; done
for n in head $names; do
    w=200
    until [ -e "$D/nodes/$n/up" ]; do
        kill -0 "$(cat "$D/nodes/$n/holder.pid")" 2>/dev/null || fail "namespaces of $n: $(cat "$D/nodes/$n/holder.log")"
        w=$((w - 1)); [ $w -gt 0 ] || fail "namespaces of $n not ready in 10 s"
        sleep 0.05
    done
done

# ---- the commands COMMAND uses -----------------------------------------------------------------
cat > "$D/bin/on" <<EOF
#!/bin/sh
# on NODE COMMAND...: COMMAND in NODE's namespaces, in the caller's folder (cluster.sh)
[ \$# -ge 2 ] || { echo "usage: on NODE COMMAND..." >&2; exit 2; }
n=\$1; shift
[ -r "$D/nodes/\$n/holder.pid" ] || { echo "on: no node '\$n' in this cluster" >&2; exit 2; }
exec nsenter -t "\$(cat "$D/nodes/\$n/holder.pid")" --net --uts --mount --wd="\$PWD" -- "\$@"
EOF
cat > "$D/bin/node_kill" <<EOF
#!/bin/sh
# node_kill NODE: every process in NODE's network namespace but its holder gets SIGKILL, as at a
# power loss (cluster.sh); repeated until none is left (a dying parent may still fork)
[ \$# = 1 ] && [ -r "$D/nodes/\$1/holder.pid" ] || { echo "usage: node_kill NODE" >&2; exit 2; }
holder=\$(cat "$D/nodes/\$1/holder.pid")
for i in 1 2 3 4 5 6 7 8 9 10; do
    left=
    for p in \$(ip netns pids "$tag-\$1"); do
        [ "\$p" = "\$holder" ] && continue
        kill -KILL "\$p" 2>/dev/null && left=1
    done
    [ -z "\$left" ] && exit 0
    sleep 0.1
done
echo "node_kill: processes of \$1 are still alive" >&2
exit 1
EOF
cat > "$D/bin/rsh_agent" <<'EOF'
#!/bin/sh
# rsh_agent [ssh options] HOST COMMAND...: what an MPI launcher runs to start its daemon on HOST
# (Open MPI plm_rsh_agent, MPICH -launcher-exec): COMMAND on that node, through `on` (cluster.sh).
# ssh-style options before the host are accepted and ignored; COMMAND is one shell line, as with ssh.
while [ $# -gt 0 ]; do
    case $1 in
        -x|-q|-T|-n|-a|-A|-tt|-t) shift;;
        -o|-p|-l|-i) shift 2;;
        *) break;;
    esac
done
[ $# -ge 2 ] || { echo "usage: rsh_agent HOST COMMAND..." >&2; exit 2; }
h=${1%%.*}; shift
exec "$(dirname -- "$0")/on" "$h" /bin/sh -c "$*"
EOF
chmod 0755 "$D/bin/on" "$D/bin/node_kill" "$D/bin/rsh_agent"

export CLUSTER_DIR=$D CLUSTER_NODES=$names HOME=$D/home PATH=$D/bin:$PATH
say "$nodes node(s) up in $D: head $(addr_of head), ${names// /, } from $(addr_of node1)"

if [ -n "$slurm" ]; then
    . "$here/slurm.sh"
    slurm_start || fail "Slurm did not start"
fi

# ---- COMMAND, on the head ------------------------------------------------------------------------
# In the background with this shell waiting: a signal to cluster.sh (a runner's SIGTERM) then tears the
# cluster down at once; bash would hold the trap until a foreground COMMAND ended.  Standard input stays
# COMMAND's (a background command would get /dev/null).
on head "$@" 0<&0 &
wait $!
