/* nbc_wait - a rank that runs on through a wait for nonblocking collectives while the other members,
 * ahead of it, wait at the gate of their next one (MPICH's coll/nonblocking3, 3 or more ranks).
 *
 * Every iteration, on three duplicates A, B, C of the world: every rank starts an MPI_Iallgather on A.
 * Rank 0 then naps 2 ms, starts an MPI_Ibarrier on B and waits for both (MPI_Waitall), then starts an
 * MPI_Iallreduce on C and waits for it.  The other ranks start the barrier on B at once, nap 2 ms, start the one on C, and
 * wait for all three.  A checkpoint nearly always comes during the naps: rank 0 is one call behind on B and runs on
 * to it, into its MPI_Waitall, while the others, their collectives on A and B pending, wait at C's gate.
 * Neither MPI moves a nonblocking collective without its members' progress engines turning, and nothing
 * turned theirs: the checkpoint never completed.  The drain now turns the engines of ranks that are not
 * behind while another stays behind (drain_rounds.c); ckpt_meets.sh asks MANA_DEBUG for proof.
 * Every value gathered and every sum is checked and goes into the checksum. */
#include "mpitest.h"

static void nap(void)
{
    struct timespec ts = { 0, 2000000 };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    if (r.size < 3) mt_fail("needs 3 or more ranks, not %d", r.size);
    MPI_Comm c[4];
    for (int k = 0; k < 4; k++) MPI_Comm_dup(MPI_COMM_WORLD, &c[k]);
    uint64_t h = MT_HASH0;
    long it = 0;
    long *all = malloc(sizeof *all * (size_t)r.size);
    if (!all) mt_fail("out of memory");
    do {
        it++;
        /* A: MPI_Iallgather; B: MPI_Ibarrier, whose second round (dissemination) a rank sends only once its
         * engine has turned after the first round's message from the rank before it; C, D: MPI_Iallreduce */
        long in[4], sum[4] = { 0, 0, 0, 0 };
        MPI_Request q[4];
        MPI_Status st[4];
        for (int k = 0; k < 4; k++) in[k] = (r.rank + 1) * (it + k);
        MPI_Iallgather(&in[0], 1, MPI_LONG, all, 1, MPI_LONG, c[0], &q[0]);
        if (r.rank == 0) {
            nap();
            MPI_Ibarrier(c[1], &q[1]);
            MPI_Waitall(2, q, st);
            MPI_Iallreduce(&in[2], &sum[2], 1, MPI_LONG, MPI_SUM, c[2], &q[2]);
            MPI_Iallreduce(&in[3], &sum[3], 1, MPI_LONG, MPI_SUM, c[3], &q[3]);
            MPI_Waitall(2, q + 2, st + 2);
        } else {
            MPI_Ibarrier(c[1], &q[1]);
            MPI_Iallreduce(&in[2], &sum[2], 1, MPI_LONG, MPI_SUM, c[2], &q[2]);
            nap();
            MPI_Iallreduce(&in[3], &sum[3], 1, MPI_LONG, MPI_SUM, c[3], &q[3]);
            MPI_Waitall(4, q, st);
        }
        for (int i = 0; i < r.size; i++)
            if (all[i] != (i + 1) * it) mt_fail("iteration %ld: gathered %ld from rank %d, want %ld", it, all[i], i, (i + 1) * it);
        long ranks = (long)r.size * (r.size + 1) / 2;
        for (int k = 2; k < 4; k++)
            if (sum[k] != ranks * (it + k)) mt_fail("iteration %ld: sum on %c is %ld, want %ld", it, 'A' + k, sum[k], ranks * (it + k));
        h = mt_hash(h, all, sizeof *all * (size_t)r.size);
        h = mt_hash(h, sum + 2, 2 * sizeof *sum);
    } while (!mt_done(&r, it));
    free(all);
    for (int k = 0; k < 4; k++) MPI_Comm_free(&c[k]);
    mt_finish(&r, "nbc_wait", it, h);
    return 0;
}
