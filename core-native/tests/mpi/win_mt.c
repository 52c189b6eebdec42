/* win_mt - MPI_THREAD_MULTIPLE: two threads of every rank each make a window, fence it around a put
 * and free it, on two communicators at once, in opposite orders on neighbouring ranks, every iteration,
 * checkpointed while they do.
 *
 * MPI_Win_create, MPI_Win_fence and MPI_Win_free wait for the window's whole group, and the real ones
 * do so holding the rank's lower half (the lower MPI runs one thread at a time).  As in dup_mt and
 * ctor_mt, each of its four steps is entered by the main thread first on even ranks and by the worker
 * first on odd ones, so rank 0's main thread waits in window 1's call for rank 1's main thread while rank
 * 1's worker waits in window 2's for rank 0's worker: without a turn agreed by all members first
 * (ctor_turn.c) that deadlocked (MPICH's threads/rma/multifence did).  Each thread puts a value made of
 * the iteration, its salt and its rank into its right neighbour's window between the fences, checks what
 * its left neighbour put into its own, and hashes it.  Run until told to stop, each thread naps 10 ms
 * inside the epoch (between the fences), so that checkpoints find both windows alive with fences
 * pending; the reference run (--iters) does not nap.  The two threads' pattern is mtpair.h's. */
#include "mtpair.h"

static void window_round(struct mtpair *s, int main_thread, MPI_Comm c, uint64_t *h, int salt)
{
    long *mem = (long *)s->arg + (salt - 1);     /* the two windows' memory */
    MPI_Win w;
    *mem = -1;
    mtpair_turn(s, main_thread, 0);
    if (MPI_Win_create(mem, sizeof *mem, sizeof *mem, MPI_INFO_NULL, c, &w) != MPI_SUCCESS)
        mt_fail("MPI_Win_create on %d", salt);
    mtpair_turn(s, main_thread, 1);
    MPI_Win_fence(0, w);
    long v = s->it * 1000 + salt * 100 + s->rank;
    MPI_Put(&v, 1, MPI_LONG, (s->rank + 1) % s->size, 0, 1, MPI_LONG, w);
    mtpair_nap(s);
    mtpair_turn(s, main_thread, 2);
    MPI_Win_fence(0, w);
    int left = (s->rank + s->size - 1) % s->size;
    long want = s->it * 1000 + salt * 100 + left;
    if (*mem != want) mt_fail("window %d: %ld from rank %d, not %ld", salt, *mem, left, want);
    *h = mt_hash(*h, mem, sizeof *mem);
    mtpair_turn(s, main_thread, 3);
    MPI_Win_free(&w);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init_level(&r, &argc, &argv, MPI_THREAD_MULTIPLE);
    static long mem[2];
    uint64_t h;
    long it = mtpair_run(&r, window_round, mem, &h);
    mt_finish(&r, "win_mt", it, h);
    return 0;
}
