/* dup_mt - MPI_THREAD_MULTIPLE: two threads of every rank duplicate two communicators at once, in
 * opposite orders on neighbouring ranks, every iteration, checkpointed while they do.
 *
 * Each iteration the main thread duplicates c1 (MPI_Comm_dup, or MPI_Comm_dup_with_info every other
 * iteration) and a worker thread c2.  On even ranks the main thread goes first and the worker starts once
 * the main thread is about to call; on odd ranks the other way round.  So rank 0's main thread is in
 * c1's dup waiting for rank 1's main thread, while rank 1's worker is in c2's dup waiting for rank 0's
 * worker: a runtime that keeps the rank's lower half for a thread's whole blocking dup deadlocks there
 * (MPICH's threads/comm/ctxdup and comm_dup_deadlock did).  Each thread then uses its new communicator
 * (an MPI_Allreduce of rank-dependent values, hashed), checks its size and rank, and frees it; the
 * iteration ends with the usual stop agreement.
 *
 * Run until told to stop (the runtime's run), each thread naps 10 ms holding its new communicator, before
 * it uses it: natively MPICH needs ~75 ms an iteration for these contended dups with 3 ranks on 2 cores, so
 * an unpaced run under the runtime (which makes them idups) got ~1,700 iterations ahead of what the native
 * reference run could repeat in its time limit; the naps also put many checkpoints where both threads'
 * new communicators, made in different orders on neighbouring ranks, are alive (what the replay must
 * remake).  The reference run (--iters) does not nap: results depend on the iteration count alone.
 * The two threads' pattern is mtpair.h's, shared with ctor_mt and win_mt. */
#include "mtpair.h"

static void dup_and_use(struct mtpair *s, int main_thread, MPI_Comm parent, uint64_t *h, int salt)
{
    MPI_Info info = *(MPI_Info *)s->arg;
    MPI_Comm n;
    mtpair_turn(s, main_thread, 0);
    int rc = (s->it & 1) ? MPI_Comm_dup_with_info(parent, info, &n) /* mana-lint: ignore MPI_Comm_dup_with_info (the hint is never read) */
                         : MPI_Comm_dup(parent, &n);
    if (rc != MPI_SUCCESS) mt_fail("MPI_Comm_dup of communicator %d: %d", salt, rc);
    int sz = -1, rk = -1;
    MPI_Comm_size(n, &sz);
    MPI_Comm_rank(n, &rk);
    if (sz != s->size || rk != s->rank) mt_fail("dup %d: size %d rank %d", salt, sz, rk);
    mtpair_nap(s);
    long v = (long)(s->rank + 1) * (s->it + salt), sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, n);
    long want = (long)s->size * (s->size + 1) / 2 * (s->it + salt);
    if (sum != want) mt_fail("dup %d: sum %ld, not %ld", salt, sum, want);
    *h = mt_hash(*h, &sum, sizeof sum);
    MPI_Comm_free(&n);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init_level(&r, &argc, &argv, MPI_THREAD_MULTIPLE);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    uint64_t h;
    long it = mtpair_run(&r, dup_and_use, &info, &h);
    MPI_Info_free(&info);
    mt_finish(&r, "dup_mt", it, h);
    return 0;
}
