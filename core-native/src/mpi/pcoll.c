/*
 * pcoll.c - persistent collectives (MPI 4.0: MPI_Bcast_init ... and their large-count _c forms; MPICH
 * 4.0 exports them, Open MPI 4.1 only as MPIX_ extensions; not the neighbour v and w forms' _c twins,
 * whose starts would run MPICH 4.0.2's own faulty MPI_Ineighbor_*v_c/w_c: see policy.tsv).
 *
 * As with persistent point-to-point requests (persist.c), nothing persistent exists in the real MPI:
 * the request keeps the arguments of its collective (virtual handles, the program's buffers and count
 * arrays, which MPI forbids it to change while the request lives), and every MPI_Start posts the
 * nonblocking twin (MPI_Ibcast ...), counted by the communicator's sequence gate like any collective.
 * So a checkpoint drains an active one as it drains an MPI_Ibcast, and an inactive one needs nothing at
 * a restart: its arguments are virtual handles, valid after the replay.
 *
 * A persistent collective is matched by its initialization, which is collective (MPI 4.0 sec. 6.13:
 * every member initializes in the same order), not by its starts: ranks may start two of them in
 * different orders (MPICH's coll/p_order).  Nonblocking collectives match in posting order on a
 * communicator, so each request posts on a communicator of its own: the initialization dups the
 * program's (MPI_Comm_dup through our wrapper: a communicator like any other, counted by the drains,
 * made again by the replay) and MPI_Request_free frees that dup (cfree.c keeps its real one while the
 * request still runs).  The cost is a communicator (a context id) per live persistent collective.
 */
#include "mpi_int.h"

#include <limits.h>
#include <stdlib.h>

#if MPI_VERSION >= 4

enum pc_fn { PC_ALLGATHER, PC_ALLGATHERV, PC_ALLREDUCE, PC_ALLTOALL, PC_ALLTOALLV, PC_ALLTOALLW, PC_BARRIER,
             PC_BCAST, PC_EXSCAN, PC_GATHER, PC_GATHERV, PC_NB_ALLGATHER, PC_NB_ALLGATHERV, PC_NB_ALLTOALL,
             PC_NB_ALLTOALLV, PC_NB_ALLTOALLW, PC_REDUCE, PC_REDUCE_SCATTER_BLOCK, PC_REDUCE_SCATTER, PC_SCAN,
             PC_SCATTER, PC_SCATTERV };

/* The arguments of one persistent collective (the request's arr). */
struct pcoll {
    int fn, large;                   /* large: the _c form (MPI_Count counts, MPI_Aint displacements) */
    const void *s;
    void *r;
    MPI_Count sc, rc;                /* scalar counts (count, sendcount, recvcount) */
    const void *scs, *sds, *rcs, *rds;   /* the program's count and displacement arrays */
    MPI_Datatype st, rt;             /* virtual */
    const MPI_Datatype *sts, *rts;   /* "w" forms: the program's arrays of virtual types */
    MPI_Op op;
    int root;
    MPI_Comm comm;
    int ns, nr;                      /* "w" forms: how many types each array holds */
    MPI_Datatype wreal[];            /* "w" forms: their real types, filled at every start */
};

/* A persistent collective's request, keeping a's arguments; ints (n of them, or none): int copies of a
 * large-count neighbour form's arrays that a's pointers name, kept in the record itself (the request
 * runs the int form: neighbor_c.c says why). */
static int pc_new_ints(struct pcoll *a, MPI_Request *req, const int *ints, size_t n);

static int pc_new(struct pcoll *a, MPI_Request *req) { return pc_new_ints(a, req, NULL, 0); }

/* a's array pointer p, moved from ints[] to the same place in the record's copy */
static const void *rebase(const void *p, const int *ints, size_t n, int *copy)
{
    if (p && ints && (const int *)p >= ints && (const int *)p < ints + n) return copy + ((const int *)p - ints);
    return p;
}

static int pc_new_ints(struct pcoll *a, MPI_Request *req, const int *ints, size_t n)
{
    MANA_CHECK_INIT();
    struct vobj *c = comm_obj(a->comm);
    if (!c || c->kind != K_COMM) return MPI_ERR_COMM;
    int ns = 0, nr = 0, rc;
    if (a->fn == PC_ALLTOALLW || a->fn == PC_NB_ALLTOALLW) {
        rc = mana_w_peers(a->comm, a->fn == PC_NB_ALLTOALLW, &ns, &nr);
        if (rc != MPI_SUCCESS) return rc;
    }
    struct pcoll *p = malloc(sizeof *p + ((size_t)ns + (size_t)nr) * sizeof(MPI_Datatype) + n * sizeof(int));
    if (!p) return MPI_ERR_NO_MEM;
    MPI_Comm own;                    /* the request's own communicator (see the top of the file) */
    rc = PMPI_Comm_dup(a->comm, &own);
    if (rc != MPI_SUCCESS) { free(p); return rc; }
    c = comm_obj(own);
    *p = *a;
    p->comm = own;
    p->ns = ns;
    p->nr = nr;
    if (n) {
        int *copy = (int *)(p->wreal + ns + nr);
        for (size_t i = 0; i < n; i++) copy[i] = ints[i];
        p->scs = rebase(a->scs, ints, n, copy);
        p->sds = rebase(a->sds, ints, n, copy);
        p->rcs = rebase(a->rcs, ints, n, copy);
        p->rds = rebase(a->rds, ints, n, copy);
    }
    struct vobj *r = vnew(K_REQ, 0);
    r->rkind = RQ_PCOLL;
    r->flags |= VF_PERSIST;
    r->comm = c;
    r->arr = p;
    r->a[1] = (int64_t)HBITS(a->comm);
    /* The program may free the datatypes before the request: the request names them (refs). */
    struct vobj *t = vobj_of(HBITS(a->st));
    if (t && t->kind == K_TYPE) { vref(t); r->type = t; }
    t = vobj_of(HBITS(a->rt));
    if (t && t->kind == K_TYPE) { vref(t); r->parent[r->nparents++] = t; }
    *req = V(MPI_Request, r);
    return MPI_SUCCESS;
}

/* Post the nonblocking twin; inside the collective gate's excursion. */
/* (this whole file is MPI 4.0, where MANA_HAVE_C holds: every _init has its _c twin) */
#define PCALL(fn, INTARGS, CARGS) (p->large ? real.fn##_c CARGS : real.fn INTARGS)
#define IA(x) ((const int *)(x))
#define CA(x) ((const MPI_Count *)(x))
#define AA(x) ((const MPI_Aint *)(x))

static int pc_post_in_lower(struct pcoll *p, MPI_Request *rr)
{
    MPI_Datatype st = R(p->st), rt = R(p->rt);
    MPI_Op op = R(p->op);
    MPI_Comm c = R(p->comm);
    MPI_Datatype *wst = p->wreal, *wrt = p->wreal + p->ns;
    int isc = (int)p->sc, irc = (int)p->rc;
    switch (p->fn) {
    case PC_ALLGATHER:
        return PCALL(Iallgather, (p->s, isc, st, p->r, irc, rt, c, rr), (p->s, p->sc, st, p->r, p->rc, rt, c, rr));
    case PC_ALLGATHERV:
        return PCALL(Iallgatherv, (p->s, isc, st, p->r, IA(p->rcs), IA(p->rds), rt, c, rr),
                     (p->s, p->sc, st, p->r, CA(p->rcs), AA(p->rds), rt, c, rr));
    case PC_ALLREDUCE:
        return PCALL(Iallreduce, (p->s, p->r, isc, st, op, c, rr), (p->s, p->r, p->sc, st, op, c, rr));
    case PC_ALLTOALL:
        return PCALL(Ialltoall, (p->s, isc, st, p->r, irc, rt, c, rr), (p->s, p->sc, st, p->r, p->rc, rt, c, rr));
    case PC_ALLTOALLV:
        return PCALL(Ialltoallv, (p->s, IA(p->scs), IA(p->sds), st, p->r, IA(p->rcs), IA(p->rds), rt, c, rr),
                     (p->s, CA(p->scs), AA(p->sds), st, p->r, CA(p->rcs), AA(p->rds), rt, c, rr));
    case PC_ALLTOALLW:
        return PCALL(Ialltoallw, (p->s, IA(p->scs), IA(p->sds), wst, p->r, IA(p->rcs), IA(p->rds), wrt, c, rr),
                     (p->s, CA(p->scs), AA(p->sds), wst, p->r, CA(p->rcs), AA(p->rds), wrt, c, rr));
    case PC_BARRIER:
        return real.Ibarrier(c, rr);
    case PC_BCAST:
        return PCALL(Ibcast, (p->r, isc, st, p->root, c, rr), (p->r, p->sc, st, p->root, c, rr));
    case PC_EXSCAN:
        return PCALL(Iexscan, (p->s, p->r, isc, st, op, c, rr), (p->s, p->r, p->sc, st, op, c, rr));
    case PC_GATHER:
        return PCALL(Igather, (p->s, isc, st, p->r, irc, rt, p->root, c, rr),
                     (p->s, p->sc, st, p->r, p->rc, rt, p->root, c, rr));
    case PC_GATHERV:
        return PCALL(Igatherv, (p->s, isc, st, p->r, IA(p->rcs), IA(p->rds), rt, p->root, c, rr),
                     (p->s, p->sc, st, p->r, CA(p->rcs), AA(p->rds), rt, p->root, c, rr));
    case PC_NB_ALLGATHER:
        return PCALL(Ineighbor_allgather, (p->s, isc, st, p->r, irc, rt, c, rr),
                     (p->s, p->sc, st, p->r, p->rc, rt, c, rr));
    case PC_NB_ALLGATHERV:
        return PCALL(Ineighbor_allgatherv, (p->s, isc, st, p->r, IA(p->rcs), IA(p->rds), rt, c, rr),
                     (p->s, p->sc, st, p->r, CA(p->rcs), AA(p->rds), rt, c, rr));
    case PC_NB_ALLTOALL:
        return PCALL(Ineighbor_alltoall, (p->s, isc, st, p->r, irc, rt, c, rr),
                     (p->s, p->sc, st, p->r, p->rc, rt, c, rr));
    case PC_NB_ALLTOALLV:
        return PCALL(Ineighbor_alltoallv, (p->s, IA(p->scs), IA(p->sds), st, p->r, IA(p->rcs), IA(p->rds), rt, c, rr),
                     (p->s, CA(p->scs), AA(p->sds), st, p->r, CA(p->rcs), AA(p->rds), rt, c, rr));
    case PC_NB_ALLTOALLW:      /* displacements are MPI_Aint in both forms */
        return PCALL(Ineighbor_alltoallw, (p->s, IA(p->scs), AA(p->sds), wst, p->r, IA(p->rcs), AA(p->rds), wrt, c, rr),
                     (p->s, CA(p->scs), AA(p->sds), wst, p->r, CA(p->rcs), AA(p->rds), wrt, c, rr));
    case PC_REDUCE:
        return PCALL(Ireduce, (p->s, p->r, isc, st, op, p->root, c, rr), (p->s, p->r, p->sc, st, op, p->root, c, rr));
    case PC_REDUCE_SCATTER_BLOCK:
        return PCALL(Ireduce_scatter_block, (p->s, p->r, isc, st, op, c, rr), (p->s, p->r, p->sc, st, op, c, rr));
    case PC_REDUCE_SCATTER:
        return PCALL(Ireduce_scatter, (p->s, p->r, IA(p->rcs), st, op, c, rr), (p->s, p->r, CA(p->rcs), st, op, c, rr));
    case PC_SCAN:
        return PCALL(Iscan, (p->s, p->r, isc, st, op, c, rr), (p->s, p->r, p->sc, st, op, c, rr));
    case PC_SCATTER:
        return PCALL(Iscatter, (p->s, isc, st, p->r, irc, rt, p->root, c, rr),
                     (p->s, p->sc, st, p->r, p->rc, rt, p->root, c, rr));
    case PC_SCATTERV:
        return PCALL(Iscatterv, (p->s, IA(p->scs), IA(p->sds), st, p->r, irc, rt, p->root, c, rr),
                     (p->s, CA(p->scs), AA(p->sds), st, p->r, p->rc, rt, p->root, c, rr));
    }
    return MPI_ERR_REQUEST;
}

/* MPI_Request_free of a persistent collective: its own communicator goes too (p2p.c calls this before
 * it lets the request go). */
void mana_pcoll_free(struct vobj *r)
{
    struct pcoll *p = r->arr;
    if (!p || p->comm == MPI_COMM_NULL) return;
    MPI_Comm own = p->comm;
    p->comm = MPI_COMM_NULL;         /* (an active request still posted keeps its real one: cfree.c) */
    PMPI_Comm_free(&own);
}

int mana_pcoll_start(struct vobj *r)
{
    struct pcoll *p = r->arr;
    /* real types of a "w" form now: after a restart they are not those of the last start */
    for (int i = 0; i < p->ns; i++) p->wreal[i] = p->sts && p->s != MPI_IN_PLACE ? R(p->sts[i]) : R(MPI_DATATYPE_NULL);
    for (int i = 0; i < p->nr; i++) p->wreal[p->ns + i] = R(p->rts[i]);
    MPI_Request rr = MPI_REQUEST_NULL;
    int rc;
    COLL_LOWER(r->comm, rc = pc_post_in_lower(p, &rr);
               if (rc == MPI_SUCCESS) { r->real = HBITS(rr); r->flags |= VF_POSTED; });
    return rc;
}

/* ---- the wrappers: each one only keeps its arguments ---- */

#define PC(...) do { struct pcoll a_ = { __VA_ARGS__ }; (void)info; return pc_new(&a_, req); } while (0)

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_BARRIER, .comm = comm); }
ALIAS(Barrier_init)
int PMPI_Bcast_init(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_BCAST, .r = buf, .sc = count, .st = t, .root = root, .comm = comm); }
ALIAS(Bcast_init)
int PMPI_Bcast_init_c(void *buf, MPI_Count count, MPI_Datatype t, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *req)
{ PC(.fn = PC_BCAST, .large = 1, .r = buf, .sc = count, .st = t, .root = root, .comm = comm); }
ALIAS(Bcast_init_c)

/* (sendbuf, recvbuf, count, type, op, comm): Allreduce, Exscan, Scan, Reduce_scatter_block */
int PMPI_Allreduce_init(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req)
{ PC(.fn = PC_ALLREDUCE, .s = s, .r = r, .sc = n, .st = t, .op = op, .comm = comm); }
ALIAS(Allreduce_init)
int PMPI_Allreduce_init_c(const void *s, void *r, MPI_Count n, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                         MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_ALLREDUCE, .large = 1, .s = s, .r = r, .sc = n, .st = t, .op = op, .comm = comm); }
ALIAS(Allreduce_init_c)
int PMPI_Exscan_init(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req)
{ PC(.fn = PC_EXSCAN, .s = s, .r = r, .sc = n, .st = t, .op = op, .comm = comm); }
ALIAS(Exscan_init)
int PMPI_Exscan_init_c(const void *s, void *r, MPI_Count n, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                         MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_EXSCAN, .large = 1, .s = s, .r = r, .sc = n, .st = t, .op = op, .comm = comm); }
ALIAS(Exscan_init_c)
int PMPI_Scan_init(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req)
{ PC(.fn = PC_SCAN, .s = s, .r = r, .sc = n, .st = t, .op = op, .comm = comm); }
ALIAS(Scan_init)
int PMPI_Scan_init_c(const void *s, void *r, MPI_Count n, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                         MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_SCAN, .large = 1, .s = s, .r = r, .sc = n, .st = t, .op = op, .comm = comm); }
ALIAS(Scan_init_c)
int PMPI_Reduce_scatter_block_init(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req)
{ PC(.fn = PC_REDUCE_SCATTER_BLOCK, .s = s, .r = r, .sc = n, .st = t, .op = op, .comm = comm); }
ALIAS(Reduce_scatter_block_init)
int PMPI_Reduce_scatter_block_init_c(const void *s, void *r, MPI_Count n, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                         MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_REDUCE_SCATTER_BLOCK, .large = 1, .s = s, .r = r, .sc = n, .st = t, .op = op, .comm = comm); }
ALIAS(Reduce_scatter_block_init_c)

int PMPI_Reduce_init(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *req)
{ PC(.fn = PC_REDUCE, .s = s, .r = r, .sc = n, .st = t, .op = op, .root = root, .comm = comm); }
ALIAS(Reduce_init)
int PMPI_Reduce_init_c(const void *s, void *r, MPI_Count n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm,
                       MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_REDUCE, .large = 1, .s = s, .r = r, .sc = n, .st = t, .op = op, .root = root, .comm = comm); }
ALIAS(Reduce_init_c)
int PMPI_Reduce_scatter_init(const void *s, void *r, const int rcs[], MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                             MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_REDUCE_SCATTER, .s = s, .r = r, .rcs = rcs, .st = t, .op = op, .comm = comm); }
ALIAS(Reduce_scatter_init)
int PMPI_Reduce_scatter_init_c(const void *s, void *r, const MPI_Count rcs[], MPI_Datatype t, MPI_Op op,
                               MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_REDUCE_SCATTER, .large = 1, .s = s, .r = r, .rcs = rcs, .st = t, .op = op, .comm = comm); }
ALIAS(Reduce_scatter_init_c)

/* (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm): Allgather, Alltoall, neighbours */
int PMPI_Allgather_init(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm,
                       MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_ALLGATHER, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .comm = comm); }
ALIAS(Allgather_init)
int PMPI_Allgather_init_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, MPI_Count rc, MPI_Datatype rt,
                         MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_ALLGATHER, .large = 1, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .comm = comm); }
ALIAS(Allgather_init_c)
int PMPI_Alltoall_init(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm,
                       MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_ALLTOALL, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .comm = comm); }
ALIAS(Alltoall_init)
int PMPI_Alltoall_init_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, MPI_Count rc, MPI_Datatype rt,
                         MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_ALLTOALL, .large = 1, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .comm = comm); }
ALIAS(Alltoall_init_c)
int PMPI_Neighbor_allgather_init(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm,
                       MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_NB_ALLGATHER, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .comm = comm); }
ALIAS(Neighbor_allgather_init)
int PMPI_Neighbor_allgather_init_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, MPI_Count rc, MPI_Datatype rt,
                         MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_NB_ALLGATHER, .large = 1, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .comm = comm); }
ALIAS(Neighbor_allgather_init_c)
int PMPI_Neighbor_alltoall_init(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm,
                       MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_NB_ALLTOALL, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .comm = comm); }
ALIAS(Neighbor_alltoall_init)
int PMPI_Neighbor_alltoall_init_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, MPI_Count rc, MPI_Datatype rt,
                         MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_NB_ALLTOALL, .large = 1, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .comm = comm); }
ALIAS(Neighbor_alltoall_init_c)

/* ... with a root: Gather, Scatter */
int PMPI_Gather_init(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_GATHER, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .root = root, .comm = comm); }
ALIAS(Gather_init)
int PMPI_Gather_init_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, MPI_Count rc, MPI_Datatype rt,
                         int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_GATHER, .large = 1, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .root = root, .comm = comm); }
ALIAS(Gather_init_c)
int PMPI_Scatter_init(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_SCATTER, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .root = root, .comm = comm); }
ALIAS(Scatter_init)
int PMPI_Scatter_init_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, MPI_Count rc, MPI_Datatype rt,
                         int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_SCATTER, .large = 1, .s = s, .sc = sc, .st = st, .r = r, .rc = rc, .rt = rt, .root = root, .comm = comm); }
ALIAS(Scatter_init_c)

/* (sendbuf, sendcount, sendtype, recvbuf, recvcounts[], displs[], recvtype, comm): the "v" gathers */
int PMPI_Allgatherv_init(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[], const int rds[],
                       MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_ALLGATHERV, .s = s, .sc = sc, .st = st, .r = r, .rcs = rcs, .rds = rds, .rt = rt, .comm = comm); }
ALIAS(Allgatherv_init)
int PMPI_Allgatherv_init_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, const MPI_Count rcs[],
                         const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_ALLGATHERV, .large = 1, .s = s, .sc = sc, .st = st, .r = r, .rcs = rcs, .rds = rds, .rt = rt, .comm = comm); }
ALIAS(Allgatherv_init_c)
int PMPI_Neighbor_allgatherv_init(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[], const int rds[],
                       MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_NB_ALLGATHERV, .s = s, .sc = sc, .st = st, .r = r, .rcs = rcs, .rds = rds, .rt = rt, .comm = comm); }
ALIAS(Neighbor_allgatherv_init)

int PMPI_Gatherv_init(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[], const int rds[],
                      MPI_Datatype rt, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_GATHERV, .s = s, .sc = sc, .st = st, .r = r, .rcs = rcs, .rds = rds, .rt = rt, .root = root, .comm = comm); }
ALIAS(Gatherv_init)
int PMPI_Gatherv_init_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, const MPI_Count rcs[],
                        const MPI_Aint rds[], MPI_Datatype rt, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_GATHERV, .large = 1, .s = s, .sc = sc, .st = st, .r = r, .rcs = rcs, .rds = rds, .rt = rt, .root = root,
     .comm = comm); }
ALIAS(Gatherv_init_c)
int PMPI_Scatterv_init(const void *s, const int scs[], const int sds[], MPI_Datatype st, void *r, int rc,
                       MPI_Datatype rt, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_SCATTERV, .s = s, .scs = scs, .sds = sds, .st = st, .r = r, .rc = rc, .rt = rt, .root = root, .comm = comm); }
ALIAS(Scatterv_init)
int PMPI_Scatterv_init_c(const void *s, const MPI_Count scs[], const MPI_Aint sds[], MPI_Datatype st, void *r,
                         MPI_Count rc, MPI_Datatype rt, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_SCATTERV, .large = 1, .s = s, .scs = scs, .sds = sds, .st = st, .r = r, .rc = rc, .rt = rt, .root = root,
     .comm = comm); }
ALIAS(Scatterv_init_c)

/* (sendbuf, sendcounts[], sdispls[], sendtype, recvbuf, recvcounts[], rdispls[], recvtype, comm) */
int PMPI_Alltoallv_init(const void *s, const int scs[], const int sds[], MPI_Datatype st, void *r,
                       const int rcs[], const int rds[], MPI_Datatype rt, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req)
{ PC(.fn = PC_ALLTOALLV, .s = s, .scs = scs, .sds = sds, .st = st, .r = r, .rcs = rcs, .rds = rds, .rt = rt, .comm = comm); }
ALIAS(Alltoallv_init)
int PMPI_Alltoallv_init_c(const void *s, const MPI_Count scs[], const MPI_Aint sds[], MPI_Datatype st, void *r,
                         const MPI_Count rcs[], const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm,
                         MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_ALLTOALLV, .large = 1, .s = s, .scs = scs, .sds = sds, .st = st, .r = r, .rcs = rcs, .rds = rds, .rt = rt,
     .comm = comm); }
ALIAS(Alltoallv_init_c)
int PMPI_Neighbor_alltoallv_init(const void *s, const int scs[], const int sds[], MPI_Datatype st, void *r,
                       const int rcs[], const int rds[], MPI_Datatype rt, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req)
{ PC(.fn = PC_NB_ALLTOALLV, .s = s, .scs = scs, .sds = sds, .st = st, .r = r, .rcs = rcs, .rds = rds, .rt = rt, .comm = comm); }
ALIAS(Neighbor_alltoallv_init)

/* "w": one datatype per peer (the program's arrays; their real types are looked up at every start) */
int PMPI_Alltoallw_init(const void *s, const int scs[], const int sds[], const MPI_Datatype sts[], void *r,
                        const int rcs[], const int rds[], const MPI_Datatype rts[], MPI_Comm comm, MPI_Info info,
                        MPI_Request *req)
{ PC(.fn = PC_ALLTOALLW, .s = s, .scs = scs, .sds = sds, .sts = sts, .r = r, .rcs = rcs, .rds = rds, .rts = rts,
     .comm = comm); }
ALIAS(Alltoallw_init)
int PMPI_Alltoallw_init_c(const void *s, const MPI_Count scs[], const MPI_Aint sds[], const MPI_Datatype sts[],
                          void *r, const MPI_Count rcs[], const MPI_Aint rds[], const MPI_Datatype rts[], MPI_Comm comm,
                          MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_ALLTOALLW, .large = 1, .s = s, .scs = scs, .sds = sds, .sts = sts, .r = r, .rcs = rcs, .rds = rds,
     .rts = rts, .comm = comm); }
ALIAS(Alltoallw_init_c)
int PMPI_Neighbor_alltoallw_init(const void *s, const int scs[], const MPI_Aint sds[], const MPI_Datatype sts[],
                                 void *r, const int rcs[], const MPI_Aint rds[], const MPI_Datatype rts[],
                                 MPI_Comm comm, MPI_Info info, MPI_Request *req)
{ PC(.fn = PC_NB_ALLTOALLW, .s = s, .scs = scs, .sds = sds, .sts = sts, .r = r, .rcs = rcs, .rds = rds, .rts = rts,
     .comm = comm); }
ALIAS(Neighbor_alltoallw_init)

/* The large-count neighbour v and w forms: their int forms, on int copies of the counts (and of a v
 * form's displacements) made now, or MPI_ERR_COUNT when one does not fit (neighbor_c.c). */
int PMPI_Neighbor_allgatherv_init_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, const MPI_Count rcs[],
                                    const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *req)
{
    MANA_CHECK_INIT();
    (void)info;
    const char *fn = "MPI_Neighbor_allgatherv_init_c";
    if (sc < INT_MIN || sc > INT_MAX) return mana_nb_too_large(comm, fn);
    struct nbv o;
    int rc = mana_nbv_narrow(comm, fn, NULL, NULL, rcs, rds, &o);
    if (rc != MPI_SUCCESS) return rc;
    struct pcoll a = { .fn = PC_NB_ALLGATHERV, .s = s, .sc = sc, .st = st, .r = r, .rcs = o.rcs, .rds = o.rds,
                       .rt = rt, .comm = comm };
    rc = pc_new_ints(&a, req, o.mem, o.n);
    free(o.mem);
    return rc;
}
ALIAS(Neighbor_allgatherv_init_c)

int PMPI_Neighbor_alltoallv_init_c(const void *s, const MPI_Count scs[], const MPI_Aint sds[], MPI_Datatype st,
                                   void *r, const MPI_Count rcs[], const MPI_Aint rds[], MPI_Datatype rt,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    MANA_CHECK_INIT();
    (void)info;
    struct nbv o;
    int rc = mana_nbv_narrow(comm, "MPI_Neighbor_alltoallv_init_c", scs, sds, rcs, rds, &o);
    if (rc != MPI_SUCCESS) return rc;
    struct pcoll a = { .fn = PC_NB_ALLTOALLV, .s = s, .scs = o.scs, .sds = o.sds, .st = st, .r = r, .rcs = o.rcs,
                       .rds = o.rds, .rt = rt, .comm = comm };
    rc = pc_new_ints(&a, req, o.mem, o.n);
    free(o.mem);
    return rc;
}
ALIAS(Neighbor_alltoallv_init_c)

int PMPI_Neighbor_alltoallw_init_c(const void *s, const MPI_Count scs[], const MPI_Aint sds[],
                                   const MPI_Datatype sts[], void *r, const MPI_Count rcs[], const MPI_Aint rds[],
                                   const MPI_Datatype rts[], MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    MANA_CHECK_INIT();
    (void)info;
    int *sci, *rci;
    void *mem;
    size_t n;
    int rc = mana_nbw_narrow(comm, "MPI_Neighbor_alltoallw_init_c", scs, rcs, &sci, &rci, &mem, &n);
    if (rc != MPI_SUCCESS) return rc;
    struct pcoll a = { .fn = PC_NB_ALLTOALLW, .s = s, .scs = sci, .sds = sds, .sts = sts, .r = r, .rcs = rci,
                       .rds = rds, .rts = rts, .comm = comm };
    rc = pc_new_ints(&a, req, mem, n);
    free(mem);
    return rc;
}
ALIAS(Neighbor_alltoallw_init_c)

#else
/* Open MPI 4.1 has them only as MPIX_ extensions, outside the MPI_ names this library wraps. */
int mana_pcoll_start(struct vobj *r) { (void)r; return MPI_ERR_REQUEST; }
void mana_pcoll_free(struct vobj *r) { (void)r; }
#endif
