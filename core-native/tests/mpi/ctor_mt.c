/* ctor_mt - MPI_THREAD_MULTIPLE: two threads of every rank make communicators from two parents at once,
 * with the constructors that have no nonblocking twin (MPI_Comm_split, MPI_Comm_create,
 * MPI_Cart_create, MPI_Comm_create_group, in turn), in opposite orders on neighbouring ranks, every iteration, checkpointed
 * while they do.
 *
 * The pattern of dup_mt, for the other constructors: rank 0's main thread is in c1's constructor waiting
 * for rank 1's main thread while rank 1's worker is in c2's, waiting for rank 0's worker.  The real
 * constructor is blocking and the lower MPI runs one thread at a time, so a runtime that lets a thread
 * into the real call before every member of the parent is ready for it (and for nothing else) deadlocks
 * there (MPICH's threads/comm/comm_create_threads, comm_split_threads, comm_create_group_threads did).
 * Each thread checks the new communicator's size and rank, uses it (an MPI_Allreduce of rank-dependent
 * values, hashed) and frees it; the iteration ends with the usual stop agreement.  Run until told to stop, each thread naps 10 ms
 * holding its new communicator, so that checkpoints find both alive (made in different orders on
 * neighbouring ranks: what the replay must make again); the reference run (--iters) does not nap.
 * The two threads' pattern is mtpair.h's. */
#include "mtpair.h"

/* This iteration's constructor on parent: every member ends up in the new communicator, of the parent's
 * size, with the rank checked below (split reverses the order). */
static MPI_Comm make(struct mtpair *s, MPI_Comm parent, int *want_rank)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc, kind = (int)(s->it % 4);
    *want_rank = s->rank;
    if (kind == 0) {
        rc = MPI_Comm_split(parent, 7, s->size - s->rank, &n);
        *want_rank = s->size - 1 - s->rank;
    } else if (kind == 1) {
        MPI_Group g;
        MPI_Comm_group(parent, &g);
        rc = MPI_Comm_create(parent, g, &n);
        MPI_Group_free(&g);
    } else if (kind == 2) {
        int dims[1] = { s->size }, periods[1] = { 1 };
        rc = MPI_Cart_create(parent, 1, dims, periods, 0, &n);
    } else {
        /* collective over its group alone (here every member, in reverse order): no collective of the
         * parent to vote on, the members vote by messages (ctor_turn.c) */
        MPI_Group g, rev;
        int order[64];
        for (int i = 0; i < s->size && i < 64; i++) order[i] = s->size - 1 - i;
        MPI_Comm_group(parent, &g);
        MPI_Group_incl(g, s->size, order, &rev);
        rc = MPI_Comm_create_group(parent, rev, 5, &n);
        MPI_Group_free(&rev);
        MPI_Group_free(&g);
        *want_rank = s->size - 1 - s->rank;
    }
    if (rc != MPI_SUCCESS || n == MPI_COMM_NULL) mt_fail("constructor %d: rc %d", kind, rc);
    return n;
}

static void make_and_use(struct mtpair *s, int main_thread, MPI_Comm parent, uint64_t *h, int salt)
{
    int want = -1, sz = -1, rk = -1;
    mtpair_turn(s, main_thread, 0);
    MPI_Comm n = make(s, parent, &want);
    MPI_Comm_size(n, &sz);
    MPI_Comm_rank(n, &rk);
    if (sz != s->size || rk != want) mt_fail("constructor on %d: size %d rank %d (want %d)", salt, sz, rk, want);
    mtpair_nap(s);
    long v = (long)(rk + 1) * (s->it + salt), sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, n);
    long expect = (long)s->size * (s->size + 1) / 2 * (s->it + salt);
    if (sum != expect) mt_fail("constructor on %d: sum %ld, not %ld", salt, sum, expect);
    *h = mt_hash(*h, &sum, sizeof sum);
    MPI_Comm_free(&n);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init_level(&r, &argc, &argv, MPI_THREAD_MULTIPLE);
    uint64_t h;
    long it = mtpair_run(&r, make_and_use, NULL, &h);
    mt_finish(&r, "ctor_mt", it, h);
    return 0;
}
