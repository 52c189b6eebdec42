/* rma_pair - one-sided calls whose results depend on how the MPI library made the window, on windows of
 * MPI_Win_allocate and MPI_Win_allocate_shared, in one MPI_Win_lock_all epoch across every checkpoint:
 *  - each rank replaces (MPI_Accumulate, MPI_REPLACE) its right neighbour's array of MPI_SHORT_INT
 *    pairs (a short and an int: a type with a hole) and reads it back with MPI_Get_accumulate
 *    (MPI_NO_OP), then takes MPI_MAXLOC of the neighbour's first pair;
 *  - every rank takes tickets from one counter on rank 0 (MPI_Fetch_and_op, MPI_SUM), all at once.
 * Open MPI 4.1 gives wrong pairs and wrong tickets on windows of MPI_Win_create (osc/rdma through its
 * BTL), right ones on its own allocated memory; the runtime once made every allocated window with
 * MPI_Win_create (MPICH's rma/atomic_get_short_int and atomic_rmw_gacc failed only under it).
 *  - a shared-memory window laid out noncontiguously (alloc_shared_noncontig) where rank 1's part is
 *    empty: what MPI_Win_shared_query answers for each rank (NULL or where) goes into the result, so
 *    the runtime must answer as the MPI library does (Open MPI: NULL for that empty part), before and
 *    after a restart; each rank writes its part with plain stores and reads its left neighbour's.
 * The result hashes every value read; the native run must give the same. */
#include "mpitest.h"

#include <string.h>

#define NPAIR 64

struct pair { short a; int b; };

/* What MPI_Win_shared_query says of every rank's part: NULL or not, its size, and where it starts
 * against rank 0's part (the same on every rank, and across a restart). */
static uint64_t hash_query(uint64_t h, MPI_Win sw, int size)
{
    MPI_Aint sz0;
    int du;
    char *base0 = NULL;
    MPI_Win_shared_query(sw, 0, &sz0, &du, &base0);
    for (int k = 0; k < size; k++) {
        MPI_Aint sz = -1;
        char *p = NULL;
        if (MPI_Win_shared_query(sw, k, &sz, &du, &p) != MPI_SUCCESS) mt_fail("MPI_Win_shared_query %d", k);
        long where = p == NULL ? -1 : base0 ? (long)(p - base0) : -2;
        h = mt_hash(h, &where, sizeof where);
        h = mt_hash(h, &sz, sizeof sz);
        h = mt_hash(h, &du, sizeof du);
    }
    return h;
}

static uint64_t hash_pair(uint64_t h, const struct pair *p)
{
    h = mt_hash(h, &p->a, sizeof p->a);
    return mt_hash(h, &p->b, sizeof p->b);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;
    struct pair *pairs = NULL;
    MPI_Win pw, cw, sw;
    if (MPI_Win_allocate(NPAIR * sizeof *pairs, sizeof *pairs, MPI_INFO_NULL, MPI_COMM_WORLD, &pairs, &pw) != MPI_SUCCESS)
        mt_fail("MPI_Win_allocate (pairs)");
    long *counter = NULL;
    if (MPI_Win_allocate(sizeof *counter, sizeof *counter, MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &cw) != MPI_SUCCESS)
        mt_fail("MPI_Win_allocate (counter)");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    long *mine = NULL;
    MPI_Aint part = r.rank == 1 ? 0 : 100 * (MPI_Aint)sizeof(long);
    if (MPI_Win_allocate_shared(part, sizeof(long), info, MPI_COMM_WORLD, &mine, &sw) != MPI_SUCCESS) /* mana-lint: ignore MPI_Win_allocate_shared (one node) */
        mt_fail("MPI_Win_allocate_shared");
    MPI_Info_free(&info);
    memset(pairs, 0, NPAIR * sizeof *pairs);
    *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t h = hash_query(MT_HASH0, sw, r.size);
    MPI_Win_lock_all(0, pw);
    MPI_Win_lock_all(0, cw);
    MPI_Win_lock_all(0, sw);
    long it = 0, one = 1, tickets = 0;
    struct pair out[NPAIR], back[NPAIR];
    do {
        it++;
        for (int i = 0; i < NPAIR; i++) { out[i].a = (short)((it + i) % 30000); out[i].b = 1000 * r.rank + (int)it + i; }
        memset(back, 0x55, sizeof back);
        MPI_Accumulate(out, NPAIR, MPI_SHORT_INT, right, 0, NPAIR, MPI_SHORT_INT, MPI_REPLACE, pw);
        MPI_Win_flush(right, pw);
        MPI_Get_accumulate(NULL, 0, MPI_SHORT_INT, back, NPAIR, MPI_SHORT_INT, right, 0, NPAIR, MPI_SHORT_INT,
                           MPI_NO_OP, pw);
        MPI_Win_flush(right, pw);
        for (int i = 0; i < NPAIR; i++)
            if (back[i].a != out[i].a || back[i].b != out[i].b)
                mt_fail("iteration %ld: pair %d read back as (%d, %d), want (%d, %d)", it, i, back[i].a, back[i].b,
                        out[i].a, out[i].b);
        struct pair top = { (short)(30000 - it % 30000), r.rank }, before;
        MPI_Get_accumulate(&top, 1, MPI_SHORT_INT, &before, 1, MPI_SHORT_INT, right, 0, 1, MPI_SHORT_INT, MPI_MAXLOC, pw);
        MPI_Win_flush(right, pw);
        if (before.a != out[0].a || before.b != out[0].b)
            mt_fail("iteration %ld: MPI_MAXLOC found (%d, %d), want (%d, %d)", it, before.a, before.b, out[0].a, out[0].b);
        long t = -1;
        MPI_Fetch_and_op(&one, &t, MPI_LONG, 0, 0, MPI_SUM, cw);
        MPI_Win_flush(0, cw);
        if (t < 0) mt_fail("iteration %ld: ticket %ld", it, t);
        tickets++;
        /* the shared window: this rank's part by plain stores, the left neighbour's by plain loads */
        for (MPI_Aint i = 0; i < part / (MPI_Aint)sizeof(long); i++) mine[i] = it * 1000 + r.rank;
        MPI_Win_sync(sw);
        for (int i = 0; i < NPAIR; i++) h = hash_pair(h, &back[i]);   /* (not the hole: MPI may copy any bytes there) */
        h = hash_pair(h, &before);
    } while (!mt_done(&r, it));
    MPI_Win_unlock_all(sw);
    MPI_Win_unlock_all(cw);
    MPI_Win_unlock_all(pw);
    MPI_Barrier(MPI_COMM_WORLD);
    /* the left neighbour's part, read through the address the query gives now (after any restart) */
    MPI_Aint lsz;
    int du;
    long *lp = NULL;
    MPI_Win_shared_query(sw, left, &lsz, &du, &lp);
    long lcount = left == 1 ? 0 : 100;      /* (the size the query gives may be rounded up: Open MPI's is) */
    for (long i = 0; i < lcount; i++)
        if (lp[i] != it * 1000 + left) mt_fail("rank %d's shared part [%ld] is %ld, want %ld", left, i, lp[i], it * 1000 + left);
    h = hash_query(h, sw, r.size);
    /* every ticket was handed out once: the counter is the sum of all ranks' */
    long all = 0;
    MPI_Allreduce(&tickets, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (r.rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, cw);  /* mana-lint: ignore MPI_Win_lock (nobody else locks it now) */
        long total = *counter;
        MPI_Win_unlock(0, cw);
        if (total != all) mt_fail("the counter is %ld, want %ld", total, all);
        h = mt_hash(h, &total, sizeof total);
    }
    MPI_Win_free(&sw);
    MPI_Win_free(&cw);
    MPI_Win_free(&pw);
    mt_finish(&r, "rma_pair", it, h);
    return 0;
}
