/*
 * coll.c - the collectives that need hand work: the "w" forms, whose arrays of datatypes are translated
 * one by one.  The mechanical collectives (one real call behind the communicator's sequence gate, or a
 * request of kind RQ_COLL) are generated from the MPI API description (api/policy.tsv: coll, icoll)
 * into the build tree, with the same macros.  Nonblocking collectives are requests the drain completes
 * before the image is written.
 */
#include "mpi_int.h"

#include <stdlib.h>

/* Under MPI_THREAD_MULTIPLE a blocking collective is its nonblocking twin and this wait (COLL_MT in
 * mpi_int.h).  The request's arr (a "w" form's real types) goes with it. */
int mana_coll_mt_wait(struct vobj *v)
{
    req_wait(v, MPI_STATUS_IGNORE);
    int rc = v->status.MPI_ERROR;
    free(v->arr);
    v->arr = NULL;
    vrelease(v);
    return rc;
}

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

/* How many datatypes each side of a "w" collective on comm names (pcoll.c too). */
int mana_w_peers(MPI_Comm comm, int neighbours, int *ns, int *nr)
{
    int rc = MPI_SUCCESS;
    *ns = *nr = 0;
    if (neighbours) LOWER(rc = w_peers(R(comm), ns, nr));
    else LOWER(rc = group_peers(R(comm), ns); *nr = *ns);
    return rc;
}

/* Real datatype arrays for the send and receive sides, in one allocation (upper-half malloc). */
static MPI_Datatype *w_types(MPI_Comm comm, int neighbours, const MPI_Datatype st[], const MPI_Datatype rt[],
                             int *ns, int *nr)
{
    if (mana_w_peers(comm, neighbours, ns, nr) != MPI_SUCCESS) return NULL;
    MPI_Datatype *t = malloc(((size_t)*ns + (size_t)*nr + 1) * sizeof *t);
    if (!t) return NULL;
    for (int i = 0; i < *ns; i++) t[i] = st ? R(st[i]) : R(MPI_DATATYPE_NULL);   /* MPI_IN_PLACE: ignored */
    for (int i = 0; i < *nr; i++) t[*ns + i] = R(rt[i]);
    return t;
}

#define WCOLL(nb, call, icall) do { \
        MANA_CHECK_INIT(); \
        int ns_, nr_, rc_; \
        MPI_Datatype *t_ = w_types(comm, nb, st, rt, &ns_, &nr_); \
        if (!t_) return MPI_ERR_NO_MEM; \
        MPI_Datatype *rst_ = t_, *rrt_ = t_ + ns_; \
        if (__builtin_expect(mana_thread_multiple, 0)) COLL_MT(comm, t_, icall); \
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
{ WCOLL(0, real.Alltoallw(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm)),
        real.Ialltoallw(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm), &rr_)); }
ALIAS(Alltoallw)
int PMPI_Ialltoallw(const void *s, const int sc[], const int sd[], const MPI_Datatype st[], void *r, const int rc[],
                    const int rd[], const MPI_Datatype rt[], MPI_Comm comm, MPI_Request *req)
{ IWCOLL(0, real.Ialltoallw(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm), &rr_)); }
ALIAS(Ialltoallw)
int PMPI_Neighbor_alltoallw(const void *s, const int sc[], const MPI_Aint sd[], const MPI_Datatype st[], void *r,
                            const int rc[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm)
{ WCOLL(1, real.Neighbor_alltoallw(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm)),
        real.Ineighbor_alltoallw(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm), &rr_)); }
ALIAS(Neighbor_alltoallw)
int PMPI_Ineighbor_alltoallw(const void *s, const int sc[], const MPI_Aint sd[], const MPI_Datatype st[], void *r,
                             const int rc[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm,
                             MPI_Request *req)
{ IWCOLL(1, real.Ineighbor_alltoallw(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm), &rr_)); }
ALIAS(Ineighbor_alltoallw)

#if MPI_VERSION >= 4
/* Large counts (MPI 4; MPICH 4 exports them): the same, with MPI_Count counts. */
int PMPI_Alltoallw_c(const void *s, const MPI_Count sc[], const MPI_Aint sd[], const MPI_Datatype st[], void *r,
                     const MPI_Count rc[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm)
{ WCOLL(0, real.Alltoallw_c(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm)),
        real.Ialltoallw_c(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm), &rr_)); }
ALIAS(Alltoallw_c)
int PMPI_Ialltoallw_c(const void *s, const MPI_Count sc[], const MPI_Aint sd[], const MPI_Datatype st[], void *r,
                      const MPI_Count rc[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm,
                      MPI_Request *req)
{ IWCOLL(0, real.Ialltoallw_c(s, sc, sd, rst_, r, rc, rd, rrt_, R(comm), &rr_)); }
ALIAS(Ialltoallw_c)

/* MPI_Ineighbor_alltoallw_c through the int form (neighbor_c.c says why): the counts' int copies live
 * after the real types, in the request's arr, as long as the request. */
int PMPI_Ineighbor_alltoallw_c(const void *s, const MPI_Count sc[], const MPI_Aint sd[], const MPI_Datatype st[],
                               void *r, const MPI_Count rc[], const MPI_Aint rd[], const MPI_Datatype rt[],
                               MPI_Comm comm, MPI_Request *req)
{
    MANA_CHECK_INIT();
    int *sci, *rci, ns, nr;
    void *ints;
    size_t n;
    int rc_ = mana_nbw_narrow(comm, "MPI_Ineighbor_alltoallw_c", sc, rc, &sci, &rci, &ints, &n);
    if (rc_ != MPI_SUCCESS) return rc_;
    (void)sci; (void)rci; (void)n;                  /* the same ns + nr counts, copied below */
    MPI_Datatype *t = w_types(comm, 1, st, rt, &ns, &nr);
    MPI_Datatype *tc = t ? realloc(t, ((size_t)ns + (size_t)nr + 1) * sizeof *t + ((size_t)ns + (size_t)nr) * sizeof(int))
                         : NULL;
    if (!tc) { free(t); free(ints); return MPI_ERR_NO_MEM; }
    int *ic = (int *)(tc + ns + nr + 1);
    for (int i = 0; i < ns + nr; i++) ic[i] = ((int *)ints)[i];
    free(ints);
    MPI_Request rr_;
    struct vobj *v = vnew(K_REQ, 0);
    v->rkind = RQ_COLL;
    v->arr = tc;
    COLL_LOWER(comm_obj(comm), rc_ = real.Ineighbor_alltoallw(s, ic, sd, tc, r, ic + ns, rd, tc + ns, R(comm), &rr_);
               if (rc_ == MPI_SUCCESS) { v->real = HBITS(rr_); v->flags |= VF_POSTED; });
    if (rc_ != MPI_SUCCESS) { vrelease(v); return rc_; }
    *req = V(MPI_Request, v);
    return MPI_SUCCESS;
}
ALIAS(Ineighbor_alltoallw_c)
#endif
