/* file_mt - MPI_THREAD_MULTIPLE: two threads of every rank each open a file, set its view, write it
 * collectively, sync, read their left neighbour's value collectively and close it, on two communicators
 * at once, in opposite orders on neighbouring ranks, every iteration, checkpointed while they do.
 *
 * MPI_File_open and MPI_File_close and the file's collective calls (set_view, write_at_all, sync,
 * read_at_all) wait for the file's whole group, and the real ones do so holding the rank's lower half (the
 * lower MPI runs one thread at a time).  As in win_mt, each step is entered by the main thread first on
 * even ranks and by the worker first on odd ones, so rank 0's main thread waits in file 1's call for rank
 * 1's main thread while rank 1's worker waits in file 2's for rank 0's worker: without a turn agreed by
 * all members first (ctor_turn.c) that deadlocks.  Each thread writes a value made of the iteration, its
 * salt and its rank at its rank's place, reads its left neighbour's after sync-barrier-sync (MPI's rule
 * for seeing another process's writes), checks and hashes it.  Run until told to stop, each thread naps
 * 10 ms with its file open, so that checkpoints find both files open with collectives pending; the
 * reference run (--iters) does not nap, and makes the two threads' rounds one after the other (below).
 * The files live in the current folder, named after rank 0's pid;
 * rank 0 removes them at the end.  The two threads' pattern is mtpair.h's. */
#include "mtpair.h"

#include <stdio.h>
#include <unistd.h>

static char names[2][64];

static void file_round(struct mtpair *s, int main_thread, MPI_Comm c, uint64_t *h, int salt)
{
    MPI_File f;
    mtpair_turn(s, main_thread, 0);
    if (MPI_File_open(c, names[salt - 1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f) != MPI_SUCCESS)
        mt_fail("MPI_File_open %s", names[salt - 1]);
    mtpair_turn(s, main_thread, 1);
    if (MPI_File_set_view(f, 0, MPI_LONG, MPI_LONG, "native", MPI_INFO_NULL) != MPI_SUCCESS)
        mt_fail("MPI_File_set_view on %d", salt);
    long v = s->it * 1000 + salt * 100 + s->rank;
    mtpair_turn(s, main_thread, 2);
    if (MPI_File_write_at_all(f, s->rank, &v, 1, MPI_LONG, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        mt_fail("MPI_File_write_at_all on %d", salt);
    mtpair_nap(s);
    mtpair_turn(s, main_thread, 3);
    MPI_File_sync(f);
    MPI_Barrier(c);
    MPI_File_sync(f);
    mtpair_turn(s, main_thread, 4);
    int left = (s->rank + s->size - 1) % s->size;
    long got = -1, want = s->it * 1000 + salt * 100 + left;
    if (MPI_File_read_at_all(f, left, &got, 1, MPI_LONG, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        mt_fail("MPI_File_read_at_all on %d", salt);
    if (got != want) mt_fail("file %d: %ld from rank %d, not %ld", salt, got, left, want);
    *h = mt_hash(*h, &got, sizeof got);
    mtpair_turn(s, main_thread, 5);
    if (MPI_File_close(&f) != MPI_SUCCESS) mt_fail("MPI_File_close on %d", salt);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init_level(&r, &argc, &argv, MPI_THREAD_MULTIPLE);
    int tag = (int)getpid();
    MPI_Bcast(&tag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 2; i++) snprintf(names[i], sizeof names[i], "file_mt_%d_%d.dat", tag, i + 1);
    uint64_t h;
    /* the reference run one round after the other: Open MPI 4.1's OMPIO hangs natively now and then in this
     * pattern from two threads (a 3-rank run of 76 iterations: one thread in MPI_File_sync's barrier, the
     * other in MPI_File_read_at_all, for good); the runtime's runs are the concurrent ones under test */
    long it = mtpair_run_as(&r, file_round, NULL, &h, 1);
    if (r.rank == 0) for (int i = 0; i < 2; i++) unlink(names[i]);
    mt_finish(&r, "file_mt", it, h);
    return 0;
}
