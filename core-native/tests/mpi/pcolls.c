/* pcolls - MPI 4.0 persistent collectives (MPICH 4.0; Open MPI 4.1 has them only as MPIX_ extensions,
 * so the test is registered for MPICH only), made once and started every iteration, active across
 * checkpoints.
 *
 * Made before the loop: Barrier_init, Bcast_init, Allreduce_init, Reduce_init, Scan_init, Exscan_init,
 * Allgather_init, Allgatherv_init, Alltoall_init, Alltoallv_init, Alltoallw_init, Gather_init,
 * Gatherv_init, Scatter_init, Scatterv_init, Reduce_scatter_init, Reduce_scatter_block_init,
 * Neighbor_allgather_init and Neighbor_alltoall_init on a periodic ring, and the large-count forms
 * Bcast_init_c, Allreduce_init_c, Allgatherv_init_c; and the large-count twin of every other one (the int
 * form started on odd iterations, the _c form on even ones).  Each
 * iteration starts all of them (MPI_Startall), does
 * local work, waits, checks every result and restarts a few alone with MPI_Start.  Then two more, a
 * Bcast_init and an Allreduce_init made for this, are started in opposite orders on even and odd ranks
 * and waited for together (a persistent collective is matched by its initialization, not by its start:
 * MPICH's coll/p_order; natively, the reference, their nonblocking twins in one order). */
#include "mpitest.h"

#if MPI_VERSION >= 4

#define NREQ 37
/* Requests 22..36 are the large-count twins of these (same buffers): each iteration starts one of the
 * pair, the int form on odd iterations, the _c form on even ones.  (Not the neighbour v and w forms'
 * _c twins: MPICH 4.0.2's own MPI_Ineighbor_*v_c/w_c, which each start runs, crash on a 1-rank ring and
 * give wrong data on 2 ranks; policy.tsv leaves them unsupported.) */
static const int twin_of[15] = { 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18 };

static int started_now(int i, long it)
{
    if (i >= 22) return it % 2 == 0;
    for (int k = 0; k < 15; k++) if (twin_of[k] == i) return it % 2 == 1;
    return 1;
}
#define MAXP 8

struct bufs {
    long bc, ar_in, ar_out, red, scan, exscan, bc_c, ar_c_in, ar_c_out;
    int ag_in[2], ag_out[2 * MAXP], agv_in, agv_out[MAXP], agvc_out[MAXP];
    int a2a_in[MAXP], a2a_out[MAXP], a2av_in[MAXP], a2av_out[MAXP], a2aw_in[MAXP], a2aw_out[MAXP];
    int g_in, g_out[MAXP], gv_in, gv_out[MAXP], sc_in[MAXP], sc_out, scv_in[MAXP], scv_out;
    int rs_in[MAXP], rs_out, rsb_in[MAXP], rsb_out, nag_in, nag_out[2], na2a_in[2], na2a_out[2];
};

static void fill(struct bufs *b, int rank, int size, long it)
{
    b->bc = rank == 0 ? it * 11 : -1;
    b->bc_c = rank == 0 ? it * 13 : -1;
    b->ar_in = rank + it;
    b->ar_c_in = rank * 2 + it;
    b->ag_in[0] = rank;
    b->ag_in[1] = (int)it;
    b->agv_in = rank * 100 + (int)it;
    for (int i = 0; i < size; i++) {
        b->a2a_in[i] = rank * 1000 + i + (int)it;
        b->a2av_in[i] = rank * 10 + i;
        b->a2aw_in[i] = -(rank * 10 + i) - (int)it;
        b->sc_in[i] = i * 7 + (int)it;
        b->scv_in[i] = i * 9 - (int)it;
        b->rs_in[i] = rank + i;
        b->rsb_in[i] = rank * i + (int)it;
    }
    b->g_in = rank + (int)it;
    b->gv_in = rank * 3 + (int)it;
    b->nag_in = rank + 50 * (int)it;
    b->na2a_in[0] = rank * 2;
    b->na2a_in[1] = rank * 2 + 1;
}

static void check(const struct bufs *b, int rank, int size, long it)
{
    long sum = (long)size * (size - 1) / 2 + (long)size * it;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    if (b->bc != it * 11 || b->bc_c != it * 13) mt_fail("Bcast_init: %ld %ld", b->bc, b->bc_c);
    if (b->ar_out != sum) mt_fail("Allreduce_init: %ld, want %ld", b->ar_out, sum);
    if (b->ar_c_out != (long)size * (size - 1) + (long)size * it) mt_fail("Allreduce_init_c: %ld", b->ar_c_out);
    if (rank == 0 && b->red != sum) mt_fail("Reduce_init: %ld", b->red);
    long sc = (long)rank * (rank + 1) / 2 + (long)(rank + 1) * it;
    if (b->scan != sc) mt_fail("Scan_init: %ld, want %ld", b->scan, sc);
    if (rank > 0 && b->exscan != sc - rank - it) mt_fail("Exscan_init: %ld", b->exscan);
    for (int i = 0; i < size; i++) {
        if (b->ag_out[2 * i] != i || b->ag_out[2 * i + 1] != (int)it) mt_fail("Allgather_init [%d]", i);
        if (b->agv_out[i] != i * 100 + (int)it || b->agvc_out[i] != i * 100 + (int)it) mt_fail("Allgatherv_init [%d]", i);
        if (b->a2a_out[i] != i * 1000 + rank + (int)it) mt_fail("Alltoall_init [%d] %d", i, b->a2a_out[i]);
        if (b->a2av_out[i] != i * 10 + rank) mt_fail("Alltoallv_init [%d]", i);
        if (b->a2aw_out[i] != -(i * 10 + rank) - (int)it) mt_fail("Alltoallw_init [%d]", i);
        if (rank == 0 && b->g_out[i] != i + (int)it) mt_fail("Gather_init [%d]: %d", i, b->g_out[i]);
        if (rank == 0 && b->gv_out[i] != i * 3 + (int)it) mt_fail("Gatherv_init [%d]: %d", i, b->gv_out[i]);
    }
    if (b->sc_out != rank * 7 + (int)it || b->scv_out != rank * 9 - (int)it) mt_fail("Scatter(v)_init: %d %d", b->sc_out, b->scv_out);
    if (b->rs_out != size * (size - 1) / 2 + size * rank) mt_fail("Reduce_scatter_init: %d", b->rs_out);
    if (b->rsb_out != rank * size * (size - 1) / 2 + size * (int)it) mt_fail("Reduce_scatter_block_init: %d", b->rsb_out);
    /* periodic ring: neighbours are (left, right) in that order */
    if (b->nag_out[0] != left + 50 * (int)it || b->nag_out[1] != right + 50 * (int)it) mt_fail("Neighbor_allgather_init");
    if (b->na2a_out[0] != left * 2 + 1 || b->na2a_out[1] != right * 2) mt_fail("Neighbor_alltoall_init: %d %d", b->na2a_out[0], b->na2a_out[1]);
}

/* Request i: persistent (under the runtime), or (natively, the reference run) its nonblocking twin
 * posted anew at every start: MPICH 4.0.2's own persistent collectives give wrong results (MPI_Allgather_init
 * hands back the first start's contributions of the other ranks at every later start; MPI_Gather_init reads
 * its send buffer when it is made) and fail when several are active, so natively they cannot be the
 * reference.  Under the runtime every start posts the nonblocking twin too, but through MPI_Start of the
 * program's persistent request, which is what this test is about. */
static MPI_Datatype pair;     /* two ints; under the runtime freed right after the persistent requests are made */

static MPI_Aint wdispls_c[MAXP];   /* byte displacements of the _c "w" forms */

static int pc_req(int i, int persistent, struct bufs *pb, MPI_Comm w, MPI_Comm ring, MPI_Info info, int *ones,
                  int *displs, MPI_Count *ones_c, MPI_Aint *displs_c, MPI_Datatype *ints, int *wdispls, MPI_Request *q)
{
    struct bufs *bp = pb;
#define b (*bp)
    if (persistent) {
        switch (i) {
        case 0: return MPI_Barrier_init(w, info, q);
        case 1: return MPI_Bcast_init(&b.bc, 1, MPI_LONG, 0, w, info, q);
        case 2: return MPI_Allreduce_init(&b.ar_in, &b.ar_out, 1, MPI_LONG, MPI_SUM, w, info, q);
        case 3: return MPI_Reduce_init(&b.ar_in, &b.red, 1, MPI_LONG, MPI_SUM, 0, w, info, q);
        case 4: return MPI_Scan_init(&b.ar_in, &b.scan, 1, MPI_LONG, MPI_SUM, w, info, q);
        case 5: return MPI_Exscan_init(&b.ar_in, &b.exscan, 1, MPI_LONG, MPI_SUM, w, info, q);
        case 6: return MPI_Allgather_init(b.ag_in, 1, pair, b.ag_out, 1, pair, w, info, q);
        case 7: return MPI_Allgatherv_init(&b.agv_in, 1, MPI_INT, b.agv_out, ones, displs, MPI_INT, w, info, q);
        case 8: return MPI_Alltoall_init(b.a2a_in, 1, MPI_INT, b.a2a_out, 1, MPI_INT, w, info, q);
        case 9: return MPI_Alltoallv_init(b.a2av_in, ones, displs, MPI_INT, b.a2av_out, ones, displs, MPI_INT, w, info, q);
        case 10: return MPI_Alltoallw_init(b.a2aw_in, ones, wdispls, ints, b.a2aw_out, ones, wdispls, ints, w, info, q);
        case 11: return MPI_Gather_init(&b.g_in, 1, MPI_INT, b.g_out, 1, MPI_INT, 0, w, info, q);
        case 12: return MPI_Gatherv_init(&b.gv_in, 1, MPI_INT, b.gv_out, ones, displs, MPI_INT, 0, w, info, q);
        case 13: return MPI_Scatter_init(b.sc_in, 1, MPI_INT, &b.sc_out, 1, MPI_INT, 0, w, info, q);
        case 14: return MPI_Scatterv_init(b.scv_in, ones, displs, MPI_INT, &b.scv_out, 1, MPI_INT, 0, w, info, q);
        case 15: return MPI_Reduce_scatter_init(b.rs_in, &b.rs_out, ones, MPI_INT, MPI_SUM, w, info, q);
        case 16: return MPI_Reduce_scatter_block_init(b.rsb_in, &b.rsb_out, 1, MPI_INT, MPI_SUM, w, info, q);
        case 17: return MPI_Neighbor_allgather_init(&b.nag_in, 1, MPI_INT, b.nag_out, 1, MPI_INT, ring, info, q);
        case 18: return MPI_Neighbor_alltoall_init(b.na2a_in, 1, MPI_INT, b.na2a_out, 1, MPI_INT, ring, info, q);
        case 19: return MPI_Bcast_init_c(&b.bc_c, (MPI_Count)1, MPI_LONG, 0, w, info, q);
        case 20: return MPI_Allreduce_init_c(&b.ar_c_in, &b.ar_c_out, (MPI_Count)1, MPI_LONG, MPI_SUM, w, info, q);
        case 21: return MPI_Allgatherv_init_c(&b.agv_in, (MPI_Count)1, MPI_INT, b.agvc_out, ones_c, displs_c, MPI_INT, w, info, q);
        case 22: return MPI_Reduce_init_c(&b.ar_in, &b.red, (MPI_Count)1, MPI_LONG, MPI_SUM, 0, w, info, q);
        case 23: return MPI_Scan_init_c(&b.ar_in, &b.scan, (MPI_Count)1, MPI_LONG, MPI_SUM, w, info, q);
        case 24: return MPI_Exscan_init_c(&b.ar_in, &b.exscan, (MPI_Count)1, MPI_LONG, MPI_SUM, w, info, q);
        case 25: return MPI_Allgather_init_c(b.ag_in, (MPI_Count)1, pair, b.ag_out, (MPI_Count)1, pair, w, info, q);
        case 26: return MPI_Alltoall_init_c(b.a2a_in, (MPI_Count)1, MPI_INT, b.a2a_out, (MPI_Count)1, MPI_INT, w, info, q);
        case 27: return MPI_Alltoallv_init_c(b.a2av_in, ones_c, displs_c, MPI_INT, b.a2av_out, ones_c, displs_c, MPI_INT, w, info, q);
        case 28: return MPI_Alltoallw_init_c(b.a2aw_in, ones_c, wdispls_c, ints, b.a2aw_out, ones_c, wdispls_c, ints, w, info, q);
        case 29: return MPI_Gather_init_c(&b.g_in, (MPI_Count)1, MPI_INT, b.g_out, (MPI_Count)1, MPI_INT, 0, w, info, q);
        case 30: return MPI_Gatherv_init_c(&b.gv_in, (MPI_Count)1, MPI_INT, b.gv_out, ones_c, displs_c, MPI_INT, 0, w, info, q);
        case 31: return MPI_Scatter_init_c(b.sc_in, (MPI_Count)1, MPI_INT, &b.sc_out, (MPI_Count)1, MPI_INT, 0, w, info, q);
        case 32: return MPI_Scatterv_init_c(b.scv_in, ones_c, displs_c, MPI_INT, &b.scv_out, (MPI_Count)1, MPI_INT, 0, w, info, q);
        case 33: return MPI_Reduce_scatter_init_c(b.rs_in, &b.rs_out, ones_c, MPI_INT, MPI_SUM, w, info, q);
        case 34: return MPI_Reduce_scatter_block_init_c(b.rsb_in, &b.rsb_out, (MPI_Count)1, MPI_INT, MPI_SUM, w, info, q);
        case 35: return MPI_Neighbor_allgather_init_c(&b.nag_in, (MPI_Count)1, MPI_INT, b.nag_out, (MPI_Count)1, MPI_INT, ring, info, q);
        case 36: return MPI_Neighbor_alltoall_init_c(b.na2a_in, (MPI_Count)1, MPI_INT, b.na2a_out, (MPI_Count)1, MPI_INT, ring, info, q);
        }
    } else {
        switch (i) {
        case 0: return MPI_Ibarrier(w, q);
        case 1: return MPI_Ibcast(&b.bc, 1, MPI_LONG, 0, w, q);
        case 2: return MPI_Iallreduce(&b.ar_in, &b.ar_out, 1, MPI_LONG, MPI_SUM, w, q);
        case 3: return MPI_Ireduce(&b.ar_in, &b.red, 1, MPI_LONG, MPI_SUM, 0, w, q);
        case 4: return MPI_Iscan(&b.ar_in, &b.scan, 1, MPI_LONG, MPI_SUM, w, q);
        case 5: return MPI_Iexscan(&b.ar_in, &b.exscan, 1, MPI_LONG, MPI_SUM, w, q);
        case 6: return MPI_Iallgather(b.ag_in, 1, pair, b.ag_out, 1, pair, w, q);
        case 7: return MPI_Iallgatherv(&b.agv_in, 1, MPI_INT, b.agv_out, ones, displs, MPI_INT, w, q);
        case 8: return MPI_Ialltoall(b.a2a_in, 1, MPI_INT, b.a2a_out, 1, MPI_INT, w, q);
        case 9: return MPI_Ialltoallv(b.a2av_in, ones, displs, MPI_INT, b.a2av_out, ones, displs, MPI_INT, w, q);
        case 10: return MPI_Ialltoallw(b.a2aw_in, ones, wdispls, ints, b.a2aw_out, ones, wdispls, ints, w, q);
        case 11: return MPI_Igather(&b.g_in, 1, MPI_INT, b.g_out, 1, MPI_INT, 0, w, q);
        case 12: return MPI_Igatherv(&b.gv_in, 1, MPI_INT, b.gv_out, ones, displs, MPI_INT, 0, w, q);
        case 13: return MPI_Iscatter(b.sc_in, 1, MPI_INT, &b.sc_out, 1, MPI_INT, 0, w, q);
        case 14: return MPI_Iscatterv(b.scv_in, ones, displs, MPI_INT, &b.scv_out, 1, MPI_INT, 0, w, q);
        case 15: return MPI_Ireduce_scatter(b.rs_in, &b.rs_out, ones, MPI_INT, MPI_SUM, w, q);
        case 16: return MPI_Ireduce_scatter_block(b.rsb_in, &b.rsb_out, 1, MPI_INT, MPI_SUM, w, q);
        case 17: return MPI_Ineighbor_allgather(&b.nag_in, 1, MPI_INT, b.nag_out, 1, MPI_INT, ring, q);
        case 18: return MPI_Ineighbor_alltoall(b.na2a_in, 1, MPI_INT, b.na2a_out, 1, MPI_INT, ring, q);
        case 19: return MPI_Ibcast_c(&b.bc_c, (MPI_Count)1, MPI_LONG, 0, w, q);  /* mana-lint: ignore (native reference run only) */
        case 20: return MPI_Iallreduce_c(&b.ar_c_in, &b.ar_c_out, (MPI_Count)1, MPI_LONG, MPI_SUM, w, q);  /* mana-lint: ignore (native reference run only) */
        case 21: return MPI_Iallgatherv_c(&b.agv_in, (MPI_Count)1, MPI_INT, b.agvc_out, ones_c, displs_c, MPI_INT, w, q);  /* mana-lint: ignore (native reference run only) */
        case 22: return MPI_Ireduce_c(&b.ar_in, &b.red, (MPI_Count)1, MPI_LONG, MPI_SUM, 0, w, q);
        case 23: return MPI_Iscan_c(&b.ar_in, &b.scan, (MPI_Count)1, MPI_LONG, MPI_SUM, w, q);
        case 24: return MPI_Iexscan_c(&b.ar_in, &b.exscan, (MPI_Count)1, MPI_LONG, MPI_SUM, w, q);
        case 25: return MPI_Iallgather_c(b.ag_in, (MPI_Count)1, pair, b.ag_out, (MPI_Count)1, pair, w, q);
        case 26: return MPI_Ialltoall_c(b.a2a_in, (MPI_Count)1, MPI_INT, b.a2a_out, (MPI_Count)1, MPI_INT, w, q);
        case 27: return MPI_Ialltoallv_c(b.a2av_in, ones_c, displs_c, MPI_INT, b.a2av_out, ones_c, displs_c, MPI_INT, w, q);
        case 28: return MPI_Ialltoallw_c(b.a2aw_in, ones_c, wdispls_c, ints, b.a2aw_out, ones_c, wdispls_c, ints, w, q);
        case 29: return MPI_Igather_c(&b.g_in, (MPI_Count)1, MPI_INT, b.g_out, (MPI_Count)1, MPI_INT, 0, w, q);
        case 30: return MPI_Igatherv_c(&b.gv_in, (MPI_Count)1, MPI_INT, b.gv_out, ones_c, displs_c, MPI_INT, 0, w, q);
        case 31: return MPI_Iscatter_c(b.sc_in, (MPI_Count)1, MPI_INT, &b.sc_out, (MPI_Count)1, MPI_INT, 0, w, q);
        case 32: return MPI_Iscatterv_c(b.scv_in, ones_c, displs_c, MPI_INT, &b.scv_out, (MPI_Count)1, MPI_INT, 0, w, q);
        case 33: return MPI_Ireduce_scatter_c(b.rs_in, &b.rs_out, ones_c, MPI_INT, MPI_SUM, w, q);
        case 34: return MPI_Ireduce_scatter_block_c(b.rsb_in, &b.rsb_out, (MPI_Count)1, MPI_INT, MPI_SUM, w, q);
        case 35: return MPI_Ineighbor_allgather_c(&b.nag_in, (MPI_Count)1, MPI_INT, b.nag_out, (MPI_Count)1, MPI_INT, ring, q);
        case 36: return MPI_Ineighbor_alltoall_c(b.na2a_in, (MPI_Count)1, MPI_INT, b.na2a_out, (MPI_Count)1, MPI_INT, ring, q);
        }
    }
#undef b
    return MPI_ERR_ARG;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int rank = r.rank, size = r.size;
    if (size > MAXP) mt_fail("at most %d ranks", MAXP);
    MPI_Comm w = MPI_COMM_WORLD, ring;
    int dims[1] = { size }, periods[1] = { 1 };
    MPI_Cart_create(w, 1, dims, periods, 0, &ring);
    static struct bufs b;
    MPI_Info info = MPI_INFO_NULL;
    MPI_Request q[NREQ];
    int ones[MAXP], displs[MAXP];
    MPI_Count ones_c[MAXP];
    MPI_Aint displs_c[MAXP];
    MPI_Datatype ints[MAXP];
    int wdispls[MAXP];
    for (int i = 0; i < size; i++) {
        ones[i] = 1;
        displs[i] = i;
        ones_c[i] = 1;
        displs_c[i] = i;
        ints[i] = MPI_INT;
        wdispls[i] = i * (int)sizeof(int);
        wdispls_c[i] = (MPI_Aint)i * (MPI_Aint)sizeof(int);
    }
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int persistent = getenv("MANA_CKPT_DIR") != NULL;        /* under the runtime (mana_launch sets it) */
    int n = NREQ;
    for (int i = 0; persistent && i < NREQ; i++)
        if (pc_req(i, 1, &b, w, ring, info, ones, displs, ones_c, displs_c, ints, wdispls, &q[i]) != MPI_SUCCESS)
            mt_fail("persistent collective %d: init failed", i);
    if (persistent) MPI_Type_free(&pair);                      /* the request keeps it */
    long po_val = 0, po_in = 0, po_out = 0;                     /* started out of order (above) */
    MPI_Request po[2];
    if (persistent && (MPI_Bcast_init(&po_val, 1, MPI_LONG, 0, w, info, &po[0]) != MPI_SUCCESS ||
                       MPI_Allreduce_init(&po_in, &po_out, 1, MPI_LONG, MPI_SUM, w, info, &po[1]) != MPI_SUCCESS))
        mt_fail("the out-of-order pair: init failed");
    if (n != NREQ) mt_fail("made %d requests", n);

    uint64_t h = MT_HASH0;
    long it = 0;
    MPI_Status st[NREQ];
    do {
        it++;
        fill(&b, rank, size, it);
        /* one active at a time, as the native reference run needs (see pc_req) */
        for (int i = 0; i < NREQ; i++) {
            if (!started_now(i, it)) continue;
            if (persistent) MPI_Start(&q[i]);
            else pc_req(i, 0, &b, w, ring, info, ones, displs, ones_c, displs_c, ints, wdispls, &q[i]);
            if (i % 4 == 0) usleep(50);               /* local work while it is active */
            if (MPI_Wait(&q[i], &st[i]) != MPI_SUCCESS) mt_fail("Wait of persistent collective %d", i);
        }
        for (int i = 0; persistent && i < NREQ; i++)
            if (q[i] == MPI_REQUEST_NULL) mt_fail("request %d freed by its completion", i);
        check(&b, rank, size, it);
        h = mt_hash(h, &b, sizeof b);
        /* one alone, with MPI_Start and MPI_Test */
        b.ar_in = rank * 5 + it;
        if (persistent) MPI_Start(&q[2]);
        else pc_req(2, 0, &b, w, ring, info, ones, displs, ones_c, displs_c, ints, wdispls, &q[2]);
        int flag = 0;
        while (!flag) MPI_Test(&q[2], &flag, MPI_STATUS_IGNORE);
        if (b.ar_out != 5L * size * (size - 1) / 2 + size * it) mt_fail("Allreduce_init restarted: %ld", b.ar_out);
        h = mt_hash(h, &b.ar_out, sizeof b.ar_out);
        /* two started in opposite orders on even and odd ranks */
        po_val = rank == 0 ? it * 3 : -1;
        po_in = rank + it;
        if (!persistent) {
            MPI_Ibcast(&po_val, 1, MPI_LONG, 0, w, &po[0]);
            MPI_Iallreduce(&po_in, &po_out, 1, MPI_LONG, MPI_SUM, w, &po[1]);
        } else if (rank % 2 == 0) {
            MPI_Start(&po[0]);
            MPI_Start(&po[1]);
        } else {
            MPI_Start(&po[1]);
            MPI_Start(&po[0]);
        }
        if (MPI_Waitall(2, po, MPI_STATUSES_IGNORE) != MPI_SUCCESS) mt_fail("iteration %ld: the out-of-order pair's wait", it);
        if (po_val != it * 3 || po_out != (long)size * (size - 1) / 2 + size * it)
            mt_fail("iteration %ld: the out-of-order pair: bcast %ld, allreduce %ld", it, po_val, po_out);
        h = mt_hash(h, &po_val, sizeof po_val);
        h = mt_hash(h, &po_out, sizeof po_out);
    } while (!mt_done(&r, it));
    for (int i = 0; persistent && i < NREQ; i++) MPI_Request_free(&q[i]);
    for (int i = 0; persistent && i < 2; i++) MPI_Request_free(&po[i]);
    if (!persistent) MPI_Type_free(&pair);
    MPI_Comm_free(&ring);
    mt_finish(&r, "pcolls", it, h);
    return 0;
}

#else
int main(void)
{
    fprintf(stderr, "pcolls: needs MPI 4.0's persistent collectives (MPICH 4.0 has them)\n");
    return 77;
}
#endif
