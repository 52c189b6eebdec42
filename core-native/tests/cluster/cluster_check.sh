#!/usr/bin/env bash
# cluster_check.sh - the namespace cluster harness itself (cluster.sh), without Slurm: host names,
# addresses and name resolution on every node, traffic from node to node over the bridge, each node's
# own /tmp, the shared folders, node_kill, the command's exit status passed on, and after a command
# that fails, no namespace, process, mount or folder left behind.  Exit 0 = PASS, 77 = not root.
set -u
here=$(cd "$(dirname -- "$(readlink -f -- "$0")")" && pwd -P)
out=$(mktemp -d /var/tmp/mana_cluster_check.XXXXXX) || exit 1
trap 'rm -rf -- "$out"' EXIT
fail() { echo "cluster_check: FAIL: $*"; exit 1; }

# The checks run inside the cluster; the last command fails on purpose (exit 3).
cat > "$out/inside.sh" <<'INNER'
set -u
o=$1
echo "$CLUSTER_DIR" > "$o/dir"
ip netns identify $$ > "$o/head_ns" 2>/dev/null   # the head's namespace name (for the leak check)
[ "$(hostname)" = head ] || { echo "head's host name is $(hostname)"; exit 1; }
for n in $CLUSTER_NODES; do
    [ "$(on "$n" hostname)" = "$n" ] || { echo "host name of $n"; exit 1; }
    a=$(getent hosts "$n" | awk '{ print $1 }')
    on "$n" ip -4 -o addr show dev eth0 | grep -q " $a/24 " || { echo "$n has not its address $a"; exit 1; }
    # nothing but loopback and the bridge: one default-less route table
    on "$n" ip route | grep -q '^default' && { echo "$n has a default route"; exit 1; }
done
# node1 listens, node2 connects to it by name over the bridge
on node1 python3 -c '
import socket, sys
s = socket.socket(); s.bind(("0.0.0.0", 5555)); s.listen(1)
open(sys.argv[1], "w").write("listening")
c, a = s.accept(); print(c.recv(16).decode(), a[0])' "$o/listening" > "$o/got" &
l=$!
n=200; until [ -s "$o/listening" ]; do n=$((n - 1)); [ $n -gt 0 ] || { echo "no listener"; exit 1; }; sleep 0.05; done
on node2 python3 -c 'import socket; socket.create_connection(("node1", 5555), 5).send(b"hello")' || { echo "node2 cannot reach node1"; exit 1; }
wait $l
[ "$(cat "$o/got")" = "hello 10.77.0.12" ] || { echo "node1 got '$(cat "$o/got")'"; exit 1; }
# /tmp is each node's own; the shared folder is everyone's
on node1 sh -c 'echo one > /tmp/mine' && on node2 sh -c '[ ! -e /tmp/mine ]' || { echo "/tmp is not node-local"; exit 1; }
on node2 sh -c "echo two > $CLUSTER_DIR/shared/f" && [ "$(on node1 cat "$CLUSTER_DIR/shared/f")" = two ] || { echo "shared folder"; exit 1; }
# node_kill: a process of node1 dies, node2's lives
on node1 sleep 1000 & s1=$!
on node2 sleep 1000 & s2=$!
tag=$(sed 's/-head$//' "$o/head_ns")
# each node's namespace holds its holder and the sleeper
n=200; until [ "$(ip netns pids "$tag-node1" | wc -l)" = 2 ] && [ "$(ip netns pids "$tag-node2" | wc -l)" = 2 ]; do
    n=$((n - 1)); [ $n -gt 0 ] || { echo "sleepers did not start"; exit 1; }; sleep 0.05; done
node_kill node1 || { echo "node_kill failed"; exit 1; }
wait $s1 2>/dev/null; [ $? = 137 ] || { echo "node1's process did not die of SIGKILL"; exit 1; }
kill -0 $s2 || { echo "node2's process died too"; exit 1; }
kill $s2
echo inside-ok > "$o/ok"
exit 3
INNER
hosts_mounts=$(grep -c " /etc/hosts " /proc/self/mountinfo)
# A cluster whose cluster.sh dies by SIGKILL (a runner's time-out) cannot tear itself down: the next
# cluster.sh removes what it left (namespaces, processes, folder).  Node2 of it is left as a teardown cut
# short between its kills leaves a node: its holder dead, a job's process still in its namespace (found
# by neither the namespace's name nor the holder: by the process's CLUSTER_DIR).
"$here/cluster.sh" --nodes 2 -- sh -c '
    echo $$ > "$1/stale_cmd"
    on node2 sleep 1002 &
    echo $! > "$1/stale_job"
    until [ "$(ip netns pids "$(ip netns identify $$ | sed "s/-head\$//")-node2" | wc -l)" = 2 ]; do sleep 0.05; done
    kill -KILL "$(cat "$CLUSTER_DIR/nodes/node2/holder.pid")"
    echo "$CLUSTER_DIR" > "$1/stale"; exec sleep 1000' sh "$out" > "$out/stale.log" 2>&1 &
n=600; until [ -s "$out/stale" ]; do n=$((n - 1)); [ $n -gt 0 ] || fail "the cluster to be killed did not start: $(cat "$out/stale.log")"; sleep 0.05; done
stale_dir=$(cat "$out/stale")
stale_owner=$(cat "$stale_dir/owner")
stale_job=$(cat "$out/stale_job")
# its command, its nodes' holders, the job left on node2
stale_procs="$(cat "$out/stale_cmd") $(cat "$stale_dir"/nodes/*/holder.pid) $stale_job"
[ "$(tr '\0' ' ' < "/proc/$stale_job/cmdline")" = "sleep 1002 " ] || fail "the stale cluster's job is not running"
kill -KILL "$stale_owner"
ip netns list | grep -q "^mc$stale_owner-node1" || fail "the killed cluster's namespaces are not there to be removed"

"$here/cluster.sh" --nodes 2 -- bash "$out/inside.sh" "$out" > "$out/log" 2>&1
rc=$?
[ $rc = 77 ] && { cat "$out/log"; exit 77; }
cat "$out/log"
[ -s "$out/ok" ] || fail "checks inside the cluster failed (above)"
[ $rc = 3 ] || fail "exit status $rc, not the command's 3"
d=$(cat "$out/dir")
[ ! -e "$d" ] || fail "$d left behind"
tag=$(sed 's/-head$//' "$out/head_ns")
[ -n "$tag" ] || fail "the head's namespace has no name"
ip netns list | grep -q "^$tag-" && fail "namespaces left behind: $(ip netns list | grep "^$tag-")"
[ "$(grep -c " /etc/hosts " /proc/self/mountinfo)" = "$hosts_mounts" ] || fail "a mount over /etc/hosts is left here"
pgrep -f "$d" > /dev/null && fail "processes of $d left behind"
ip netns list | grep -q "^mc$stale_owner-" && fail "the SIGKILLed cluster's namespaces were not removed"
[ ! -e "$stale_dir" ] || fail "the SIGKILLed cluster's folder $stale_dir was not removed"
pgrep -f "$stale_dir" > /dev/null && fail "processes of the SIGKILLed cluster left behind"
for p in $stale_procs; do
    c=$(tr '\0' ' ' 2>/dev/null < "/proc/$p/cmdline")
    case $c in "sleep 1000 "|"sleep 1002 "|"sleep 2147483647 ") fail "process $p ($c) of the SIGKILLed cluster left behind";; esac
done
echo "cluster_check: PASS"
