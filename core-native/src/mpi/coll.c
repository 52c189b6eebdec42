/*
 * coll.c - collectives.  Each one first passes the communicator's sequence gate (coll_enter: the
 * collective drain may hold it there), then runs as one real call in the lower half.  Nonblocking
 * collectives are requests the drain completes before the image is written.
 */
#include "mpi_int.h"

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
