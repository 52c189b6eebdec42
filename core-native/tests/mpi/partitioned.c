/* partitioned - MPI 4.0's partitioned communication across checkpoints (MPICH only: Open MPI 4.1 does
 * not export it).
 *
 * A ring: every rank sends to its right neighbour and receives from its left, with
 *   main    a partitioned send and receive on MPI_COMM_WORLD (P partitions of C longs), made once;
 *   early   a second pair on MPI_COMM_WORLD (another tag), made once, whose send is started and made
 *           wholly ready before its receive is started: its message waits unmatched (a checkpoint there
 *           buffers it in the drain; the receive takes it after the restart);
 *   fresh   a pair made and freed every iteration on a split of MPI_COMM_WORLD whose ranks run the
 *           other way round (its ranks are not the world's), each made twice over with the same tag
 *           (the two must match in the order they were made).
 * Every iteration: the buffers are filled with values of (rank, iteration, partition, element); the
 * main send's partitions are marked ready in an order scrambled per iteration and rank, with
 * MPI_Pready_list, MPI_Pready and MPI_Pready_range, the last four by two threads at once (the program
 * runs at MPI_THREAD_MULTIPLE: a helper thread marks two while the main thread marks the other two,
 * as partitioned communication is meant to be used); the main receive is polled with MPI_Parrived and
 * each partition checked as soon as it is reported (never before its values are there); MPI_Test, then
 * MPI_Wait/Waitall complete the requests, and each receive's status must give the program's source and
 * tag.  Every received value goes into the checksum.
 *
 * Extra arguments HOLD GO (partitioned_pending.sh): at iteration HOLD, with the main receive started,
 * the main send started with half of its partitions ready, and the early send's message unmatched,
 * rank 0 prints "held" and every rank waits outside MPI until the file GO exists. */
#include "mpitest.h"

#include <pthread.h>

#if MPI_VERSION >= 4

#define P 8              /* partitions */
#define C 96             /* longs per partition */

static int me, n, left, right;

/* The helper thread: marks perm[4] and perm[5] of the main send each iteration, while the main thread
 * marks perm[6] and perm[7]. */
static pthread_barrier_t go_bar, done_bar;
static MPI_Request helper_req;
static int helper_parts[2], helper_quit;
static long helper_it;

static void *helper(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_barrier_wait(&go_bar);
        if (helper_quit) return NULL;
        for (int k = 0; k < 2; k++) {
            int rc = MPI_Pready(helper_parts[k], helper_req);
            if (rc != MPI_SUCCESS) mt_fail("partitioned: MPI_Pready (helper thread) failed (error %d) at iteration %ld", rc, helper_it);
        }
        pthread_barrier_wait(&done_bar);
    }
}

static long val(int rank, long it, int p, int j, int which) { return ((long)rank * 1000003L + it * 7919L) * 3 + p * 131L + j + which * 17L; }

static void ok(int rc, const char *what, long it)
{
    if (rc != MPI_SUCCESS) mt_fail("partitioned: %s failed (error %d) at iteration %ld", what, rc, it);
}

static void fill(long *b, int rank, long it, int which)
{
    for (int p = 0; p < P; p++)
        for (int j = 0; j < C; j++) b[p * C + j] = val(rank, it, p, j, which);
}

/* Partition p of a received buffer must hold the sender's values of this iteration. */
static void check_part(const long *b, int from, long it, int p, int which, const char *what)
{
    for (int j = 0; j < C; j++)
        if (b[p * C + j] != val(from, it, p, j, which))
            mt_fail("partitioned: %s partition %d element %d is %ld, want %ld at iteration %ld", what, p, j,
                    b[p * C + j], val(from, it, p, j, which), it);
}

static void check_status(const MPI_Status *st, int src, int tag, const char *what, long it)
{
    int cnt = -1;
    MPI_Get_count(st, MPI_LONG, &cnt);
    if (st->MPI_SOURCE != src || st->MPI_TAG != tag || cnt != P * C)
        mt_fail("partitioned: %s status: source %d tag %d count %d, want %d %d %d at iteration %ld", what,
                st->MPI_SOURCE, st->MPI_TAG, cnt, src, tag, P * C, it);
}

/* A permutation of 0..P-1 that depends on the iteration and the rank. */
static void scramble(int *perm, long it)
{
    for (int p = 0; p < P; p++) perm[p] = p;
    uint64_t s = (uint64_t)it * 2654435761u + (uint64_t)me * 40503u + 1;
    for (int p = P - 1; p > 0; p--) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        int q = (int)((s >> 33) % (uint64_t)(p + 1));
        int t = perm[p]; perm[p] = perm[q]; perm[q] = t;
    }
}

int main(int argc, char **argv)
{
    struct mt_run run;
    mt_init_level(&run, &argc, &argv, MPI_THREAD_MULTIPLE);
    me = run.rank;
    n = run.size;
    left = (me + n - 1) % n;
    right = (me + 1) % n;
    long hold = run.argc >= 2 ? strtol(run.argv[0], NULL, 10) : -1;
    const char *go = run.argc >= 2 ? run.argv[1] : NULL;

    static long sb[P * C], rb[P * C], esb[P * C], erb[P * C], fsb[2][P * C], frb[2][P * C];
    MPI_Request sreq, rreq, es, er;
    /* mana-lint: ignore MPI_Psend_init (the whole buffer moving at once is what the test expects) */
    ok(MPI_Psend_init(sb, P, C, MPI_LONG, right, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq), "MPI_Psend_init", 0);
    /* mana-lint: ignore MPI_Precv_init (idem) */
    ok(MPI_Precv_init(rb, P, C, MPI_LONG, left, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq), "MPI_Precv_init", 0);
    ok(MPI_Psend_init(esb, P, C, MPI_LONG, right, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &es), "MPI_Psend_init early", 0); /* mana-lint: ignore MPI_Psend_init (idem) */
    ok(MPI_Precv_init(erb, P, C, MPI_LONG, left, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &er), "MPI_Precv_init early", 0); /* mana-lint: ignore MPI_Precv_init (idem) */
    MPI_Comm rev;                /* ranks the other way round */
    ok(MPI_Comm_split(MPI_COMM_WORLD, 0, n - me, &rev), "MPI_Comm_split", 0);
    int rme, rleft, rright;
    MPI_Comm_rank(rev, &rme);
    rleft = (rme + n - 1) % n;
    rright = (rme + 1) % n;

    pthread_t th;
    pthread_barrier_init(&go_bar, NULL, 2);
    pthread_barrier_init(&done_bar, NULL, 2);
    helper_req = sreq;
    if (pthread_create(&th, NULL, helper, NULL) != 0) mt_fail("partitioned: pthread_create failed");
    uint64_t h = MT_HASH0;
    long polls = 0;
    for (long it = 1;; it++) {
        fill(sb, me, it, 0);
        fill(esb, me, it, 1);
        memset(rb, 0, sizeof rb);
        memset(erb, 0, sizeof erb);
        /* the early send: started and wholly ready before its receive is started */
        ok(MPI_Start(&es), "MPI_Start early send", it);
        ok(MPI_Pready_range(0, P - 1, es), "MPI_Pready_range early", it);
        /* main: receive started, send started, partitions ready in a scrambled order */
        MPI_Request both[2] = { rreq, sreq };
        ok(MPI_Startall(2, both), "MPI_Startall", it);
        int perm[P];
        scramble(perm, it);
        ok(MPI_Pready_list(3, perm, sreq), "MPI_Pready_list", it);       /* perm[0..2] */
        ok(MPI_Pready(perm[3], sreq), "MPI_Pready", it);
        if (it == hold) {
            /* half the partitions ready, the early message unmatched: wait for the harness */
            if (me == 0) mt_out("held\n");
            while (access(go, F_OK) != 0) usleep(10000);
        }
        ok(MPI_Start(&er), "MPI_Start early receive", it);
        /* the last four partitions: two by the helper thread, two here, at the same time */
        helper_parts[0] = perm[4];
        helper_parts[1] = perm[5];
        helper_it = it;
        pthread_barrier_wait(&go_bar);
        for (int k = 6; k < P; k++) ok(MPI_Pready_range(perm[k], perm[k], sreq), "MPI_Pready_range", it);
        pthread_barrier_wait(&done_bar);
        /* poll the partitions: each is checked once reported, never earlier than its values */
        int seen[P] = { 0 }, left_to_see = P;
        while (left_to_see > 0) {
            for (int p = 0; p < P; p++) {
                if (seen[p]) continue;
                int flag = 0;
                ok(MPI_Parrived(rreq, p, &flag), "MPI_Parrived", it);   /* mana-lint: ignore MPI_Parrived (reported late is allowed) */
                polls++;
                if (!flag) continue;
                check_part(rb, left, it, p, 0, "main");
                seen[p] = 1;
                left_to_see--;
            }
        }
        int flag = 0;
        MPI_Status st;
        ok(MPI_Test(&rreq, &flag, &st), "MPI_Test", it);
        if (!flag) ok(MPI_Wait(&rreq, &st), "MPI_Wait main receive", it);
        check_status(&st, left, 5, "main receive", it);
        ok(MPI_Wait(&sreq, MPI_STATUS_IGNORE), "MPI_Wait main send", it);
        MPI_Request e2[2] = { er, es };
        MPI_Status est[2];
        ok(MPI_Waitall(2, e2, est), "MPI_Waitall early", it);
        check_status(&est[0], left, 6, "early receive", it);
        for (int p = 0; p < P; p++) check_part(erb, left, it, p, 1, "early");
        h = mt_hash(h, rb, sizeof rb);
        h = mt_hash(h, erb, sizeof erb);

        /* fresh: two pairs with the same tag on the reversed communicator, made and freed here */
        MPI_Request fr[4];
        for (int k = 0; k < 2; k++) {
            fill(fsb[k], rme, it, 2 + k);
            memset(frb[k], 0, sizeof frb[k]);
            ok(MPI_Psend_init(fsb[k], P, C, MPI_LONG, rright, 9, rev, MPI_INFO_NULL, &fr[2 * k]), "MPI_Psend_init fresh", it); /* mana-lint: ignore MPI_Psend_init (idem) */
            ok(MPI_Precv_init(frb[k], P, C, MPI_LONG, rleft, 9, rev, MPI_INFO_NULL, &fr[2 * k + 1]), "MPI_Precv_init fresh", it); /* mana-lint: ignore MPI_Precv_init (idem) */
        }
        /* started in the other order: the pairs match by the order they were made in */
        ok(MPI_Start(&fr[3]), "MPI_Start fresh", it);
        ok(MPI_Start(&fr[2]), "MPI_Start fresh", it);
        ok(MPI_Pready_range(0, P - 1, fr[2]), "MPI_Pready_range fresh", it);
        ok(MPI_Start(&fr[1]), "MPI_Start fresh", it);
        ok(MPI_Start(&fr[0]), "MPI_Start fresh", it);
        ok(MPI_Pready_range(0, P - 1, fr[0]), "MPI_Pready_range fresh", it);
        MPI_Status fst[4];
        ok(MPI_Waitall(4, fr, fst), "MPI_Waitall fresh", it);
        for (int k = 0; k < 2; k++) {
            check_status(&fst[2 * k + 1], rleft, 9, "fresh receive", it);
            for (int p = 0; p < P; p++) check_part(frb[k], rleft, it, p, 2 + k, "fresh");
            h = mt_hash(h, frb[k], sizeof frb[k]);
            ok(MPI_Request_free(&fr[2 * k]), "MPI_Request_free", it);
            ok(MPI_Request_free(&fr[2 * k + 1]), "MPI_Request_free", it);
        }
        if (mt_done(&run, it)) {
            helper_quit = 1;
            pthread_barrier_wait(&go_bar);
            pthread_join(th, NULL);
            mt_finish(&run, "partitioned", it, h);
            break;
        }
    }
    (void)polls;
    return 0;
}

#else
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mt_out("partitioned: this MPI has no partitioned communication\n");
    MPI_Finalize();
    return 77;
}
#endif
