/* comm_free - communicators freed while another member still uses them, across checkpoints
 * (at least 2 ranks; with 3 or more, ranks outside a pattern's pair free too; src = rank 0, dst = the
 * last rank).  MPI_Comm_free does not synchronize; the
 * runtime's used to (a barrier inside it), and programs that free before a partner is done hung
 * (MPICH's comm/cmfree, cmfree2).  Every iteration:
 *   1. dst posts a receive on a dup and frees the dup at once; src sends on its own copy only after a
 *      handshake on MPI_COMM_WORLD, then frees it (cmfree);
 *   2. rank 1 posts a receive on a dup, frees it and enters a world barrier; rank 0 leaves the barrier,
 *      then MPI_Ssends on its copy and frees it (cmfree2);
 *   3. 16 dups, each used by an MPI_Allreduce and freed (the runtime forgets these between
 *      checkpoints, once every member freed them);
 *   4. a split where rank 0 gets MPI_COMM_NULL (MPI_UNDEFINED): the others broadcast on it and free it;
 *   5. a split whose root frees it first, right after its MPI_Bcast, while the others may still be in
 *      theirs;
 *   6. a persistent send/receive pair made at start on a dup that was freed at once, started again.
 * A checkpoint can land anywhere among these: with a receive pending on a freed communicator, with
 * members of one split call freed and not, with a member behind on a freed communicator's collectives.
 * At the end, a dup that rank 0 never frees and the others do, before MPI_Finalize.
 * With --dups-only (comm_free.sh) an iteration is pattern 3 alone.  Rank 0 prints "reached K" at every
 * 25th iteration.  (Three MPICH ranks on a 2-core machine busy-poll each other's CPU away: 50 iterations
 * of pattern 3 take 14 s natively, against 0.2 s with two, so comm_free.sh and MPICH's case run two.) */
#include "mpitest.h"

#define NDUP 16
#define N 64

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    const int dups_only = r.argc > 0 && strcmp(r.argv[0], "--dups-only") == 0;
    if (r.size < 2) mt_fail("comm_free needs at least 2 ranks");
    const int src = 0, dst = r.size - 1;
    MPI_Comm pc;
    MPI_Comm_dup(MPI_COMM_WORLD, &pc);
    MPI_Request preq = MPI_REQUEST_NULL;
    int pval = 0;
    if (r.rank == src) MPI_Send_init(&pval, 1, MPI_INT, dst, 7, pc, &preq);
    else if (r.rank == dst) MPI_Recv_init(&pval, 1, MPI_INT, src, 7, pc, &preq);
    MPI_Comm_free(&pc);
    if (pc != MPI_COMM_NULL) mt_fail("MPI_Comm_free left the handle");
    uint64_t h = MT_HASH0;
    long it = 0;
    int buf[N];
    do {
        it++;
        if (!dups_only) {
            /* 1 */
            MPI_Comm d;
            MPI_Comm_dup(MPI_COMM_WORLD, &d);
            MPI_Request rq = MPI_REQUEST_NULL;
            if (r.rank == dst) {
                for (int i = 0; i < N; i++) buf[i] = -1;
                MPI_Irecv(buf, N, MPI_INT, src, 1, d, &rq);
                MPI_Comm_free(&d);
            }
            if (r.rank == src || r.rank == dst)
                MPI_Sendrecv(NULL, 0, MPI_INT, r.rank == src ? dst : src, 2, NULL, 0, MPI_INT, r.rank == src ? dst : src, 2,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (r.rank == src) {
                for (int i = 0; i < N; i++) buf[i] = (int)(it * 1000 + i);
                MPI_Send(buf, N, MPI_INT, dst, 1, d);
            }
            if (r.rank != dst) MPI_Comm_free(&d);
            if (r.rank == dst) {
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                for (int i = 0; i < N; i++)
                    if (buf[i] != (int)(it * 1000 + i)) mt_fail("iteration %ld: 1: buf[%d] = %d", it, i, buf[i]);
                h = mt_hash(h, buf, sizeof buf);
            }
            /* 2 */
            MPI_Comm d2;
            MPI_Comm_dup(MPI_COMM_WORLD, &d2);
            int v = -1;
            if (r.rank == 0) {
                MPI_Barrier(MPI_COMM_WORLD);
                v = (int)it;
                MPI_Ssend(&v, 1, MPI_INT, 1, 0, d2);
                MPI_Comm_free(&d2);
            } else if (r.rank == 1) {
                MPI_Irecv(&v, 1, MPI_INT, 0, 0, d2, &rq);
                MPI_Comm_free(&d2);
                MPI_Barrier(MPI_COMM_WORLD);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                if (v != (int)it) mt_fail("iteration %ld: 2: got %d", it, v);
            } else {
                MPI_Comm_free(&d2);
                MPI_Barrier(MPI_COMM_WORLD);
            }
            /* 3 */
        }
        for (int k = 0; k < NDUP; k++) {
            MPI_Comm dk;
            MPI_Comm_dup(MPI_COMM_WORLD, &dk);
            long in = it + k + r.rank, out = 0;
            MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, dk);
            if (out != (it + k) * r.size + (long)r.size * (r.size - 1) / 2) mt_fail("iteration %ld: 3: sum %ld", it, out);
            MPI_Comm_free(&dk);
        }
        if (!dups_only) {
            /* 4 */
            MPI_Comm sp;
            MPI_Comm_split(MPI_COMM_WORLD, r.rank == 0 ? MPI_UNDEFINED : 0, r.rank, &sp);
            if ((sp == MPI_COMM_NULL) != (r.rank == 0)) mt_fail("iteration %ld: 4: split", it);
            if (sp != MPI_COMM_NULL) {
                long b = r.rank == 1 ? it * 7 : 0;
                MPI_Bcast(&b, 1, MPI_LONG, 0, sp);
                if (b != it * 7) mt_fail("iteration %ld: 4: bcast %ld", it, b);
                h = mt_hash(h, &b, sizeof b);
                MPI_Comm_free(&sp);
            }
            /* 5 */
            MPI_Comm s5;
            MPI_Comm_split(MPI_COMM_WORLD, 0, r.size - r.rank, &s5);   /* reversed: world's last rank is 0 */
            long b5 = r.rank == dst ? it * 11 : 0;
            MPI_Bcast(&b5, 1, MPI_LONG, 0, s5);
            MPI_Comm_free(&s5);
            if (b5 != it * 11) mt_fail("iteration %ld: 5: bcast %ld", it, b5);
            /* 6 */
            if (preq != MPI_REQUEST_NULL) {
                if (r.rank == src) pval = (int)(it * 3 + 1);
                MPI_Start(&preq);
                MPI_Wait(&preq, MPI_STATUS_IGNORE);
                if (r.rank == dst && pval != (int)(it * 3 + 1)) mt_fail("iteration %ld: 6: got %d", it, pval);
            }
        }
        h = mt_hash(h, &it, sizeof it);
        /* the marks comm_free.sh waits for before each checkpoint */
        if (r.rank == 0 && it % 25 == 0) mt_out("reached %ld\n", it);
    } while (!mt_done(&r, it));
    if (preq != MPI_REQUEST_NULL) MPI_Request_free(&preq);
    /* a dup that rank 0 never frees while the others do (MPI does not ask for it): MPI_Finalize must
     * not wait for rank 0's free (the runtime completes its own barriers there) */
    MPI_Comm leak;
    MPI_Comm_dup(MPI_COMM_WORLD, &leak);
    if (r.rank != 0) MPI_Comm_free(&leak);
    mt_finish(&r, "comm_free", it, h);
    return 0;
}
