/*
 * persist.c - persistent requests (MPI_Send_init ... MPI_Start).
 *
 * A persistent request lives only in the upper half: it keeps the arguments of its operation, and
 * each MPI_Start posts an ordinary nonblocking operation in the lower half (req_post), exactly as
 * MPI_Isend or MPI_Irecv would.  So there is no real persistent request to rebuild at a restart: an
 * inactive one is nothing but its arguments (virtual handles, valid after the replay), and an active
 * one is a pending operation that the drain completes (sends) or that is posted again (receives).
 * Completing one (MPI_Wait, MPI_Test, ...) makes it inactive instead of freeing it
 * (req_complete_user in p2p.c).
 */
#include "mpi_int.h"

static int init(int kind, const void *buf, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                MPI_Request *req)
{
    MANA_CHECK_INIT();
    if (!comm_obj(comm)) return MPI_ERR_COMM;
    struct vobj *r = req_new(kind, (void *)buf, count, type, peer, tag, comm);
    r->flags |= VF_PERSIST;
    *req = V(MPI_Request, r);
    return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{ return init(RQ_SEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Send_init)
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{ return init(RQ_SSEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Ssend_init)
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{ return init(RQ_RSEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Rsend_init)
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{ return init(RQ_BSEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Bsend_init)
int PMPI_Recv_init(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{ return init(RQ_RECV, buf, count, type, src, tag, comm, req); }
ALIAS(Recv_init)

#ifdef MANA_HAVE_C
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                     MPI_Request *req)
{ return init(RQ_SEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Send_init_c)
int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                      MPI_Request *req)
{ return init(RQ_SSEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Ssend_init_c)
int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                      MPI_Request *req)
{ return init(RQ_RSEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Rsend_init_c)
int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                      MPI_Request *req)
{ return init(RQ_BSEND, buf, count, type, dest, tag, comm, req); }
ALIAS(Bsend_init_c)
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{ return init(RQ_RECV, buf, count, type, src, tag, comm, req); }
ALIAS(Recv_init_c)
#endif

int PMPI_Start(MPI_Request *h)
{
    MANA_CHECK_INIT();
    struct vobj *r = *h == MPI_REQUEST_NULL ? NULL : vobj_of(HBITS(*h));
    if (!r || r->kind != K_REQ || !(r->flags & VF_PERSIST) || (r->flags & VF_ACTIVE)) return MPI_ERR_REQUEST;
    r->flags &= ~(VF_DONE | VF_POSTED | VF_COUNTED | VF_CANCELING);
    r->real = 0;
    if (r->rkind == RQ_BSEND) {
        /* A buffered send completes locally: its data is in the attached buffer (bsend.c). */
        int rc = mana_bsend(r->buf, r->count, HMAKE(MPI_Datatype, r->a[0]), r->peer, r->tag,
                            HMAKE(MPI_Comm, r->a[1]));
        if (rc != MPI_SUCCESS) return rc;
        status_empty(&r->status);
        r->flags |= VF_ACTIVE | VF_POSTED | VF_DONE;
        return MPI_SUCCESS;
    }
    if (mana_part_start(r)) return MPI_SUCCESS;       /* a partitioned send waits for its partitions */
    r->flags |= VF_ACTIVE;
    int rc = r->rkind == RQ_PCOLL ? mana_pcoll_start(r) : req_post(r);
    if (rc != MPI_SUCCESS) r->flags &= ~VF_ACTIVE;
    return rc;
}
ALIAS(Start)

int PMPI_Startall(int n, MPI_Request hs[])
{
    for (int i = 0; i < n; i++) {
        int rc = PMPI_Start(&hs[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}
ALIAS(Startall)
