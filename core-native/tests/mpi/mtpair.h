/*
 * mtpair.h - the two-thread pattern of dup_mt, ctor_mt and win_mt (MPI_THREAD_MULTIPLE).
 *
 * Every iteration the main thread works on communicator c1 and a worker thread on c2, at the same time.
 * Each step a program marks with mtpair_turn is entered by the main thread first on even ranks and by the
 * worker first on odd ones (the second starts once the first is about to call), so rank 0's main thread
 * waits in c1's call for rank 1's main thread while rank 1's worker waits in c2's for rank 0's worker: a
 * runtime that keeps the rank's lower half for a thread's whole blocking call deadlocks there.  Run until
 * told to stop (the runtime's run), mtpair_nap naps 10 ms, so that checkpoints find the threads' objects
 * alive; the reference run (--iters) does not nap, and results depend on the iteration count alone.
 */
#ifndef MANA_MTPAIR_H
#define MANA_MTPAIR_H

#include "mpitest.h"

#include <pthread.h>
#include <sched.h>

struct mtpair;
/* One thread's work of one iteration on c (c1 or c2), hashed into *h; salt 1 (main) or 2 (worker). */
typedef void mtpair_round(struct mtpair *s, int main_thread, MPI_Comm c, uint64_t *h, int salt);

struct mtpair {
    int rank, size;
    long it;
    int quit;
    int pace;                   /* nap 10 ms where the program says (the run told to stop by a file) */
    MPI_Comm c1, c2;
    pthread_barrier_t start, end;
    volatile long first_going;  /* the step the thread that goes first is about to make (iteration * 8 + step) */
    uint64_t h1, h2;
    mtpair_round *round;
    void *arg;                  /* the program's own */
    int serial;                 /* the reference run makes the two rounds one after the other (mtpair_run) */
};

/* Step (0..7) of this iteration: the first thread on this rank says it is about to call, the other waits
 * for that. */
static inline void mtpair_turn(struct mtpair *s, int main_thread, int step)
{
    long mark = s->it * 8 + step;
    if (s->serial) return;
    if ((s->rank % 2 == 0) == main_thread) {
        __atomic_store_n(&s->first_going, mark, __ATOMIC_RELEASE);
    } else {
        while (__atomic_load_n(&s->first_going, __ATOMIC_ACQUIRE) < mark) sched_yield();
    }
}

static inline void mtpair_nap(const struct mtpair *s)
{
    if (!s->pace) return;
    struct timespec nap = { 0, 10 * 1000 * 1000 };
    while (nanosleep(&nap, &nap) != 0 && errno == EINTR) {}
}

static void *mtpair_worker(void *arg)
{
    struct mtpair *s = arg;
    for (;;) {
        pthread_barrier_wait(&s->start);
        if (s->quit) return NULL;
        s->round(s, 0, s->c2, &s->h2, 2);
        pthread_barrier_wait(&s->end);
    }
}

/* The whole run after MPI_Init_thread: both threads' rounds every iteration until mt_done; returns the
 * iterations made and the run's hash in *h, for mt_finish.  serial_reference: the reference run (--iters)
 * makes the main thread's round and then the worker's, both on the main thread, for a pattern the MPI
 * itself does not always survive natively from two threads at once (file_mt: Open MPI's OMPIO); the hash
 * is the same, since each round's results depend on the iteration alone. */
static inline long mtpair_run_as(struct mt_run *r, mtpair_round *round, void *arg, uint64_t *h, int serial_reference)
{
    struct mtpair s = { .rank = r->rank, .size = r->size, .h1 = MT_HASH0, .h2 = MT_HASH0,
                        .pace = r->stop_file != NULL, .round = round, .arg = arg };
    s.serial = serial_reference && !s.pace;
    MPI_Comm_dup(MPI_COMM_WORLD, &s.c1);
    MPI_Comm_dup(MPI_COMM_WORLD, &s.c2);
    pthread_barrier_init(&s.start, NULL, 2);
    pthread_barrier_init(&s.end, NULL, 2);
    pthread_t t;
    if (pthread_create(&t, NULL, mtpair_worker, &s) != 0) mt_fail("pthread_create");
    long it = 0;
    do {
        s.it = ++it;
        if (s.serial) {
            round(&s, 1, s.c1, &s.h1, 1);
            round(&s, 0, s.c2, &s.h2, 2);
            continue;
        }
        pthread_barrier_wait(&s.start);
        round(&s, 1, s.c1, &s.h1, 1);
        pthread_barrier_wait(&s.end);
    } while (!mt_done(r, it));
    s.quit = 1;
    pthread_barrier_wait(&s.start);
    pthread_join(t, NULL);
    MPI_Comm_free(&s.c1);
    MPI_Comm_free(&s.c2);
    *h = mt_hash(s.h1, &s.h2, sizeof s.h2);
    return it;
}

static inline long mtpair_run(struct mt_run *r, mtpair_round *round, void *arg, uint64_t *h)
{
    return mtpair_run_as(r, round, arg, h, 0);
}

#endif
