/* bsend_mt - buffered sends from several threads at once (MPI_THREAD_MULTIPLE), across checkpoints.
 * Ranks pair up (0-1, 2-3, ...).  Every iteration each rank starts NTHR threads; thread t exchanges K
 * messages of N ints with thread t of its partner on tag t, each an MPI_Bsend (or, every other iteration,
 * an MPI_Ibsend and its wait) followed by the matching MPI_Recv, every value checked.  All threads share
 * the one buffer the rank attached.  The runtime's buffered sends kept their bookkeeping of that buffer
 * unguarded: several threads' sends at once crashed the rank or lost messages (MPICH's
 * threads/pt2pt/mt_bsendrecv, mt_ibsendirecv). */
#include "mpitest.h"

#include <pthread.h>
#include <stdlib.h>

#define NTHR 4
#define K 16
#define N 256

struct job { int rank, peer, t; long it; uint64_t h; };

static void *exchange(void *arg)
{
    struct job *j = arg;
    int out[N], in[N];
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < N; i++) out[i] = (int)(j->it * 1000003 + j->rank * 10007 + j->t * 101 + k * 7 + i);
        if (j->it % 2) {
            MPI_Bsend(out, N, MPI_INT, j->peer, j->t, MPI_COMM_WORLD);
        } else {
            MPI_Request rq;
            MPI_Ibsend(out, N, MPI_INT, j->peer, j->t, MPI_COMM_WORLD, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
        MPI_Recv(in, N, MPI_INT, j->peer, j->t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            if (in[i] != (int)(j->it * 1000003 + j->peer * 10007 + j->t * 101 + k * 7 + i))
                mt_fail("iteration %ld, thread %d, message %d: value %d is %d", j->it, j->t, k, i, in[i]);
        j->h = mt_hash(j->h, in, sizeof in);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init_level(&r, &argc, &argv, MPI_THREAD_MULTIPLE);
    if (r.size % 2) mt_fail("bsend_mt needs an even number of ranks");
    int peer = r.rank ^ 1;
    /* room for every thread's messages of one iteration at once */
    int bytes = 0;
    MPI_Pack_size(N, MPI_INT, MPI_COMM_WORLD, &bytes);
    int size = NTHR * K * (bytes + MPI_BSEND_OVERHEAD);
    char *buf = malloc((size_t)size);
    if (!buf) mt_fail("out of memory");
    MPI_Buffer_attach(buf, size);
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        pthread_t th[NTHR];
        struct job jobs[NTHR];
        for (int t = 0; t < NTHR; t++) {
            jobs[t] = (struct job){ r.rank, peer, t, it, MT_HASH0 };
            if (pthread_create(&th[t], NULL, exchange, &jobs[t]) != 0) mt_fail("pthread_create");
        }
        for (int t = 0; t < NTHR; t++) {
            pthread_join(th[t], NULL);
            h = mt_hash(h, &jobs[t].h, sizeof jobs[t].h);
        }
    } while (!mt_done(&r, it));
    void *back;
    MPI_Buffer_detach(&back, &size);
    free(back);
    mt_finish(&r, "bsend_mt", it, h);
    return 0;
}
