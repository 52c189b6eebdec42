/*
 * coll.c - collectives.  Each one first passes the communicator's sequence gate (coll_enter: the
 * collective drain may hold it there), then runs as one real call in the lower half.  Nonblocking
 * collectives are requests the drain completes before the image is written.
 */
#include "mpi_int.h"

#include <stdlib.h>

#define ALIAS(n) extern __typeof__(PMPI_##n) MPI_##n __attribute__((weak, alias("PMPI_" #n)));

/* User-defined reduction ops run inside the lower half's call: see type.c (op trampolines). */

#define COLL(comm, call) do { MANA_CHECK_INIT(); int rc_; COLL_LOWER(comm_obj(comm), rc_ = call); return rc_; } while (0)

int PMPI_Barrier(MPI_Comm comm) { COLL(comm, real.Barrier(R(comm))); }
ALIAS(Barrier)
int PMPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{ COLL(comm, real.Bcast(buf, count, R(t), root, R(comm))); }
ALIAS(Bcast)
int PMPI_Reduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm)
{ COLL(comm, real.Reduce(s, r, count, R(t), R(op), root, R(comm))); }
ALIAS(Reduce)
int PMPI_Allreduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{ COLL(comm, real.Allreduce(s, r, count, R(t), R(op), R(comm))); }
ALIAS(Allreduce)
int PMPI_Reduce_local(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op)
{ MANA_CHECK_INIT(); int rc; LOWER(rc = real.Reduce_local(s, r, count, R(t), R(op))); return rc; }
ALIAS(Reduce_local)
int PMPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt, MPI_Comm comm)
{ COLL(comm, real.Allgather(s, sc, R(st), r, rcount, R(rt), R(comm))); }
ALIAS(Allgather)
int PMPI_Allgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc[], const int d[], MPI_Datatype rt,
                    MPI_Comm comm)
{ COLL(comm, real.Allgatherv(s, sc, R(st), r, rc, d, R(rt), R(comm))); }
ALIAS(Allgatherv)
int PMPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt, int root, MPI_Comm comm)
{ COLL(comm, real.Gather(s, sc, R(st), r, rcount, R(rt), root, R(comm))); }
ALIAS(Gather)
int PMPI_Gatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc[], const int d[], MPI_Datatype rt,
                 int root, MPI_Comm comm)
{ COLL(comm, real.Gatherv(s, sc, R(st), r, rc, d, R(rt), root, R(comm))); }
ALIAS(Gatherv)
int PMPI_Scatter(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt, int root, MPI_Comm comm)
{ COLL(comm, real.Scatter(s, sc, R(st), r, rcount, R(rt), root, R(comm))); }
ALIAS(Scatter)
int PMPI_Scatterv(const void *s, const int sc[], const int d[], MPI_Datatype st, void *r, int rcount, MPI_Datatype rt,
                  int root, MPI_Comm comm)
{ COLL(comm, real.Scatterv(s, sc, d, R(st), r, rcount, R(rt), root, R(comm))); }
ALIAS(Scatterv)
int PMPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt, MPI_Comm comm)
{ COLL(comm, real.Alltoall(s, sc, R(st), r, rcount, R(rt), R(comm))); }
ALIAS(Alltoall)
int PMPI_Alltoallv(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r, const int rc[],
                   const int rd[], MPI_Datatype rt, MPI_Comm comm)
{ COLL(comm, real.Alltoallv(s, sc, sd, R(st), r, rc, rd, R(rt), R(comm))); }
ALIAS(Alltoallv)
int PMPI_Reduce_scatter(const void *s, void *r, const int rc[], MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{ COLL(comm, real.Reduce_scatter(s, r, rc, R(t), R(op), R(comm))); }
ALIAS(Reduce_scatter)
int PMPI_Reduce_scatter_block(const void *s, void *r, int rc, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{ COLL(comm, real.Reduce_scatter_block(s, r, rc, R(t), R(op), R(comm))); }
ALIAS(Reduce_scatter_block)
int PMPI_Scan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{ COLL(comm, real.Scan(s, r, count, R(t), R(op), R(comm))); }
ALIAS(Scan)
int PMPI_Exscan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{ COLL(comm, real.Exscan(s, r, count, R(t), R(op), R(comm))); }
ALIAS(Exscan)

/* Nonblocking: a request of kind RQ_COLL, completed by the drain if still pending at a checkpoint. */
#define ICOLL(comm, req, call) do { \
        MANA_CHECK_INIT(); \
        MPI_Request rr_; int rc_; \
        struct vobj *v_ = vnew(K_REQ, 0); \
        v_->rkind = RQ_COLL; \
        COLL_LOWER(comm_obj(comm), rc_ = call; \
                   if (rc_ == MPI_SUCCESS) { v_->real = HBITS(rr_); v_->flags |= VF_POSTED; }); \
        if (rc_ != MPI_SUCCESS) { vrelease(v_); return rc_; } \
        *(req) = V(MPI_Request, v_); \
        return MPI_SUCCESS; \
    } while (0)

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *req) { ICOLL(comm, req, real.Ibarrier(R(comm), &rr_)); }
ALIAS(Ibarrier)
int PMPI_Ibcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Ibcast(buf, count, R(t), root, R(comm), &rr_)); }
ALIAS(Ibcast)
int PMPI_Ireduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Ireduce(s, r, count, R(t), R(op), root, R(comm), &rr_)); }
ALIAS(Ireduce)
int PMPI_Iallreduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Iallreduce(s, r, count, R(t), R(op), R(comm), &rr_)); }
ALIAS(Iallreduce)
int PMPI_Iallgather(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt, MPI_Comm comm,
                    MPI_Request *req)
{ ICOLL(comm, req, real.Iallgather(s, sc, R(st), r, rcount, R(rt), R(comm), &rr_)); }
ALIAS(Iallgather)
int PMPI_Igather(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt, int root, MPI_Comm comm,
                 MPI_Request *req)
{ ICOLL(comm, req, real.Igather(s, sc, R(st), r, rcount, R(rt), root, R(comm), &rr_)); }
ALIAS(Igather)
int PMPI_Iscatter(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt, int root, MPI_Comm comm,
                  MPI_Request *req)
{ ICOLL(comm, req, real.Iscatter(s, sc, R(st), r, rcount, R(rt), root, R(comm), &rr_)); }
ALIAS(Iscatter)
int PMPI_Ialltoall(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request *req)
{ ICOLL(comm, req, real.Ialltoall(s, sc, R(st), r, rcount, R(rt), R(comm), &rr_)); }
ALIAS(Ialltoall)
int PMPI_Iallgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc[], const int d[], MPI_Datatype rt,
                     MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Iallgatherv(s, sc, R(st), r, rc, d, R(rt), R(comm), &rr_)); }
ALIAS(Iallgatherv)
int PMPI_Igatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc[], const int d[], MPI_Datatype rt,
                  int root, MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Igatherv(s, sc, R(st), r, rc, d, R(rt), root, R(comm), &rr_)); }
ALIAS(Igatherv)
int PMPI_Iscatterv(const void *s, const int sc[], const int d[], MPI_Datatype st, void *r, int rcount, MPI_Datatype rt,
                   int root, MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Iscatterv(s, sc, d, R(st), r, rcount, R(rt), root, R(comm), &rr_)); }
ALIAS(Iscatterv)
int PMPI_Ialltoallv(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r, const int rc[],
                    const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Ialltoallv(s, sc, sd, R(st), r, rc, rd, R(rt), R(comm), &rr_)); }
ALIAS(Ialltoallv)
int PMPI_Ireduce_scatter(const void *s, void *r, const int rc[], MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                         MPI_Request *req)
{ ICOLL(comm, req, real.Ireduce_scatter(s, r, rc, R(t), R(op), R(comm), &rr_)); }
ALIAS(Ireduce_scatter)
int PMPI_Ireduce_scatter_block(const void *s, void *r, int rc, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                               MPI_Request *req)
{ ICOLL(comm, req, real.Ireduce_scatter_block(s, r, rc, R(t), R(op), R(comm), &rr_)); }
ALIAS(Ireduce_scatter_block)
int PMPI_Iscan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Iscan(s, r, count, R(t), R(op), R(comm), &rr_)); }
ALIAS(Iscan)
int PMPI_Iexscan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Iexscan(s, r, count, R(t), R(op), R(comm), &rr_)); }
ALIAS(Iexscan)

/* ---- neighbourhood collectives (cartesian, graph and dist-graph communicators) ---- */

int PMPI_Neighbor_allgather(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt,
                            MPI_Comm comm)
{ COLL(comm, real.Neighbor_allgather(s, sc, R(st), r, rcount, R(rt), R(comm))); }
ALIAS(Neighbor_allgather)
int PMPI_Neighbor_allgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc[], const int d[],
                             MPI_Datatype rt, MPI_Comm comm)
{ COLL(comm, real.Neighbor_allgatherv(s, sc, R(st), r, rc, d, R(rt), R(comm))); }
ALIAS(Neighbor_allgatherv)
int PMPI_Neighbor_alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt, MPI_Comm comm)
{ COLL(comm, real.Neighbor_alltoall(s, sc, R(st), r, rcount, R(rt), R(comm))); }
ALIAS(Neighbor_alltoall)
int PMPI_Neighbor_alltoallv(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r, const int rc[],
                            const int rd[], MPI_Datatype rt, MPI_Comm comm)
{ COLL(comm, real.Neighbor_alltoallv(s, sc, sd, R(st), r, rc, rd, R(rt), R(comm))); }
ALIAS(Neighbor_alltoallv)
int PMPI_Ineighbor_allgather(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt,
                             MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Ineighbor_allgather(s, sc, R(st), r, rcount, R(rt), R(comm), &rr_)); }
ALIAS(Ineighbor_allgather)
int PMPI_Ineighbor_allgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc[], const int d[],
                              MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Ineighbor_allgatherv(s, sc, R(st), r, rc, d, R(rt), R(comm), &rr_)); }
ALIAS(Ineighbor_allgatherv)
int PMPI_Ineighbor_alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rcount, MPI_Datatype rt,
                            MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Ineighbor_alltoall(s, sc, R(st), r, rcount, R(rt), R(comm), &rr_)); }
ALIAS(Ineighbor_alltoall)
int PMPI_Ineighbor_alltoallv(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r, const int rc[],
                             const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{ ICOLL(comm, req, real.Ineighbor_alltoallv(s, sc, sd, R(st), r, rc, rd, R(rt), R(comm), &rr_)); }
ALIAS(Ineighbor_alltoallv)

/* ---- the "w" forms: one datatype per peer ----
 * The arrays of real datatypes are the runtime's own; for the nonblocking forms they live as long as
 * the request (its arr), because the real library may read them until completion. */

/* The peers of a collective without topology: the group, or the remote group of an inter-communicator. */
static int group_peers(MPI_Comm rc, int *n)
{
    int inter = 0, rc_ = real.Comm_test_inter(rc, &inter);
    if (rc_ != MPI_SUCCESS) return rc_;
    return inter ? real.Comm_remote_size(rc, n) : real.Comm_size(rc, n);
}

/* How many peers a "w" collective names on each side: the group size, or the topology's degrees. */
static int w_peers(MPI_Comm rc, int *nsend, int *nrecv)
{
    int topo = MPI_UNDEFINED, rc_ = real.Topo_test(rc, &topo);
    if (rc_ != MPI_SUCCESS) return rc_;
    if (topo == MPI_CART) {
        int nd = 0;
        rc_ = real.Cartdim_get(rc, &nd);
        *nsend = *nrecv = 2 * nd;
    } else if (topo == MPI_GRAPH) {
        int me = 0;
        real.Comm_rank(rc, &me);
        rc_ = real.Graph_neighbors_count(rc, me, nsend);
        *nrecv = *nsend;
    } else if (topo == MPI_DIST_GRAPH) {
        int w = 0;
        rc_ = real.Dist_graph_neighbors_count(rc, nrecv, nsend, &w);
    } else {
        rc_ = group_peers(rc, nsend);
        *nrecv = *nsend;
    }
    return rc_;
}

/* Real datatype arrays for the send and receive sides, in one allocation (upper-half malloc). */
static MPI_Datatype *w_types(MPI_Comm comm, int neighbours, const MPI_Datatype st[], const MPI_Datatype rt[],
                             int *ns, int *nr)
{
    int rc = MPI_SUCCESS;
    *ns = *nr = 0;
    if (neighbours) LOWER(rc = w_peers(R(comm), ns, nr));
    else LOWER(rc = group_peers(R(comm), ns); *nr = *ns);
    if (rc != MPI_SUCCESS) return NULL;
    MPI_Datatype *t = malloc(((size_t)*ns + (size_t)*nr + 1) * sizeof *t);
    if (!t) return NULL;
    for (int i = 0; i < *ns; i++) t[i] = st ? R(st[i]) : R(MPI_DATATYPE_NULL);   /* MPI_IN_PLACE: ignored */
    for (int i = 0; i < *nr; i++) t[*ns + i] = R(rt[i]);
    return t;
}

#define WCOLL(nb, call) do { \
        MANA_CHECK_INIT(); \
        int ns_, nr_, rc_; \
        MPI_Datatype *t_ = w_types(comm, nb, st, rt, &ns_, &nr_); \
        if (!t_) return MPI_ERR_NO_MEM; \
        MPI_Datatype *rst_ = t_, *rrt_ = t_ + ns_; \
        COLL_LOWER(comm_obj(comm), rc_ = call); \
        free(t_); \
        return rc_; \
    } while (0)

#define IWCOLL(nb, call) do { \
        MANA_CHECK_INIT(); \
        int ns_, nr_; \
        MPI_Datatype *t_ = w_types(comm, nb, st, rt, &ns_, &nr_); \
        if (!t_) return MPI_ERR_NO_MEM; \
        MPI_Datatype *rst_ = t_, *rrt_ = t_ + ns_; \
        MPI_Request rr_; int rc_; \
        struct vobj *v_ = vnew(K_REQ, 0); \
        v_->rkind = RQ_COLL; \
        v_->arr = t_; \
        COLL_LOWER(comm_obj(comm), rc_ = call; \
                   if (rc_ == MPI_SUCCESS) { v_->real = HBITS(rr_); v_->flags |= VF_POSTED; }); \
        if (rc_ != MPI_SUCCESS) { vrelease(v_); return rc_; } \
        *(req) = V(MPI_Request, v_); \
        return MPI_SUCCESS; \
    } while (0)

int PMPI_Alltoallw(const void *s, const int sc[], const int sd[], const MPI_Datatype st[], void *r, const int rc[],
                   const int rd[], const MPI_Datatype rt[], MPI_Comm comm)
{ WCOLL(0, real.Alltoallw(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm))); }
ALIAS(Alltoallw)
int PMPI_Ialltoallw(const void *s, const int sc[], const int sd[], const MPI_Datatype st[], void *r, const int rc[],
                    const int rd[], const MPI_Datatype rt[], MPI_Comm comm, MPI_Request *req)
{ IWCOLL(0, real.Ialltoallw(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm), &rr_)); }
ALIAS(Ialltoallw)
int PMPI_Neighbor_alltoallw(const void *s, const int sc[], const MPI_Aint sd[], const MPI_Datatype st[], void *r,
                            const int rc[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm)
{ WCOLL(1, real.Neighbor_alltoallw(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm))); }
ALIAS(Neighbor_alltoallw)
int PMPI_Ineighbor_alltoallw(const void *s, const int sc[], const MPI_Aint sd[], const MPI_Datatype st[], void *r,
                             const int rc[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm,
                             MPI_Request *req)
{ IWCOLL(1, real.Ineighbor_alltoallw(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm), &rr_)); }
ALIAS(Ineighbor_alltoallw)
