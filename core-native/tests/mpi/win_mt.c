/* win_mt - MPI_THREAD_MULTIPLE: two threads of every rank each make a window, fence it around a put
 * and free it, on two communicators at once, in opposite orders on neighbouring ranks, every iteration,
 * checkpointed while they do.
 *
 * MPI_Win_create, MPI_Win_fence and MPI_Win_free wait for the window's whole group, and the real ones
 * do so holding the rank's lower half (the lower MPI runs one thread at a time).  As in dup_mt and
 * ctor_mt, each of the three steps is entered by the main thread first on even ranks and by the worker
 * first on odd ones, so rank 0's main thread waits in window 1's call for rank 1's main thread while rank
 * 1's worker waits in window 2's for rank 0's worker: without a turn agreed by all members first
 * (ctor_turn.c) that deadlocked (MPICH's threads/rma/multifence did).  Each thread puts a value made of
 * the iteration, its salt and its rank into its right neighbour's window between the fences, checks what
 * its left neighbour put into its own, and hashes it.  Run until told to stop, each thread naps 10 ms
 * inside the epoch (between the fences), so that checkpoints find both windows alive with fences
 * pending; the reference run (--iters) does not nap. */
#include "mpitest.h"

#include <pthread.h>
#include <sched.h>

struct shared {
    int rank, size;
    long it;
    int quit;
    int pace;                   /* nap 10 ms inside each epoch (the run told to stop by a file) */
    MPI_Comm c1, c2;
    pthread_barrier_t start, end;
    volatile long first_going;  /* the step the thread that goes first is about to make (iteration * 4 + step) */
    uint64_t h1, h2;
    long m1, m2;                /* the two windows' memory */
};

/* Whether this thread makes the step first on this rank: the main thread on even ranks, the worker on
 * odd ones; the other starts once the first is about to call. */
static void take_turn(struct shared *s, int main_thread, int step)
{
    long mark = s->it * 4 + step;
    if ((s->rank % 2 == 0) == main_thread) {
        __atomic_store_n(&s->first_going, mark, __ATOMIC_RELEASE);
    } else {
        while (__atomic_load_n(&s->first_going, __ATOMIC_ACQUIRE) < mark) sched_yield();
    }
}

static void window_round(struct shared *s, int main_thread, MPI_Comm c, uint64_t *h, int salt)
{
    long *mem = salt == 1 ? &s->m1 : &s->m2;
    MPI_Win w;
    *mem = -1;
    take_turn(s, main_thread, 0);
    if (MPI_Win_create(mem, sizeof *mem, sizeof *mem, MPI_INFO_NULL, c, &w) != MPI_SUCCESS)
        mt_fail("MPI_Win_create on %d", salt);
    take_turn(s, main_thread, 1);
    MPI_Win_fence(0, w);
    long v = s->it * 1000 + salt * 100 + s->rank;
    MPI_Put(&v, 1, MPI_LONG, (s->rank + 1) % s->size, 0, 1, MPI_LONG, w);
    if (s->pace) {
        struct timespec nap = { 0, 10 * 1000 * 1000 };
        while (nanosleep(&nap, &nap) != 0 && errno == EINTR) {}
    }
    take_turn(s, main_thread, 2);
    MPI_Win_fence(0, w);
    int left = (s->rank + s->size - 1) % s->size;
    long want = s->it * 1000 + salt * 100 + left;
    if (*mem != want) mt_fail("window %d: %ld from rank %d, not %ld", salt, *mem, left, want);
    *h = mt_hash(*h, mem, sizeof *mem);
    take_turn(s, main_thread, 3);
    MPI_Win_free(&w);
}

static void *worker(void *arg)
{
    struct shared *s = arg;
    for (;;) {
        pthread_barrier_wait(&s->start);
        if (s->quit) return NULL;
        window_round(s, 0, s->c2, &s->h2, 2);
        pthread_barrier_wait(&s->end);
    }
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init_level(&r, &argc, &argv, MPI_THREAD_MULTIPLE);
    struct shared s = { .rank = r.rank, .size = r.size, .h1 = MT_HASH0, .h2 = MT_HASH0,
                        .pace = r.stop_file != NULL };
    MPI_Comm_dup(MPI_COMM_WORLD, &s.c1);
    MPI_Comm_dup(MPI_COMM_WORLD, &s.c2);
    pthread_barrier_init(&s.start, NULL, 2);
    pthread_barrier_init(&s.end, NULL, 2);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, &s) != 0) mt_fail("pthread_create");
    long it = 0;
    do {
        s.it = ++it;
        pthread_barrier_wait(&s.start);
        window_round(&s, 1, s.c1, &s.h1, 1);
        pthread_barrier_wait(&s.end);
    } while (!mt_done(&r, it));
    s.quit = 1;
    pthread_barrier_wait(&s.start);
    pthread_join(t, NULL);
    MPI_Comm_free(&s.c1);
    MPI_Comm_free(&s.c2);
    uint64_t h = mt_hash(s.h1, &s.h2, sizeof s.h2);
    mt_finish(&r, "win_mt", it, h);
    return 0;
}
