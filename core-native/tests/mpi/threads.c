/* threads - MPI_THREAD_MULTIPLE: three threads of every rank inside MPI at once, on three communicators,
 * checkpointed while they are there.
 *
 * Each iteration the main thread releases two workers (a pthread barrier) and all three call MPI:
 *   worker A  (communicator ca) a ring in which rank 0 sends first and every other rank forwards what
 *             it received: blocking MPI_Recv then MPI_Send, a 64 KiB MPI_Isend/MPI_Irecv pair
 *             (rendezvous) completed by MPI_Waitall, and MPI_Probe + MPI_Recv;
 *   worker B  (communicator cb) MPI_Allreduce, MPI_Bcast, MPI_Barrier, and MPI_Iallreduce + MPI_Wait;
 *   main      (MPI_COMM_WORLD) MPI_Reduce and MPI_Allgather.
 * A ring step waits for the left neighbour's worker A, which must reach the real MPI while that rank's
 * worker B sits in a collective for which this rank's worker B is not there yet: a rank that kept
 * the lower half for one thread's whole blocking call deadlocks here.  The workers then meet the main
 * thread at a second barrier and the iteration ends with the usual stop agreement. */
#include "mpitest.h"

#include <pthread.h>

#define BIG (64 * 1024)

struct shared {
    int rank, size;
    long it;
    int quit;
    MPI_Comm ca, cb;
    pthread_barrier_t start, end;
    uint64_t ha, hb;
    char *sbig, *rbig;
};

static void worker_a(struct shared *s)
{
    int right = (s->rank + 1) % s->size, left = (s->rank + s->size - 1) % s->size;
    long tok = 0;
    if (s->rank == 0) {
        tok = s->it * 1000;
        MPI_Send(&tok, 1, MPI_LONG, right, 1, s->ca);
        MPI_Recv(&tok, 1, MPI_LONG, left, 1, s->ca, MPI_STATUS_IGNORE);
        if (tok != s->it * 1000 + s->size - 1) mt_fail("ring token %ld after one turn", tok);
    } else {
        MPI_Recv(&tok, 1, MPI_LONG, left, 1, s->ca, MPI_STATUS_IGNORE);
        tok++;
        MPI_Send(&tok, 1, MPI_LONG, right, 1, s->ca);
    }
    s->ha = mt_hash(s->ha, &tok, sizeof tok);

    memset(s->sbig, (int)((s->rank + s->it) & 0x7f), BIG);
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_Irecv(s->rbig, BIG, MPI_CHAR, left, 2, s->ca, &rq[0]);
    MPI_Isend(s->sbig, BIG, MPI_CHAR, right, 2, s->ca, &rq[1]);
    MPI_Waitall(2, rq, st);
    for (int i = 0; i < BIG; i += 4096)
        if (s->rbig[i] != (char)((left + s->it) & 0x7f)) mt_fail("worker A: byte %d is %d", i, s->rbig[i]);
    s->ha = mt_hash(s->ha, s->rbig, BIG);

    int v = (int)(s->rank * 3 + s->it), got = -1, n = 0;
    MPI_Request sr;
    MPI_Isend(&v, 1, MPI_INT, right, 3, s->ca, &sr);
    MPI_Status pst;
    MPI_Probe(left, 3, s->ca, &pst);
    MPI_Get_count(&pst, MPI_INT, &n);
    if (n != 1) mt_fail("worker A: probe count %d", n);
    MPI_Recv(&got, 1, MPI_INT, left, 3, s->ca, MPI_STATUS_IGNORE);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    if (got != (int)(left * 3 + s->it)) mt_fail("worker A: probed message %d", got);
    s->ha = mt_hash(s->ha, &got, sizeof got);
}

static void worker_b(struct shared *s)
{
    long in = s->rank + s->it, sum = 0;
    MPI_Allreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, s->cb);
    long want = (long)s->size * (s->size - 1) / 2 + (long)s->size * s->it;
    if (sum != want) mt_fail("worker B: Allreduce %ld, want %ld", sum, want);
    double b[4] = { 0 };
    if (s->rank == 0) for (int i = 0; i < 4; i++) b[i] = (double)s->it + i * 0.5;
    MPI_Bcast(b, 4, MPI_DOUBLE, 0, s->cb);
    if (b[3] != (double)s->it + 1.5) mt_fail("worker B: Bcast %g", b[3]);
    MPI_Barrier(s->cb);
    MPI_Request r;
    long mx = 0;
    MPI_Iallreduce(&in, &mx, 1, MPI_LONG, MPI_MAX, s->cb, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (mx != s->size - 1 + s->it) mt_fail("worker B: Iallreduce %ld", mx);
    s->hb = mt_hash(s->hb, &sum, sizeof sum);
    s->hb = mt_hash(s->hb, b, sizeof b);
    s->hb = mt_hash(s->hb, &mx, sizeof mx);
}

static void *run_a(void *p)
{
    struct shared *s = p;
    for (;;) {
        pthread_barrier_wait(&s->start);
        if (s->quit) return NULL;
        worker_a(s);
        pthread_barrier_wait(&s->end);
    }
}

static void *run_b(void *p)
{
    struct shared *s = p;
    for (;;) {
        pthread_barrier_wait(&s->start);
        if (s->quit) return NULL;
        worker_b(s);
        pthread_barrier_wait(&s->end);
    }
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init_level(&r, &argc, &argv, MPI_THREAD_MULTIPLE);
    int level = -1;
    MPI_Query_thread(&level);
    if (level != MPI_THREAD_MULTIPLE) mt_fail("MPI_Query_thread says %d", level);
    struct shared s = { .rank = r.rank, .size = r.size, .ha = MT_HASH0, .hb = MT_HASH0 };
    s.sbig = malloc(BIG);
    s.rbig = malloc(BIG);
    if (!s.sbig || !s.rbig) mt_fail("out of memory");
    MPI_Comm_dup(MPI_COMM_WORLD, &s.ca);
    MPI_Comm_dup(MPI_COMM_WORLD, &s.cb);
    pthread_barrier_init(&s.start, NULL, 3);
    pthread_barrier_init(&s.end, NULL, 3);
    pthread_t ta, tb;
    if (pthread_create(&ta, NULL, run_a, &s) || pthread_create(&tb, NULL, run_b, &s)) mt_fail("pthread_create");
    uint64_t h = MT_HASH0;
    long it = 0;
    int *all = malloc(sizeof(int) * (size_t)r.size);
    do {
        it++;
        s.it = it;
        pthread_barrier_wait(&s.start);
        long mine = r.rank * it, tot = 0;
        MPI_Reduce(&mine, &tot, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (r.rank == 0 && tot != it * (long)r.size * (r.size - 1) / 2) mt_fail("main: Reduce %ld", tot);
        int me = r.rank + (int)it;
        MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < r.size; i++) if (all[i] != i + (int)it) mt_fail("main: Allgather[%d] %d", i, all[i]);
        h = mt_hash(h, all, sizeof(int) * (size_t)r.size);
        pthread_barrier_wait(&s.end);
    } while (!mt_done(&r, it));
    s.quit = 1;
    pthread_barrier_wait(&s.start);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    h = mt_hash(h, &s.ha, sizeof s.ha);
    h = mt_hash(h, &s.hb, sizeof s.hb);
    MPI_Comm_free(&s.ca);
    MPI_Comm_free(&s.cb);
    free(all);
    free(s.sbig);
    free(s.rbig);
    mt_finish(&r, "threads", it, h);
    return 0;
}
