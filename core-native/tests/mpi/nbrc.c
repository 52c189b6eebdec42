/* nbrc - MPI 4.0's large-count neighbour v and w collectives (MPI_Neighbor_allgatherv_c, _alltoallv_c,
 * _alltoallw_c, their MPI_Ineighbor_ forms and their _init_c persistent forms), which MPICH 4.0 exports
 * and Open MPI 4.1 does not (registered for MPICH only), across checkpoints.
 *
 * MPICH 4.0.2's own give wrong results (tests/mpi/pcolls.c found it), so the runtime runs each through
 * its int form.  Natively (the reference run) this program therefore calls the int forms themselves;
 * under the runtime (MANA_CKPT_DIR set) the _c forms, and also the int forms on the same input, and the
 * two results must be the same bytes.  The checksum of the results is compared with the native run's.
 *
 * Two topologies: a periodic 1-D Cartesian ring, and a distributed graph whose in- and out-neighbours
 * are the ranks one and two to the left and to the right.  Every count and displacement differs by
 * neighbour, with gaps in the receive buffers.  Made before the first iteration: the three persistent
 * _init_c requests on the ring, started every iteration (active while the rank does local work).  Each
 * iteration: the three blocking and the three nonblocking forms on both topologies (the nonblocking
 * ones pending while the rank does local work, so a checkpoint finds them in flight).  Every 25th
 * iteration, under the runtime only: a count above 2^31-1 on a communicator with MPI_ERRORS_RETURN
 * must fail with MPI_ERR_COUNT (blocking, nonblocking and persistent forms), without moving data. */
#include "mpitest.h"

#if MPI_VERSION >= 4

#include <limits.h>

#define NB 4          /* neighbours at most (the graph's two on each side) */
#define SLOT 8        /* ints a neighbour's block may take */

struct io {
    int ag_in[SLOT], ag_out[NB * SLOT];
    int v_in[NB * SLOT], v_out[NB * SLOT];
    int w_in[NB * SLOT], w_out[NB * SLOT];
};

/* one topology: its communicator, degrees and the per-neighbour counts and displacements */
struct topo {
    MPI_Comm comm;
    int indeg, outdeg, ag_sc;
    MPI_Count ag_rc[NB], v_sc[NB], v_rc[NB], w_sc[NB], w_rc[NB];
    MPI_Aint ag_rd[NB], v_sd[NB], v_rd[NB], w_sd[NB], w_rd[NB];
    int iag_rc[NB], iag_rd[NB], iv_sc[NB], iv_sd[NB], iv_rc[NB], iv_rd[NB], iw_sc[NB], iw_rc[NB];
    MPI_Datatype w_st[NB], w_rt[NB];
};

static MPI_Datatype pair;     /* two ints: the w forms' type for some neighbours */

static void ok(int rc, const char *what, long it)
{
    if (rc != MPI_SUCCESS) mt_fail("nbrc: %s failed (error %d) at iteration %ld", what, rc, it);
}

/* Counts and displacements: every neighbour block of its own size; the allgatherv's send count is
 * the sender's own (1 + rank % 3), so each receive count is that of the neighbour it comes from. */
static void layout(struct topo *t, const int *srcs)
{
    t->ag_sc = 0;
    int me;
    MPI_Comm_rank(t->comm, &me);
    t->ag_sc = 1 + me % 3;
    for (int k = 0; k < t->indeg; k++) {
        t->ag_rc[k] = 1 + srcs[k] % 3;
        t->ag_rd[k] = (MPI_Aint)k * SLOT + 1;                  /* a gap before each block */
        t->v_rc[k] = 2;
        t->v_rd[k] = (MPI_Aint)k * SLOT + 2;
        t->w_rc[k] = k % 2 ? 1 : 2;                            /* odd neighbours: one pair, even: two ints */
        t->w_rt[k] = k % 2 ? pair : MPI_INT;
        t->w_rd[k] = (MPI_Aint)(k * SLOT + 3) * (MPI_Aint)sizeof(int);
    }
    for (int k = 0; k < t->outdeg; k++) {
        t->v_sc[k] = 2;
        t->v_sd[k] = (MPI_Aint)k * SLOT + k;
        t->w_sc[k] = 2;
        t->w_st[k] = MPI_INT;
        t->w_sd[k] = (MPI_Aint)(k * SLOT) * (MPI_Aint)sizeof(int);
    }
    for (int k = 0; k < NB; k++) {
        t->iag_rc[k] = (int)t->ag_rc[k];
        t->iag_rd[k] = (int)t->ag_rd[k];
        t->iv_sc[k] = (int)t->v_sc[k];
        t->iv_sd[k] = (int)t->v_sd[k];
        t->iv_rc[k] = (int)t->v_rc[k];
        t->iv_rd[k] = (int)t->v_rd[k];
        t->iw_sc[k] = (int)t->w_sc[k];
        t->iw_rc[k] = (int)t->w_rc[k];
    }
}

static void fill(struct io *b, int rank, long it, int salt)
{
    memset(b, 0, sizeof *b);
    for (int i = 0; i < SLOT; i++) b->ag_in[i] = rank * 100 + (int)it + i + salt;
    for (int i = 0; i < NB * SLOT; i++) {
        b->v_in[i] = -(rank * 1000 + i) - (int)it - salt;
        b->w_in[i] = rank * 7 + i * 3 + (int)it + salt;
    }
}

/* The int forms (blocking or nonblocking): the reference, natively and under the runtime. */
static void run_int(struct topo *t, struct io *b, int nonblocking, long it)
{
    if (!nonblocking) {
        ok(MPI_Neighbor_allgatherv(b->ag_in, t->ag_sc, MPI_INT, b->ag_out, t->iag_rc, t->iag_rd, MPI_INT, t->comm),
           "MPI_Neighbor_allgatherv", it);
        ok(MPI_Neighbor_alltoallv(b->v_in, t->iv_sc, t->iv_sd, MPI_INT, b->v_out, t->iv_rc, t->iv_rd, MPI_INT, t->comm),
           "MPI_Neighbor_alltoallv", it);
        ok(MPI_Neighbor_alltoallw(b->w_in, t->iw_sc, t->w_sd, t->w_st, b->w_out, t->iw_rc, t->w_rd, t->w_rt, t->comm),
           "MPI_Neighbor_alltoallw", it);
        return;
    }
    MPI_Request q[3];
    ok(MPI_Ineighbor_allgatherv(b->ag_in, t->ag_sc, MPI_INT, b->ag_out, t->iag_rc, t->iag_rd, MPI_INT, t->comm, &q[0]),
       "MPI_Ineighbor_allgatherv", it);
    ok(MPI_Ineighbor_alltoallv(b->v_in, t->iv_sc, t->iv_sd, MPI_INT, b->v_out, t->iv_rc, t->iv_rd, MPI_INT, t->comm,
                               &q[1]), "MPI_Ineighbor_alltoallv", it);
    ok(MPI_Ineighbor_alltoallw(b->w_in, t->iw_sc, t->w_sd, t->w_st, b->w_out, t->iw_rc, t->w_rd, t->w_rt, t->comm,
                               &q[2]), "MPI_Ineighbor_alltoallw", it);
    usleep(200);
    MPI_Status st[3];
    ok(MPI_Waitall(3, q, st), "MPI_Waitall (int forms)", it);
}

/* The large-count forms (under the runtime only). */
static void run_c(struct topo *t, struct io *b, int nonblocking, long it)
{
    if (!nonblocking) {
        /* mana-lint: ignore MPI_Neighbor_allgatherv_c (partial: counts above 2^31-1; the test checks that refusal) */
        ok(MPI_Neighbor_allgatherv_c(b->ag_in, t->ag_sc, MPI_INT, b->ag_out, t->ag_rc, t->ag_rd, MPI_INT, t->comm),
           "MPI_Neighbor_allgatherv_c", it);
        /* mana-lint: ignore MPI_Neighbor_alltoallv_c (partial: counts above 2^31-1; the test checks that refusal) */
        ok(MPI_Neighbor_alltoallv_c(b->v_in, t->v_sc, t->v_sd, MPI_INT, b->v_out, t->v_rc, t->v_rd, MPI_INT, t->comm),
           "MPI_Neighbor_alltoallv_c", it);
        /* mana-lint: ignore MPI_Neighbor_alltoallw_c (partial: counts above 2^31-1; the test checks that refusal) */
        ok(MPI_Neighbor_alltoallw_c(b->w_in, t->w_sc, t->w_sd, t->w_st, b->w_out, t->w_rc, t->w_rd, t->w_rt, t->comm),
           "MPI_Neighbor_alltoallw_c", it);
        return;
    }
    MPI_Request q[3];
    /* mana-lint: ignore MPI_Ineighbor_allgatherv_c (partial: counts above 2^31-1; the test checks that refusal) */
    ok(MPI_Ineighbor_allgatherv_c(b->ag_in, t->ag_sc, MPI_INT, b->ag_out, t->ag_rc, t->ag_rd, MPI_INT, t->comm, &q[0]),
       "MPI_Ineighbor_allgatherv_c", it);
    /* mana-lint: ignore MPI_Ineighbor_alltoallv_c (partial: counts above 2^31-1; the test checks that refusal) */
    ok(MPI_Ineighbor_alltoallv_c(b->v_in, t->v_sc, t->v_sd, MPI_INT, b->v_out, t->v_rc, t->v_rd, MPI_INT, t->comm,
                                 &q[1]), "MPI_Ineighbor_alltoallv_c", it);
    /* mana-lint: ignore MPI_Ineighbor_alltoallw_c (partial: counts above 2^31-1; the test checks that refusal) */
    ok(MPI_Ineighbor_alltoallw_c(b->w_in, t->w_sc, t->w_sd, t->w_st, b->w_out, t->w_rc, t->w_rd, t->w_rt, t->comm,
                                 &q[2]), "MPI_Ineighbor_alltoallw_c", it);
    usleep(200);
    MPI_Status st[3];
    ok(MPI_Waitall(3, q, st), "MPI_Waitall (large-count forms)", it);
}

/* Under the runtime: a count above 2^31-1 fails with MPI_ERR_COUNT, in every form (t->comm's error
 * handler is MPI_ERRORS_RETURN here: a dup of the ring made for it). */
static void too_large(MPI_Comm c, struct topo *t, struct io *b, long it)
{
    MPI_Count big[NB];
    MPI_Aint bigd[NB];
    for (int k = 0; k < NB; k++) { big[k] = (MPI_Count)INT_MAX + 1 + k; bigd[k] = (MPI_Aint)INT_MAX + 8; }
    MPI_Request q = MPI_REQUEST_NULL;
    int rc[6], cls;
    /* mana-lint: ignore MPI_Neighbor_alltoallv_c (partial: counts above 2^31-1; the test checks that refusal) */
    rc[0] = MPI_Neighbor_alltoallv_c(b->v_in, big, t->v_sd, MPI_INT, b->v_out, t->v_rc, t->v_rd, MPI_INT, c);
    /* mana-lint: ignore MPI_Neighbor_allgatherv_c (partial: counts above 2^31-1; the test checks that refusal) */
    rc[1] = MPI_Neighbor_allgatherv_c(b->ag_in, t->ag_sc, MPI_INT, b->ag_out, t->ag_rc, bigd, MPI_INT, c);
    /* mana-lint: ignore MPI_Neighbor_alltoallw_c (partial: counts above 2^31-1; the test checks that refusal) */
    rc[2] = MPI_Neighbor_alltoallw_c(b->w_in, t->w_sc, t->w_sd, t->w_st, b->w_out, big, t->w_rd, t->w_rt, c);
    /* mana-lint: ignore MPI_Ineighbor_alltoallw_c (partial: counts above 2^31-1; the test checks that refusal) */
    rc[3] = MPI_Ineighbor_alltoallw_c(b->w_in, big, t->w_sd, t->w_st, b->w_out, t->w_rc, t->w_rd, t->w_rt, c, &q);
    /* mana-lint: ignore MPI_Ineighbor_allgatherv_c (partial: counts above 2^31-1; the test checks that refusal) */
    rc[4] = MPI_Ineighbor_allgatherv_c(b->ag_in, (MPI_Count)INT_MAX + 2, MPI_INT, b->ag_out, t->ag_rc, t->ag_rd,
                                       MPI_INT, c, &q);
    /* mana-lint: ignore MPI_Neighbor_alltoallv_init_c (partial: counts above 2^31-1; the test checks that refusal) */
    rc[5] = MPI_Neighbor_alltoallv_init_c(b->v_in, t->v_sc, t->v_sd, MPI_INT, b->v_out, t->v_rc, bigd, MPI_INT, c,
                                          MPI_INFO_NULL, &q);
    for (int i = 0; i < 6; i++) {
        MPI_Error_class(rc[i], &cls);
        if (cls != MPI_ERR_COUNT) mt_fail("nbrc: a count above 2^31-1 (call %d) gave error %d (class %d), want MPI_ERR_COUNT at iteration %ld",
                                          i, rc[i], cls, it);
    }
    if (q != MPI_REQUEST_NULL) mt_fail("nbrc: a refused call made a request");
}

static uint64_t h = MT_HASH0;

static void compare_hash(const struct io *c, const struct io *ref, const char *what, long it)
{
    if (memcmp(c, ref, sizeof *c) != 0) {
        for (size_t i = 0; i < sizeof *c / sizeof(int); i++)
            if (((const int *)c)[i] != ((const int *)ref)[i])
                mt_fail("nbrc: %s: the large-count form's result differs from the int form's at int %zu (%d, want %d) at iteration %ld",
                        what, i, ((const int *)c)[i], ((const int *)ref)[i], it);
    }
    h = mt_hash(h, c, sizeof *c);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int rank = r.rank, size = r.size;
    int under = getenv("MANA_CKPT_DIR") != NULL;         /* under the runtime (mana_launch sets it) */
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    /* the ring and the graph */
    struct topo ring, graph;
    memset(&ring, 0, sizeof ring);
    memset(&graph, 0, sizeof graph);
    int dims[1] = { size }, periods[1] = { 1 };
    ok(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring.comm), "MPI_Cart_create", 0);
    ring.indeg = ring.outdeg = 2;
    int rsrc[2];
    ok(MPI_Cart_shift(ring.comm, 0, 1, &rsrc[0], &rsrc[1]), "MPI_Cart_shift", 0);
    layout(&ring, rsrc);
    int gsrc[2] = { (rank + size - 1) % size, (rank + 2 * size - 2) % size };
    int gdst[2] = { (rank + 1) % size, (rank + 2) % size };
    /* mana-lint: ignore MPI_Dist_graph_create_adjacent (partial: info hints; none given here) */
    ok(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, gsrc, MPI_UNWEIGHTED, 2, gdst, MPI_UNWEIGHTED,
                                      MPI_INFO_NULL, 0, &graph.comm), "MPI_Dist_graph_create_adjacent", 0);
    graph.indeg = graph.outdeg = 2;
    layout(&graph, gsrc);
    MPI_Comm errring;
    ok(MPI_Comm_dup(ring.comm, &errring), "MPI_Comm_dup", 0);
    MPI_Comm_set_errhandler(errring, MPI_ERRORS_RETURN);
    /* the persistent requests (under the runtime: their _init_c forms; natively their nonblocking int
     * forms are started in their place every iteration) */
    struct io pb, pref;
    MPI_Request pq[3];
    if (under) {
        /* mana-lint: ignore MPI_Neighbor_allgatherv_init_c (partial: counts above 2^31-1; the test checks that refusal) */
        ok(MPI_Neighbor_allgatherv_init_c(pb.ag_in, ring.ag_sc, MPI_INT, pb.ag_out, ring.ag_rc, ring.ag_rd, MPI_INT,
                                          ring.comm, MPI_INFO_NULL, &pq[0]), "MPI_Neighbor_allgatherv_init_c", 0);
        /* mana-lint: ignore MPI_Neighbor_alltoallv_init_c (partial: counts above 2^31-1; the test checks that refusal) */
        ok(MPI_Neighbor_alltoallv_init_c(pb.v_in, ring.v_sc, ring.v_sd, MPI_INT, pb.v_out, ring.v_rc, ring.v_rd,
                                         MPI_INT, ring.comm, MPI_INFO_NULL, &pq[1]), "MPI_Neighbor_alltoallv_init_c", 0);
        /* mana-lint: ignore MPI_Neighbor_alltoallw_init_c (partial: counts above 2^31-1; the test checks that refusal) */
        ok(MPI_Neighbor_alltoallw_init_c(pb.w_in, ring.w_sc, ring.w_sd, ring.w_st, pb.w_out, ring.w_rc, ring.w_rd,
                                         ring.w_rt, ring.comm, MPI_INFO_NULL, &pq[2]), "MPI_Neighbor_alltoallw_init_c", 0);
    }
    struct io b, ref;
    long it = 0;
    do {
        it++;
        for (int nb = 0; nb < 2; nb++) {
            struct topo *ts[2] = { &ring, &graph };
            for (int k = 0; k < 2; k++) {
                fill(&ref, rank, it, 10 * nb + k);
                run_int(ts[k], &ref, nb, it);
                if (under) {
                    fill(&b, rank, it, 10 * nb + k);
                    run_c(ts[k], &b, nb, it);
                    compare_hash(&b, &ref, nb ? "a nonblocking form" : "a blocking form", it);
                } else {
                    h = mt_hash(h, &ref, sizeof ref);
                }
            }
        }
        /* the persistent ones */
        fill(&pref, rank, it, 77);
        run_int(&ring, &pref, 1, it);
        if (under) {
            fill(&pb, rank, it, 77);
            ok(MPI_Startall(3, pq), "MPI_Startall", it);
            usleep(200);
            MPI_Status st[3];
            ok(MPI_Waitall(3, pq, st), "MPI_Waitall (persistent)", it);
            compare_hash(&pb, &pref, "a persistent form", it);
        } else {
            h = mt_hash(h, &pref, sizeof pref);
        }
        if (under && (it == 1 || it % 25 == 0)) too_large(errring, &ring, &b, it);
    } while (!mt_done(&r, it));
    for (int i = 0; under && i < 3; i++) ok(MPI_Request_free(&pq[i]), "MPI_Request_free", it);
    MPI_Comm_free(&errring);
    MPI_Comm_free(&graph.comm);
    MPI_Comm_free(&ring.comm);
    MPI_Type_free(&pair);
    mt_finish(&r, "nbrc", it, h);
    return 0;
}

#else
int main(void)
{
    fprintf(stderr, "nbrc: needs MPI 4.0's large-count calls (MPICH 4.0 has them)\n");
    return 77;
}
#endif
