/* ctor_mt - MPI_THREAD_MULTIPLE: two threads of every rank make communicators from two parents at once,
 * with the constructors that have no nonblocking twin (MPI_Comm_split, MPI_Comm_create,
 * MPI_Cart_create, MPI_Comm_create_group, MPI_Intercomm_create then MPI_Intercomm_merge, in turn), in
 * opposite orders on neighbouring ranks, every iteration, checkpointed
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
 * size, with the rank checked below (split reverses the order).  *inter: an inter-communicator made on the
 * way (kind 4), kept by the caller until the new one has been used, so checkpoints find it alive too. */
static MPI_Comm make(struct mtpair *s, MPI_Comm parent, MPI_Comm half, int *want_rank, MPI_Comm *inter)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc, kind = (int)(s->it % 5);
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
    } else if (kind == 4) {
        /* an inter-communicator between the parent's lower and upper halves (made before the threads'
         * turns: leaders, each half's first; the peer, the parent), merged back, lower half first: the same
         * ranks as the parent.  MPI_Intercomm_create's members vote for its turn across both groups once the
         * leaders have exchanged them, the merge's among both groups of the inter-communicator (ctor_turn.c);
         * without them the two threads' creations deadlocked as the constructors above did */
        int low = s->rank < s->size / 2;
        rc = MPI_Intercomm_create(half, 0, parent, low ? s->size / 2 : 0, 11, inter);
        if (rc == MPI_SUCCESS) rc = MPI_Intercomm_merge(*inter, !low, &n);
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
    MPI_Comm inter = MPI_COMM_NULL, half = MPI_COMM_NULL;
    if (s->it % 5 == 4 && MPI_Comm_split(parent, s->rank < s->size / 2, s->rank, &half) != MPI_SUCCESS)
        mt_fail("split into halves on %d", salt);
    mtpair_turn(s, main_thread, 0);
    MPI_Comm n = make(s, parent, half, &want, &inter);
    if (half != MPI_COMM_NULL) MPI_Comm_free(&half);
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
    if (inter != MPI_COMM_NULL) {
        int rsz = -1;
        MPI_Comm_remote_size(inter, &rsz);
        if (rsz != (s->rank < s->size / 2 ? s->size - s->size / 2 : s->size / 2))
            mt_fail("inter-communicator on %d: remote size %d", salt, rsz);
        MPI_Comm_free(&inter);
    }
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
