/* dup_mt - MPI_THREAD_MULTIPLE: two threads of every rank duplicate two communicators at once, in
 * opposite orders on neighbouring ranks, every iteration, checkpointed while they do.
 *
 * Each iteration the main thread duplicates c1 (MPI_Comm_dup, or MPI_Comm_dup_with_info every other
 * iteration) and a worker thread c2.  On even ranks the main thread goes first and the worker starts once
 * the main thread is about to call; on odd ranks the other way round.  So rank 0's main thread is in
 * c1's dup waiting for rank 1's main thread, while rank 1's worker is in c2's dup waiting for rank 0's
 * worker: a runtime that keeps the rank's lower half for a thread's whole blocking dup deadlocks there
 * (MPICH's threads/comm/ctxdup and comm_dup_deadlock did).  Each thread then uses its new communicator
 * (an MPI_Allreduce of rank-dependent values, hashed), checks its size and rank, and frees it; the
 * iteration ends with the usual stop agreement.
 *
 * Run until told to stop (the runtime's run), each thread naps 10 ms holding its new communicator, before
 * it uses it: natively MPICH needs ~75 ms an iteration for these contended dups with 3 ranks on 2 cores, so
 * an unpaced run under the runtime (which makes them idups) got ~1,700 iterations ahead of what the native
 * reference run could repeat in its time limit; the naps also put many checkpoints where both threads'
 * new communicators, made in different orders on neighbouring ranks, are alive (what the replay must
 * remake).  The reference run (--iters) does not nap: results depend on the iteration count alone. */
#include "mpitest.h"

#include <pthread.h>
#include <sched.h>

struct shared {
    int rank, size;
    long it;
    int quit;
    int pace;                   /* nap 10 ms after each dup (the run told to stop by a file) */
    MPI_Comm c1, c2;
    MPI_Info info;
    pthread_barrier_t start, end;
    volatile int first_going;   /* the thread that goes first is about to call MPI (this iteration's number) */
    uint64_t h1, h2;
};

static void dup_and_use(struct shared *s, MPI_Comm parent, uint64_t *h, int salt)
{
    MPI_Comm n;
    int rc = (s->it & 1) ? MPI_Comm_dup_with_info(parent, s->info, &n) /* mana-lint: ignore MPI_Comm_dup_with_info (the hint is never read) */
                         : MPI_Comm_dup(parent, &n);
    if (rc != MPI_SUCCESS) mt_fail("MPI_Comm_dup of communicator %d: %d", salt, rc);
    int sz = -1, rk = -1;
    MPI_Comm_size(n, &sz);
    MPI_Comm_rank(n, &rk);
    if (sz != s->size || rk != s->rank) mt_fail("dup %d: size %d rank %d", salt, sz, rk);
    if (s->pace) {
        struct timespec nap = { 0, 10 * 1000 * 1000 };
        while (nanosleep(&nap, &nap) != 0 && errno == EINTR) {}
    }
    long v = (long)(s->rank + 1) * (s->it + salt), sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, n);
    long want = (long)s->size * (s->size + 1) / 2 * (s->it + salt);
    if (sum != want) mt_fail("dup %d: sum %ld, not %ld", salt, sum, want);
    *h = mt_hash(*h, &sum, sizeof sum);
    MPI_Comm_free(&n);
}

/* Whether this thread goes first on this rank: the main thread on even ranks, the worker on odd ones. */
static void take_turn(struct shared *s, int main_thread)
{
    int first = (s->rank % 2 == 0) == main_thread;
    if (first) {
        __atomic_store_n(&s->first_going, (int)s->it, __ATOMIC_RELEASE);
    } else {
        while (__atomic_load_n(&s->first_going, __ATOMIC_ACQUIRE) != (int)s->it) sched_yield();
    }
}

static void *worker(void *arg)
{
    struct shared *s = arg;
    for (;;) {
        pthread_barrier_wait(&s->start);
        if (s->quit) return NULL;
        take_turn(s, 0);
        dup_and_use(s, s->c2, &s->h2, 2);
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
    MPI_Info_create(&s.info);
    MPI_Info_set(s.info, "mpi_assert_no_any_tag", "true");
    pthread_barrier_init(&s.start, NULL, 2);
    pthread_barrier_init(&s.end, NULL, 2);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, &s) != 0) mt_fail("pthread_create");
    long it = 0;
    do {
        s.it = ++it;
        pthread_barrier_wait(&s.start);
        take_turn(&s, 1);
        dup_and_use(&s, s.c1, &s.h1, 1);
        pthread_barrier_wait(&s.end);
    } while (!mt_done(&r, it));
    s.quit = 1;
    pthread_barrier_wait(&s.start);
    pthread_join(t, NULL);
    MPI_Info_free(&s.info);
    MPI_Comm_free(&s.c1);
    MPI_Comm_free(&s.c2);
    uint64_t h = mt_hash(s.h1, &s.h2, sizeof s.h2);
    mt_finish(&r, "dup_mt", it, h);
    return 0;
}
