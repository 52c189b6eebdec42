/*
 * greq.c - generalized requests (MPI_Grequest_start, MPI_Grequest_complete): requests whose operation
 * the program runs itself (a library's own asynchronous I/O, say) and completes by calling
 * MPI_Grequest_complete.
 *
 * They never reach the real MPI: the request (rkind RQ_GREQ) lives in the upper half only, never
 * posted, so the drain leaves it alone (a checkpoint cannot complete what only the program can) and a
 * restart finds it as it was, pending or done.  The waiting loops see it done once the program has
 * completed it (from another thread, typically).  Its status comes from the program's query function,
 * called by MPI_Grequest_complete (the standard lets the implementation call it when the request
 * completes: the program's state it reads is there by then); the free function runs when the request
 * goes (its completion by a wait or test, or MPI_Request_free of a completed one), the cancel function
 * on MPI_Cancel.
 */
#include "mpi_int.h"

#include <stdlib.h>

/* The program's functions and state (the request's arr). */
struct greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
};

int PMPI_Grequest_start(MPI_Grequest_query_function *query, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel, void *extra, MPI_Request *req)
{
    MANA_CHECK_INIT();
    struct greq *g = malloc(sizeof *g);
    if (!g) return MPI_ERR_NO_MEM;
    *g = (struct greq){ query, free_fn, cancel, extra };
    struct vobj *r = vnew(K_REQ, 0);
    r->rkind = RQ_GREQ;
    r->arr = g;
    r->peer = -1;                 /* a marker Open MPI's Fortran binding clears (fortran.c) */
    status_empty(&r->status);
    *req = V(MPI_Request, r);
    return MPI_SUCCESS;
}
ALIAS(Grequest_start)

int PMPI_Grequest_complete(MPI_Request h)
{
    MANA_CHECK_INIT();
    struct vobj *r = h == MPI_REQUEST_NULL ? NULL : vobj_of(HBITS(h));
    if (!r || r->kind != K_REQ || r->rkind != RQ_GREQ) return MPI_ERR_REQUEST;
    struct greq *g = r->arr;
    MPI_Status st;
    status_empty(&st);
    int rc = g->query ? g->query(g->extra, &st) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) st.MPI_ERROR = rc;
    r->status = st;
    /* a waiting thread polls the flag: the status is in place before it sees the request done */
    __atomic_or_fetch(&r->flags, VF_DONE, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}
ALIAS(Grequest_complete)

/* MPI_Cancel of a generalized request: the program's cancel function, told whether it completed. */
int mana_greq_cancel(struct vobj *r)
{
    struct greq *g = r->arr;
    int done = (__atomic_load_n(&r->flags, __ATOMIC_ACQUIRE) & VF_DONE) != 0;
    return g->cancel ? g->cancel(g->extra, done) : MPI_SUCCESS;
}

/* The request goes (vrelease follows): the program's free function. */
int mana_greq_free(struct vobj *r)
{
    struct greq *g = r->arr;
    return g && g->free_fn ? g->free_fn(g->extra) : MPI_SUCCESS;
}
