/* made_hold - a checkpoint, kill and restart between a collective constructor's real call and its table
 * entry (made_hold.sh).
 *
 * Two ranks, three rounds: k = 0 MPI_Comm_split (the world, ranks reversed), k = 1 MPI_Cart_create (a
 * periodic ring), k = 2 MPI_Comm_create_group (both ranks).  Under the runtime's test hook
 * MANA_TEST_MADE_HOLD=1 each constructor, once the real MPI has made the communicator, says so and waits
 * until a checkpoint begins; the script then checkpoints, kills and restarts the job, once per round.
 * After each restart the new communicator must work: an MPI_Allreduce over it, its rank and size, and
 * (k = 1) an MPI_Sendrecv to its ring neighbours.  A checkpoint that fell between the real call and the
 * table entry left the program a communicator the restart never made again, on a handle of the old lower
 * half.
 *
 * Output: rank 0 prints "made_hold round K ok" per round and "made_hold done: 3 rounds sum=S". */
#include "pairtest.h"

static void fail(const char *what, int k, int got) { pt_fail("round %d: %s (%d)", k, what, got); }

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "made_hold", 0), size = 2;
    long sum = 0;
    for (int k = 0; k < 3; k++) {
        MPI_Comm c = MPI_COMM_NULL;
        int want_rank = rank;
        if (k == 0) {
            MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c);
            want_rank = size - 1 - rank;
        } else if (k == 1) {
            int dims[1] = { size }, periods[1] = { 1 };
            MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c);
        } else {
            MPI_Group wg;
            MPI_Comm_group(MPI_COMM_WORLD, &wg);
            MPI_Comm_create_group(MPI_COMM_WORLD, wg, 77, &c);
            MPI_Group_free(&wg);
        }
        if (c == MPI_COMM_NULL) fail("no communicator", k, 0);
        int r = -1, n = -1;
        MPI_Comm_rank(c, &r);
        MPI_Comm_size(c, &n);
        if (r != want_rank) fail("rank in the new communicator", k, r);
        if (n != size) fail("size of the new communicator", k, n);
        int v = 100 * (k + 1) + r, total = -1;
        MPI_Allreduce(&v, &total, 1, MPI_INT, MPI_SUM, c);
        if (total != 2 * 100 * (k + 1) + 1) fail("MPI_Allreduce over it", k, total);
        if (k == 1) {
            int src, dst, got = -1;
            MPI_Cart_shift(c, 0, 1, &src, &dst);
            MPI_Sendrecv(&r, 1, MPI_INT, dst, 5, &got, 1, MPI_INT, src, 5, c, MPI_STATUS_IGNORE);
            if (got != src) fail("MPI_Sendrecv on the ring", k, got);
        }
        sum += total;
        MPI_Comm_free(&c);
        if (rank == 0) pt_out("made_hold round %d ok\n", k);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) pt_out("made_hold done: 3 rounds sum=%ld\n", sum);
    MPI_Finalize();
    return 0;
}
