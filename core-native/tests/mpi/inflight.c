/* inflight - thousands of small messages in flight at a checkpoint (inflight.sh).
 *
 * Two ranks.  Rank 1 sends N (argv[2], 2000 by default) one-int messages to rank 0 with MPI_Isend, values
 * 0..N-1 in order, completes them (eager: rank 0 has not posted a receive) and waits in a receive for rank
 * 0's answer.  Rank 0 says "ready" and waits outside MPI until the file named by argv[1] exists: the script
 * checkpoints, kills and restarts the job in between, so the checkpoint's point-to-point drain must take
 * all N messages from the transport into the runtime's buffer, a few dozen per round (a drain capped at 14
 * rounds refused the checkpoint: MPICH's threads/pt2pt/mt_mprobe_isendrecv).  Then rank 0 receives them in
 * order, checks each value and sends their sum to rank 1.
 *
 * Output: rank 0 prints "ready", then "inflight done: N messages sum=S". */
#include "pairtest.h"

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "inflight", 1);
    int n = argc > 2 ? atoi(argv[2]) : 2000;
    long sum = 0;
    if (rank == 1) {
        int *v = malloc((size_t)n * sizeof *v);
        MPI_Request *r = malloc((size_t)n * sizeof *r);
        MPI_Status *st = malloc((size_t)n * sizeof *st);
        if (!v || !r || !st) pt_fail("no memory for %d messages", n);
        for (int i = 0; i < n; i++) {
            v[i] = i;
            MPI_Isend(&v[i], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &r[i]);
        }
        MPI_Waitall(n, r, st);
        MPI_Recv(&sum, 1, MPI_LONG, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (sum != (long)n * (n - 1) / 2) pt_fail("rank 0's sum %ld", sum);
        free(v);
        free(r);
        free(st);
    } else {
        /* the first message is here: the others are on their way or in the transport */
        MPI_Status st;
        MPI_Probe(1, 7, MPI_COMM_WORLD, &st);
        pt_out("ready\n");
        pt_await_file(argv[1]);
        for (int i = 0; i < n; i++) {
            int x = -1;
            MPI_Recv(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (x != i) pt_fail("message %d holds %d", i, x);
            sum += x;
        }
        MPI_Send(&sum, 1, MPI_LONG, 1, 8, MPI_COMM_WORLD);
        pt_out("inflight done: %d messages sum=%ld\n", n, sum);
    }
    MPI_Finalize();
    return 0;
}
