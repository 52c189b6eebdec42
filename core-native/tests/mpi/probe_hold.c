/* probe_hold - a message that a checkpoint's drain buffers while a probe or a receive of rank 0 has
 * already looked in the runtime's buffer and not yet reached the real MPI (probe_hold.sh).
 *
 * Two ranks, three rounds k = 0, 1, 2.  Rank 1 sends one int (tag 10 + k) to rank 0 and waits for its
 * acknowledgement (tag 20 + k).  Rank 0 takes the message by MPI_Probe + MPI_Recv (k = 0), MPI_Mprobe +
 * MPI_Mrecv (k = 1) or MPI_Irecv + MPI_Wait (k = 2), checks it and acknowledges it.  Under the runtime's
 * test hook MANA_TEST_BUFFER_HOLD=1 each of rank 0's three calls, having found nothing buffered, says
 * so and waits until a checkpoint's point-to-point drain has run: the drain receives rank 1's message
 * into the upper half, and the call must find it there (the real MPI never shows it again).  No
 * collective call between the rounds: neither rank is ever behind the other on one, so the drain never
 * waits for rank 0's held thread.
 *
 * Output: rank 0 prints "probe_hold round K ok" per round and "probe_hold done: 3 rounds sum=S". */
#include "pairtest.h"

static void fail(const char *what, int k, int got) { pt_fail("round %d: %s (%d)", k, what, got); }

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "probe_hold", 0);
    /* only rank 0's calls are held (the hook reads the variable at its first call) */
    if (rank != 0) unsetenv("MANA_TEST_BUFFER_HOLD");
    long sum = 0;
    for (int k = 0; k < 3; k++) {
        int v = 1000 + 7 * k, got = -1, ack = k;
        if (rank == 1) {
            MPI_Send(&v, 1, MPI_INT, 0, 10 + k, MPI_COMM_WORLD);
            MPI_Recv(&ack, 1, MPI_INT, 0, 20 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (ack != v) fail("acknowledgement", k, ack);
            continue;
        }
        MPI_Status st;
        if (k == 0) {
            MPI_Probe(1, 10, MPI_COMM_WORLD, &st);
            int n = -1;
            MPI_Get_count(&st, MPI_INT, &n);
            if (n != 1 || st.MPI_SOURCE != 1 || st.MPI_TAG != 10) fail("MPI_Probe's status", k, n);
            MPI_Recv(&got, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (k == 1) {
            MPI_Message m;
            MPI_Mprobe(1, 11, MPI_COMM_WORLD, &m, &st);
            MPI_Mrecv(&got, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
        } else {
            MPI_Request r;
            MPI_Irecv(&got, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, &st);
            if (st.MPI_SOURCE != 1 || st.MPI_TAG != 12) fail("MPI_Wait's status", k, st.MPI_TAG);
        }
        if (got != v) fail("message", k, got);
        sum += got;
        MPI_Send(&got, 1, MPI_INT, 1, 20 + k, MPI_COMM_WORLD);
        pt_out("probe_hold round %d ok\n", k);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) pt_out("probe_hold done: 3 rounds sum=%ld\n", sum);
    MPI_Finalize();
    return 0;
}
