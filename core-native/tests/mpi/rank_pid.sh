#!/bin/bash
# rank_pid.sh P RANK CMD... - run CMD; in MPI rank RANK, as a child whose pid is P.
# Just before its one fork it sets the kernel's last pid to P-1 (/proc/sys/kernel/ns_last_pid, root
# only), so the child gets P unless another process forks in between or P is taken (cr_mpi.sh
# --rank-pid checks the pid it got and launches again).  Signals are passed on to the child.
p=$1 r=$2
shift 2
me=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-}}}
[ "$me" = "$r" ] || exec "$@"
(echo $((p - 1)) > /proc/sys/kernel/ns_last_pid) 2>/dev/null   # if refused, cr_mpi.sh sees another pid
"$@" &
child=$!
trap 'kill -TERM $child 2>/dev/null' TERM INT HUP
while :; do
    wait $child
    rc=$?
    kill -0 $child 2>/dev/null || exit $rc     # the child ended (not just a signal to this shell)
done
