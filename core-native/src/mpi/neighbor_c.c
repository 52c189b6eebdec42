/*
 * neighbor_c.c - MPI 4.0's large-count neighbour v and w collectives (MPI_Neighbor_allgatherv_c,
 * _alltoallv_c, _alltoallw_c, their MPI_Ineighbor_ and _init_c forms), which MPICH 4.0 exports.
 *
 * MPICH 4.0.2's own give wrong data on 2 ranks and crash on a 1-rank ring (natively: tests/mpi/pcolls.c
 * found it), so they are never called.  Each is run through its int form instead (this library's own
 * wrapper of it: the communicator's sequence gate, the request the drain completes, the persistent
 * request pcoll.c keeps), with int copies of the counts and displacements.  That is exact whenever every
 * count and displacement fits in an int, the common case; when one does not, the call fails with
 * MPI_ERR_COUNT through the communicator's error handler, after a MANA: line that says why.
 *
 * The copies live as long as the real library may read them: a blocking call's until it returns; a
 * nonblocking one's as long as its request (the request's arr, freed with it: the generated
 * MPI_Ineighbor_allgatherv/alltoallv keep nothing there; MPI_Ineighbor_alltoallw keeps its real types
 * there, so its _c form is coll.c's, with the copies in the same allocation); a persistent one's in the
 * request's record (pcoll.c).
 */
#include "mpi_int.h"

#include <limits.h>
#include <stdlib.h>

#if MPI_VERSION >= 4

/* Copy n counts into ints; 0 when one does not fit. */
static int narrow_counts(int *out, const MPI_Count *in, int n)
{
    for (int i = 0; i < n; i++) {
        if (in[i] < INT_MIN || in[i] > INT_MAX) return 0;
        out[i] = (int)in[i];
    }
    return 1;
}

/* Copy n displacements into ints; 0 when one does not fit. */
static int narrow_displs(int *out, const MPI_Aint *in, int n)
{
    for (int i = 0; i < n; i++) {
        if (in[i] < INT_MIN || in[i] > INT_MAX) return 0;
        out[i] = (int)in[i];
    }
    return 1;
}

/* A count or displacement of fn's that does not fit in an int: say so, then what the real library does
 * with an error on comm (its error handler: MPI_ERRORS_ARE_FATAL ends the job), and MPI_ERR_COUNT. */
int mana_nb_too_large(MPI_Comm comm, const char *fn)
{
    mana_say("MANA: %s: a count or displacement does not fit in an int; under checkpointing the large-count "
             "neighbour v and w collectives run through their int forms (MPICH 4.0.2's own give wrong results)",
             fn);
    PMPI_Comm_call_errhandler(comm, MPI_ERR_COUNT);
    return MPI_ERR_COUNT;
}

/* The int copies of a v form's arrays, in one allocation (*mem, the caller's to free or keep): send
 * counts and displacements (outdegree each, when given), receive counts and displacements (indegree). */
int mana_nbv_narrow(MPI_Comm comm, const char *fn, const MPI_Count scs[], const MPI_Aint sds[],
                      const MPI_Count rcs[], const MPI_Aint rds[], struct nbv *o)
{
    int ns = 0, nr = 0, rc = mana_w_peers(comm, 1, &ns, &nr);
    if (rc != MPI_SUCCESS) return rc;
    int *m = malloc((2 * (size_t)ns + 2 * (size_t)nr + 1) * sizeof(int));
    if (!m) return MPI_ERR_NO_MEM;
    *o = (struct nbv){ scs ? m : NULL, scs ? m + ns : NULL, m + 2 * ns, m + 2 * ns + nr, m, 2 * (size_t)ns + 2 * (size_t)nr };
    int ok = narrow_counts(o->rcs, rcs, nr) && narrow_displs(o->rds, rds, nr);
    if (scs) ok = ok && narrow_counts(o->scs, scs, ns) && narrow_displs(o->sds, sds, ns);
    if (ok) return MPI_SUCCESS;
    free(m);
    return mana_nb_too_large(comm, fn);
}

/* A nonblocking call's copies go with its request (freed with it). */
static void keep_with(MPI_Request req, void *mem)
{
    struct vobj *v = vobj_of(HBITS(req));
    if (v && !v->arr) v->arr = mem;
    else free(mem);          /* cannot happen: the generated requests keep nothing in arr */
}

int PMPI_Neighbor_allgatherv_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, const MPI_Count rcs[],
                               const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm)
{
    MANA_CHECK_INIT();
    struct nbv o;
    if (sc < INT_MIN || sc > INT_MAX) return mana_nb_too_large(comm, "MPI_Neighbor_allgatherv_c");
    int rc = mana_nbv_narrow(comm, "MPI_Neighbor_allgatherv_c", NULL, NULL, rcs, rds, &o);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Neighbor_allgatherv(s, (int)sc, st, r, o.rcs, o.rds, rt, comm);
    free(o.mem);
    return rc;
}
ALIAS(Neighbor_allgatherv_c)

int PMPI_Ineighbor_allgatherv_c(const void *s, MPI_Count sc, MPI_Datatype st, void *r, const MPI_Count rcs[],
                                const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    MANA_CHECK_INIT();
    struct nbv o;
    if (sc < INT_MIN || sc > INT_MAX) return mana_nb_too_large(comm, "MPI_Ineighbor_allgatherv_c");
    int rc = mana_nbv_narrow(comm, "MPI_Ineighbor_allgatherv_c", NULL, NULL, rcs, rds, &o);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Ineighbor_allgatherv(s, (int)sc, st, r, o.rcs, o.rds, rt, comm, req);
    if (rc == MPI_SUCCESS) keep_with(*req, o.mem);
    else free(o.mem);
    return rc;
}
ALIAS(Ineighbor_allgatherv_c)

int PMPI_Neighbor_alltoallv_c(const void *s, const MPI_Count scs[], const MPI_Aint sds[], MPI_Datatype st, void *r,
                              const MPI_Count rcs[], const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm)
{
    MANA_CHECK_INIT();
    struct nbv o;
    int rc = mana_nbv_narrow(comm, "MPI_Neighbor_alltoallv_c", scs, sds, rcs, rds, &o);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Neighbor_alltoallv(s, o.scs, o.sds, st, r, o.rcs, o.rds, rt, comm);
    free(o.mem);
    return rc;
}
ALIAS(Neighbor_alltoallv_c)

int PMPI_Ineighbor_alltoallv_c(const void *s, const MPI_Count scs[], const MPI_Aint sds[], MPI_Datatype st, void *r,
                               const MPI_Count rcs[], const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm,
                               MPI_Request *req)
{
    MANA_CHECK_INIT();
    struct nbv o;
    int rc = mana_nbv_narrow(comm, "MPI_Ineighbor_alltoallv_c", scs, sds, rcs, rds, &o);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Ineighbor_alltoallv(s, o.scs, o.sds, st, r, o.rcs, o.rds, rt, comm, req);
    if (rc == MPI_SUCCESS) keep_with(*req, o.mem);
    else free(o.mem);
    return rc;
}
ALIAS(Ineighbor_alltoallv_c)

/* The w form's counts as ints (its displacements are MPI_Aint in both forms): *mem to free. */
int mana_nbw_narrow(MPI_Comm comm, const char *fn, const MPI_Count scs[], const MPI_Count rcs[], int **sci,
                    int **rci, void **mem, size_t *n)
{
    int ns = 0, nr = 0, rc = mana_w_peers(comm, 1, &ns, &nr);
    if (rc != MPI_SUCCESS) return rc;
    int *m = malloc(((size_t)ns + (size_t)nr + 1) * sizeof(int));
    if (!m) return MPI_ERR_NO_MEM;
    if (!narrow_counts(m, scs, ns) || !narrow_counts(m + ns, rcs, nr)) {
        free(m);
        return mana_nb_too_large(comm, fn);
    }
    *sci = m;
    *rci = m + ns;
    *mem = m;
    *n = (size_t)ns + (size_t)nr;
    return MPI_SUCCESS;
}

int PMPI_Neighbor_alltoallw_c(const void *s, const MPI_Count scs[], const MPI_Aint sds[], const MPI_Datatype sts[],
                              void *r, const MPI_Count rcs[], const MPI_Aint rds[], const MPI_Datatype rts[],
                              MPI_Comm comm)
{
    MANA_CHECK_INIT();
    int *sci, *rci;
    void *mem;
    size_t n;
    int rc = mana_nbw_narrow(comm, "MPI_Neighbor_alltoallw_c", scs, rcs, &sci, &rci, &mem, &n);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Neighbor_alltoallw(s, sci, sds, sts, r, rci, rds, rts, comm);
    free(mem);
    return rc;
}
ALIAS(Neighbor_alltoallw_c)

#endif
