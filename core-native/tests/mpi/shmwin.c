/* shmwin - shared-memory windows: the ranks of one node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED) make
 * a window with MPI_Win_allocate_shared (contiguous parts) and a second one with
 * alloc_shared_noncontig=true (MPI_Win_allocate_shared_c where the MPI has it), find every rank's part
 * with MPI_Win_shared_query (_c), and then, in one MPI_Win_lock_all epoch across the whole run:
 *   - each rank stores straight into its right neighbour's inbox (plain stores, MPI_Win_sync, barrier,
 *     MPI_Win_sync) and checks what its left neighbour stored into its own;
 *   - each rank's state (its part of the window) goes on from the inbox every iteration, so the state
 *     is carried across every checkpoint in the segment itself;
 *   - MPI_Put of its state into its left neighbour's put cell and MPI_Get of its right neighbour's
 *     state through the window, flushed, checked against plain loads of the same memory;
 *   - every rank adds one to its own counter in the second window and reads every rank's counter.
 * On several nodes each node's ranks do this among themselves (the windows are a node's).
 * A restart that did not give the ranks one shared segment again (each rank its own copy) fails the
 * inbox check of the next iteration; one that lost the contents fails the counters and the checksum.
 *   shmwin --stop-file F | --iters K [PAD]   PAD: bytes more in every rank's part of both windows (in
 *   the first a pattern written once, every rank's checked at the end), for segments larger than 1 MiB. */
#include "mpitest.h"

#define NS 16                    /* state cells */
#define NI 16                    /* inbox cells */
/* a rank's part of window 1, in int64 cells: [0, NS) state, [NS, NS + NI) inbox, NS + NI put cell, then
 * the padding */
#define PART (NS + NI + 1)
static long part_cells;

static int64_t pad_value(int rank, long i) { return (int64_t)rank << 40 | i; }

static int64_t inbox_value(long it, int from, int k) { return (int64_t)it * 1000003 + from * 101 + k; }

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        mt_fail("MPI_Comm_split_type");
    int me, n;
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &n);
    /* one node, or several (cluster_*_shmwin_slurm: 2 x 2): every node's ranks share their own windows;
     * a rank alone on its node would share nothing */
    if (n < 2) mt_fail("rank %d is alone on its node; this test wants at least two ranks a node", r.rank);
    int left = (me + n - 1) % n, right = (me + 1) % n;
    long pad = r.argc > 0 ? strtol(r.argv[0], NULL, 10) / (long)sizeof(int64_t) : 0;
    part_cells = PART + pad;

    /* window 1: contiguous, every rank part_cells cells (mana-lint notes the call's partial support:
     * the restart needs the ranks on one node, as this test's are) */
    int64_t *mine = NULL;
    MPI_Win win;
    MPI_Aint bytes1 = (MPI_Aint)(part_cells * sizeof(int64_t));
    if (MPI_Win_allocate_shared(bytes1, sizeof(int64_t), MPI_INFO_NULL, node, &mine, &win) != MPI_SUCCESS) /* mana-lint: ignore MPI_Win_allocate_shared (one node) */
        mt_fail("MPI_Win_allocate_shared");
    MPI_Win_set_name(win, "shmwin.state");
    int64_t **part = malloc((size_t)n * sizeof *part);
    for (int q = 0; q < n; q++) {
        MPI_Aint sz = 0;
        int du = 0;
        if (MPI_Win_shared_query(win, q, &sz, &du, &part[q]) != MPI_SUCCESS) mt_fail("MPI_Win_shared_query %d", q);
        if (sz != (MPI_Aint)(part_cells * sizeof(int64_t)) || du != (int)sizeof(int64_t))
            mt_fail("rank %d's part: size %ld, disp_unit %d", q, (long)sz, du);
        if (q > 0 && part[q] != part[q - 1] + part_cells) mt_fail("the parts of ranks %d and %d are not contiguous", q - 1, q);
    }
    if (part[me] != mine) mt_fail("MPI_Win_shared_query gave another base for this rank than the allocation");

    /* window 2: alloc_shared_noncontig, rank q (q + 1) counters */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int64_t *cnt_mine = NULL;
    MPI_Win win2;
    MPI_Aint bytes2 = (MPI_Aint)((me + 1 + pad) * sizeof(int64_t));
#if MPI_VERSION >= 4
    if (MPI_Win_allocate_shared_c(bytes2, sizeof(int64_t), info, node, &cnt_mine, &win2) != MPI_SUCCESS) /* mana-lint: ignore MPI_Win_allocate_shared_c (one node) */
        mt_fail("MPI_Win_allocate_shared_c");
#else
    if (MPI_Win_allocate_shared(bytes2, sizeof(int64_t), info, node, &cnt_mine, &win2) != MPI_SUCCESS) /* mana-lint: ignore MPI_Win_allocate_shared (one node) */
        mt_fail("MPI_Win_allocate_shared");
#endif
    MPI_Info_free(&info);
    int64_t **cnt = malloc((size_t)n * sizeof *cnt);
    for (int q = 0; q < n; q++) {
        MPI_Aint sz = 0;
#if MPI_VERSION >= 4
        MPI_Aint du = 0;
        if (MPI_Win_shared_query_c(win2, q, &sz, &du, &cnt[q]) != MPI_SUCCESS) mt_fail("MPI_Win_shared_query_c %d", q);
#else
        int du = 0;
        if (MPI_Win_shared_query(win2, q, &sz, &du, &cnt[q]) != MPI_SUCCESS) mt_fail("MPI_Win_shared_query %d", q);
#endif
        /* (Open MPI's own noncontiguous parts say their size rounded up to a page) */
        if (sz < (MPI_Aint)((q + 1 + pad) * sizeof(int64_t)) || du != (int)sizeof(int64_t))
            mt_fail("window 2, rank %d's part: size %ld, disp_unit %ld", q, (long)sz, (long)du);
    }
    /* MPI_PROC_NULL: the lowest rank with memory (rank 0) */
    {
        MPI_Aint sz = 0;
        int du = 0;
        int64_t *p = NULL;
        if (MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p) != MPI_SUCCESS || p != part[0])
            mt_fail("MPI_Win_shared_query(MPI_PROC_NULL)");
    }

    for (int k = 0; k < PART; k++) mine[k] = 0;
    for (int k = 0; k < NS; k++) mine[k] = me * 7 + k;
    for (long i = PART; i < part_cells; i++) mine[i] = pad_value(me, i);
    for (int k = 0; k <= me; k++) cnt_mine[k] = 0;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win2);
    MPI_Win_sync(win);
    MPI_Win_sync(win2);
    MPI_Barrier(node);

    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        /* stores into the right neighbour's inbox, and this rank's counter */
        for (int k = 0; k < NI; k++) part[right][NS + k] = inbox_value(it, me, k);
        cnt_mine[me] += 1;
        MPI_Win_sync(win);
        MPI_Win_sync(win2);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        MPI_Win_sync(win2);
        for (int k = 0; k < NI; k++)
            if (mine[NS + k] != inbox_value(it, left, k))
                mt_fail("iteration %ld: inbox cell %d holds %lld, rank %d stored %lld", it, k, (long long)mine[NS + k], left,
                        (long long)inbox_value(it, left, k));
        for (int q = 0; q < n; q++)
            if (cnt[q][q] != it) mt_fail("iteration %ld: rank %d's counter is %lld", it, q, (long long)cnt[q][q]);
        for (int k = 0; k < NS; k++)
            mine[k] = (int64_t)((uint64_t)mine[k] * 31u + (uint64_t)mine[NS + (k % NI)] + ((uint64_t)mine[(k + 1) % NS] >> 3));
        MPI_Win_sync(win);
        MPI_Barrier(node);            /* every state is new before anyone puts or gets it */
        MPI_Win_sync(win);
        /* through the window: this rank's state[0] into the left neighbour's put cell, the right
         * neighbour's state[1] back */
        int64_t got = -1;
        MPI_Put(&mine[0], 1, MPI_INT64_T, left, NS + NI, 1, MPI_INT64_T, win);
        MPI_Get(&got, 1, MPI_INT64_T, right, 1, 1, MPI_INT64_T, win);
        MPI_Win_flush_all(win);
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        if (got != part[right][1]) mt_fail("iteration %ld: MPI_Get read %lld, the memory holds %lld", it, (long long)got,
                                          (long long)part[right][1]);
        if (mine[NS + NI] != part[right][0])
            mt_fail("iteration %ld: put cell %lld, the right neighbour's state %lld", it, (long long)mine[NS + NI],
                    (long long)part[right][0]);
        h = mt_hash(h, mine, NS * sizeof *mine);
        h = mt_hash(h, &got, sizeof got);
        MPI_Barrier(node);            /* everyone checked before the next stores */
    } while (!mt_done(&r, it));
    MPI_Win_unlock_all(win2);
    MPI_Win_unlock_all(win);
    for (int q = 0; q < n; q++) h = mt_hash(h, &cnt[q][q], sizeof cnt[q][q]);
    for (int q = 0; q < n; q++)
        for (long i = PART; i < part_cells; i++)
            if (part[q][i] != pad_value(q, i)) mt_fail("rank %d's padding cell %ld holds %llx", q, i, (unsigned long long)part[q][i]);
    MPI_Win_free(&win2);
    MPI_Win_free(&win);
    free(cnt);
    free(part);
    MPI_Comm_free(&node);
    mt_finish(&r, "shmwin", it, h);
    return 0;
}
