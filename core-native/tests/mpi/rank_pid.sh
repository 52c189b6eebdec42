#!/bin/bash
# rank_pid.sh P RANK CMD... - run CMD; in MPI rank RANK, as a process whose pid is P.
# It sets the kernel's last pid to P-1 (/proc/sys/kernel/ns_last_pid, root only) and forks a child
# that runs CMD only if it got P.  The other ranks start at the same moment and fork too, so one of
# their processes may take P first: that child then exits at once and this tries again, 200 times at
# most.  When P stays taken or the write is refused, CMD runs under another pid (cr_mpi.sh --rank-pid
# checks the pid it got and launches again).  Signals are passed on to the child.
p=$1 r=$2
shift 2
me=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-}}}
[ "$me" = "$r" ] || exec "$@"
child=
for _ in $(seq 200); do
    (echo $((p - 1)) > /proc/sys/kernel/ns_last_pid) 2>/dev/null || break
    sh -c '[ "$$" = "$0" ] || exit 75; exec "$@"' "$p" "$@" &   # runs CMD only as pid P
    child=$!
    [ "$child" = "$p" ] && break
    wait "$child"
    child=
done
if [ -z "$child" ]; then
    "$@" &
    child=$!
fi
trap 'kill -TERM $child 2>/dev/null' TERM INT HUP
while :; do
    wait $child
    rc=$?
    kill -0 $child 2>/dev/null || exit $rc     # the child ended (not just a signal to this shell)
done
