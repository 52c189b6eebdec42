/* greqs - generalized requests (MPI_Grequest_start / MPI_Grequest_complete), pending across checkpoints.
 *
 * Each iteration:
 *   local     a request started, local work (a checkpoint may come while it is pending), completed by
 *             this thread, then MPI_Wait: the status is what the query function wrote (source, tag,
 *             element count) and the free function has run exactly once when the wait returns;
 *   threaded  a request completed by a worker thread while the main thread waits for it in MPI_Waitall
 *             together with a ring receive and send (MPI_THREAD_MULTIPLE);
 *   cancel    a request cancelled before it completes (the cancel function is told "not complete"),
 *             then completed and tested with MPI_Test until done;
 *   any       a request completed by a worker thread while the main thread waits for it alone in
 *             MPI_Waitany (odd iterations) or MPI_Waitsome (even ones): the runtime's single-completion
 *             waits never noticed a request another thread had completed and spun for ever (MPICH's
 *             threads/pt2pt/greq_wait).
 * Counters of the callbacks' calls go into the checksum. */
#include "mpitest.h"

#include <pthread.h>

struct state {
    long it;
    int queries, frees, cancels, cancel_saw_complete;
};

static int query(void *extra, MPI_Status *st)
{
    struct state *s = extra;
    s->queries++;
    st->MPI_SOURCE = 7;
    st->MPI_TAG = (int)(s->it % 1000);
    MPI_Status_set_elements(st, MPI_INT, 3);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}

static int release(void *extra)
{
    ((struct state *)extra)->frees++;
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    struct state *s = extra;
    s->cancels++;
    if (complete) s->cancel_saw_complete++;
    return MPI_SUCCESS;
}

struct job { MPI_Request req; pthread_barrier_t go; };

static void *completer(void *p)
{
    struct job *j = p;
    pthread_barrier_wait(&j->go);
    usleep(300);                      /* the main thread is waiting by now, most of the time */
    MPI_Grequest_complete(j->req);
    return NULL;
}

static void check_status(const MPI_Status *st, long it, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    if (st->MPI_SOURCE != 7 || st->MPI_TAG != (int)(it % 1000) || n != 3)
        mt_fail("%s: status source %d tag %d count %d", what, st->MPI_SOURCE, st->MPI_TAG, n);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init_level(&r, &argc, &argv, MPI_THREAD_MULTIPLE);
    int right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;
    struct state s = { 0 };
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        s.it = it;
        int frees0 = s.frees;

        /* local */
        MPI_Request g;
        MPI_Status st;
        MPI_Grequest_start(query, release, cancel, &s, &g);
        usleep(200);                  /* local work: a checkpoint finds the request pending */
        MPI_Grequest_complete(g);
        MPI_Wait(&g, &st);
        if (g != MPI_REQUEST_NULL) mt_fail("local: the request is not null after its wait");
        check_status(&st, it, "local");
        if (s.frees != frees0 + 1) mt_fail("local: free function ran %d times", s.frees - frees0);

        /* threaded, with a ring exchange in the same MPI_Waitall */
        struct job j;
        pthread_barrier_init(&j.go, NULL, 2);
        MPI_Grequest_start(query, release, cancel, &s, &j.req);
        pthread_t t;
        if (pthread_create(&t, NULL, completer, &j)) mt_fail("pthread_create");
        long out = r.rank * 100 + it, in = -1;
        MPI_Request rq[3] = { j.req, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
        MPI_Irecv(&in, 1, MPI_LONG, left, 4, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(&out, 1, MPI_LONG, right, 4, MPI_COMM_WORLD, &rq[2]);
        pthread_barrier_wait(&j.go);
        MPI_Status sts[3];
        MPI_Waitall(3, rq, sts);
        pthread_join(t, NULL);
        pthread_barrier_destroy(&j.go);
        check_status(&sts[0], it, "threaded");
        if (in != left * 100 + it) mt_fail("ring: got %ld", in);
        if (s.frees != frees0 + 2) mt_fail("threaded: free function ran %d times", s.frees - frees0 - 1);
        h = mt_hash(h, &in, sizeof in);

        /* cancel, then complete, then test until done */
        MPI_Grequest_start(query, release, cancel, &s, &g);
        int c0 = s.cancels, cc0 = s.cancel_saw_complete;
        MPI_Cancel(&g);
        if (s.cancels != c0 + 1 || s.cancel_saw_complete != cc0) mt_fail("cancel function: %d calls", s.cancels - c0);
        MPI_Grequest_complete(g);
        int flag = 0;
        while (!flag) MPI_Test(&g, &flag, &st);
        check_status(&st, it, "cancelled");
        if (s.frees != frees0 + 3) mt_fail("cancelled: free function ran %d times", s.frees - frees0 - 2);

        /* any: completed by a worker while this thread waits for it alone */
        struct job k;
        pthread_barrier_init(&k.go, NULL, 2);
        MPI_Grequest_start(query, release, cancel, &s, &k.req);
        MPI_Request one = k.req;
        if (pthread_create(&t, NULL, completer, &k)) mt_fail("pthread_create");
        pthread_barrier_wait(&k.go);
        int idx = -1, outcount = -1;
        if (it % 2) {
            MPI_Waitany(1, &one, &idx, &st);
            outcount = idx == 0;
        } else {
            MPI_Waitsome(1, &one, &outcount, &idx, &st);
        }
        pthread_join(t, NULL);
        pthread_barrier_destroy(&k.go);
        if (idx != 0 || outcount != 1 || one != MPI_REQUEST_NULL)
            mt_fail("any: index %d, count %d, request %snull", idx, outcount, one == MPI_REQUEST_NULL ? "" : "not ");
        check_status(&st, it, "any");
        if (s.frees != frees0 + 4) mt_fail("any: free function ran %d times", s.frees - frees0 - 3);
        h = mt_hash(h, &s, sizeof s);
    } while (!mt_done(&r, it));
    mt_finish(&r, "greqs", it, h);
    return 0;
}
