/* rma_counter - an ARMCI-style passive-target counter: the whole run is one MPI_Win_lock_all epoch on a
 * window of MPI_Win_allocate; every iteration each rank takes a ticket from a shared counter on rank 0
 * (MPI_Fetch_and_op, MPI_SUM) and adds the iteration to its own slot there (its fetched old value is
 * checked: only this rank touches that slot), swaps a value into a cell on its right neighbour (MPI_Fetch_and_op, MPI_REPLACE), and flushes.
 * Every checkpoint falls inside the lock_all epoch: the restart must take the lock again.  At the end the
 * counter must equal ranks x iterations. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int right = (r.rank + 1) % r.size;
    /* rank 0's window: [0] the shared counter, [1 + k] rank k's slot, [1 + size + k] rank k's CAS cell, on its right neighbour's window */
    long *mem = NULL;
    MPI_Aint bytes = (MPI_Aint)((1 + 2 * r.size) * sizeof(long));
    MPI_Win win;
    if (MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win) != MPI_SUCCESS)
        mt_fail("MPI_Win_allocate");
    for (int i = 0; i < 1 + 2 * r.size; i++) mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    uint64_t h = MT_HASH0;
    long it = 0, one = 1;
    do {
        it++;
        long ticket = -1, old = -1, swapped = -1, want = it - 1, next = it;
        MPI_Fetch_and_op(&one, &ticket, MPI_LONG, 0, 0, MPI_SUM, win);
        MPI_Fetch_and_op(&it, &old, MPI_LONG, 0, 1 + r.rank, MPI_SUM, win);
        /* (a replacing fetch-and-op, not MPI_Compare_and_swap: Open MPI 4.1.4's compare-and-swap on an
         * MPI_Win_allocate window crashes natively in its vader BTL; calls_rma.c covers it on a
         * window of MPI_Win_create) */
        (void)want;
        MPI_Fetch_and_op(&next, &swapped, MPI_LONG, right, 1 + r.size + r.rank, MPI_REPLACE, win);
        MPI_Win_flush(0, win);
        MPI_Win_flush(right, win);
        if (old != it * (it - 1) / 2) mt_fail("iteration %ld: my slot held %ld, want %ld", it, old, it * (it - 1) / 2);
        if (swapped != it - 1) mt_fail("iteration %ld: swap found %ld, want %ld", it, swapped, it - 1);
        if (ticket < 0 || ticket >= (long)r.size * it) mt_fail("iteration %ld: ticket %ld out of range", it, ticket);
        h = mt_hash(h, &old, sizeof old);
        h = mt_hash(h, &swapped, sizeof swapped);
    } while (!mt_done(&r, it));
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (r.rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);  /* mana-lint: ignore MPI_Win_lock (no rank waits for an exclusive lock another holds) */
        long total = mem[0];
        MPI_Win_unlock(0, win);
        if (total != (long)r.size * it) mt_fail("the counter is %ld, want %ld", total, (long)r.size * it);
        h = mt_hash(h, &total, sizeof total);
    }
    MPI_Win_free(&win);
    mt_finish(&r, "rma_counter", it, h);
    return 0;
}
