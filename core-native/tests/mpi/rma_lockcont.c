/* rma_lockcont - passive-target lock contention, as in MPICH's lockcontention tests: the ranks take an
 * exclusive MPI_Win_lock on rank 0's window in turn, for as long as the job runs, with no collective in
 * between: each reads a shared counter there (MPI_Get and a flush) and writes it back one higher
 * (MPI_Put) before it unlocks.  At almost any moment one rank holds the lock and the others wait inside
 * MPI_Win_lock, so a checkpoint nearly always comes while a rank waits there for a holder whose put,
 * flush and unlock are one-sided calls too: the drain must let the holder finish its epoch
 * (drain_rounds.c, settle_batch), since no rank ever reaches a collective to be held at.
 *
 * The end, without a collective either: the counter stops at a value T kept beside it in the window.
 * --iters K: T = K from the start.  --stop-file F: rank 0, holding the lock, looks for F; once it is
 * there (holding E), T = the counter + E.  A rank that finds the counter at T stops.  The counter is a
 * read-modify-write under the lock: it ends exactly at T only if every lock stayed exclusive across
 * the restarts (a lost or doubled update would leave it elsewhere, or the ranks waiting). */
#include "mpitest.h"

#include <limits.h>

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    long *mem = NULL;       /* [0] the counter, [1] T */
    MPI_Win win;
    if (MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win) != MPI_SUCCESS)
        mt_fail("MPI_Win_allocate");
    mem[0] = 0;
    mem[1] = r.stop_file ? LONG_MAX : r.iters;
    MPI_Barrier(MPI_COMM_WORLD);
    long mine = 0, last = -1;
    for (;;) {
        long v[2] = { -1, -1 }, next;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);  /* mana-lint: ignore MPI_Win_lock (the holder opens no other epoch before its unlock: the case the drain handles) */
        MPI_Get(v, 2, MPI_LONG, 0, 0, 2, MPI_LONG, win);
        MPI_Win_flush(0, win);
        if (r.rank == 0 && r.stop_file && v[1] == LONG_MAX) {
            FILE *f = fopen(r.stop_file, "r");
            if (f) {
                long extra = 0;
                if (fscanf(f, "%ld", &extra) != 1) extra = 0;
                fclose(f);
                v[1] = v[0] + extra;
                MPI_Put(&v[1], 1, MPI_LONG, 0, 1, 1, MPI_LONG, win);
            }
        }
        int stop = v[0] >= v[1];
        if (!stop) {
            next = v[0] + 1;
            MPI_Put(&next, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        }
        MPI_Win_unlock(0, win);
        if (v[0] <= last) mt_fail("the counter went back to %ld (this rank saw %ld before)", v[0], last);
        if (v[0] > v[1]) mt_fail("the counter %ld is past its end %ld", v[0], v[1]);
        last = v[0];
        if (stop) break;
        if (++mine == 1 && r.rank == 0 && r.stop_file) mt_out("ready\n");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t h = MT_HASH0;
    long end = last;
    if (r.rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);  /* mana-lint: ignore MPI_Win_lock (no rank waits for a lock then) */
        long counter = mem[0];
        MPI_Win_unlock(0, win);
        if (counter != end) mt_fail("the counter is %ld, want %ld", counter, end);
        h = mt_hash(h, &counter, sizeof counter);
    }
    long total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (total != end) mt_fail("the ranks made %ld updates, the counter says %ld", total, end);
    MPI_Win_free(&win);
    mt_finish(&r, "rma_lockcont", end, h);
    return 0;
}
