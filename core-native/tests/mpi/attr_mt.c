/* attr_mt - attributes from several threads at once (MPI_THREAD_MULTIPLE), across checkpoints.
 * Every iteration each rank starts NTHR threads; thread t makes K datatypes in turn: a contiguous type,
 * an attribute on it (a keyval with a copy and a delete callback), an MPI_Type_dup that copies it, a
 * check of both values, CHURN attributes of a second keyval set and deleted on it (list operations
 * only, no call into the real MPI, so the threads' list operations overlap), and both types freed
 * (each free runs the delete callback).  Datatypes are
 * local, so the threads never wait for each other or for other ranks, and every MPI either runs it.
 * The runtime keeps keyvals and attributes in one list of its own; it was unguarded: a thread's free
 * unlinked and freed a node while another's add or walk used the list (tests/mpi/dup_mt.c crashed in
 * mana_attr_clear after restarts, where MPI_Comm_dup_with_info keeps its hints as an attribute). */
#include "mpitest.h"

#include <pthread.h>

#define NTHR 4
#define K 64

static int kv = MPI_KEYVAL_INVALID;
static int kv_churn = MPI_KEYVAL_INVALID;  /* no callbacks: set and deleted CHURN times per type */
#define CHURN 128
static long deleted[NTHR];          /* delete callbacks run, per thread (the value names the thread) */

static int copy_fn(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    (void)t; (void)key; (void)extra;
    *(void **)out = (void *)((uintptr_t)in + 1);      /* the copy's value is one more */
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t; (void)key; (void)extra;
    int thr = (int)(((uintptr_t)val >> 24) & 0xff);
    if (thr < 0 || thr >= NTHR) mt_fail("delete callback: value %#lx names no thread", (unsigned long)(uintptr_t)val);
    __atomic_add_fetch(&deleted[thr], 1, __ATOMIC_RELAXED);
    return MPI_SUCCESS;
}

struct job { int rank, t; long it; uint64_t h; };

static void *work(void *arg)
{
    struct job *j = arg;
    for (int k = 0; k < K; k++) {
        MPI_Datatype a, b;
        MPI_Type_contiguous(1 + (int)((j->it + k) % 7), MPI_INT, &a);
        uintptr_t v = ((uintptr_t)j->t << 24) | (uintptr_t)(((j->it * K + k) * 2) & 0xffffff);
        if (MPI_Type_set_attr(a, kv, (void *)v) != MPI_SUCCESS) mt_fail("thread %d: MPI_Type_set_attr", j->t);
        for (int c = 0; c < CHURN; c++) {
            MPI_Type_set_attr(a, kv_churn, (void *)(uintptr_t)(c + 1));
            void *cv = NULL;
            int cf = 0;
            MPI_Type_get_attr(a, kv_churn, &cv, &cf);
            if (!cf || (uintptr_t)cv != (uintptr_t)(c + 1)) mt_fail("thread %d: churn attribute %d lost", j->t, c);
            MPI_Type_delete_attr(a, kv_churn);
        }
        MPI_Type_dup(a, &b);
        void *got = NULL;
        int flag = 0;
        MPI_Type_get_attr(b, kv, &got, &flag);
        if (!flag || (uintptr_t)got != v + 1)
            mt_fail("iteration %ld, thread %d, type %d: the dup's attribute is %d/%#lx, not %#lx", j->it, j->t, k, flag,
                    (unsigned long)(uintptr_t)got, (unsigned long)(v + 1));
        MPI_Type_get_attr(a, kv, &got, &flag);
        if (!flag || (uintptr_t)got != v) mt_fail("iteration %ld, thread %d, type %d: attribute lost", j->it, j->t, k);
        int size = 0;
        MPI_Type_size(b, &size);
        j->h = mt_hash(j->h, &size, sizeof size);
        j->h = mt_hash(j->h, &got, sizeof got);
        MPI_Type_free(&b);
        MPI_Type_free(&a);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init_level(&r, &argc, &argv, MPI_THREAD_MULTIPLE);
    MPI_Type_create_keyval(copy_fn, delete_fn, &kv, NULL);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kv_churn, NULL);
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        pthread_t th[NTHR];
        struct job jobs[NTHR];
        for (int t = 0; t < NTHR; t++) {
            jobs[t] = (struct job){ r.rank, t, it, MT_HASH0 };
            if (pthread_create(&th[t], NULL, work, &jobs[t]) != 0) mt_fail("pthread_create");
        }
        for (int t = 0; t < NTHR; t++) {
            pthread_join(th[t], NULL);
            h = mt_hash(h, &jobs[t].h, sizeof jobs[t].h);
        }
        for (int t = 0; t < NTHR; t++)
            if (deleted[t] != 2 * K * it)
                mt_fail("iteration %ld: thread %d's delete callbacks ran %ld times, not %ld", it, t, deleted[t], 2 * K * it);
    } while (!mt_done(&r, it));
    MPI_Type_free_keyval(&kv_churn);
    MPI_Type_free_keyval(&kv);
    mt_finish(&r, "attr_mt", it, h);
    return 0;
}
