/*
 * topo.c - graph and distributed-graph topologies, the group set operations, and the topology
 * queries objects.c does not have.
 *
 * The constructors are collectives of the old communicator (its sequence gate, like MPI_Cart_create)
 * with a recipe holding every argument, so the replay makes the same call on every member.  Groups
 * are world-rank lists (objects.c), whatever operation made them.
 *
 * MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY: Open MPI's are constants; MPICH's are variables of the
 * library, so the program sees ours (sentinels set at load) and the real call gets the real ones.
 */
#include "mpi_int.h"

#include <stdlib.h>
#include <string.h>

enum { W_GIVEN = 0, W_UNWEIGHTED, W_EMPTY };

#ifndef OPEN_MPI
/* Defined here with their values (api/gen_stub.py leaves them out of the stub): they are const, and a
 * program that names them holds a copy relocation in its read-only-after-relocation data, filled from
 * these at load. Storing into them later is undefined (GCC drops such stores at -O2, leaving both
 * NULL and alike; at -O0 the store faults on the program's read-only copy). */
static int unweighted_sentinel, empty_sentinel;
int *const MPI_UNWEIGHTED = &unweighted_sentinel;
int *const MPI_WEIGHTS_EMPTY = &empty_sentinel;
#endif

static int wkind(const int *w)
{
    if (w == MPI_UNWEIGHTED) return W_UNWEIGHTED;
    if (w == MPI_WEIGHTS_EMPTY) return W_EMPTY;
    return W_GIVEN;
}

/* The weights argument for the real call: call inside the excursion of that call (the lower half's
 * values are new after a restart). */
static int *real_w(int kind, const int *w)
{
    if (kind == W_GIVEN) return (int *)w;
#ifdef OPEN_MPI
    return kind == W_UNWEIGHTED ? MPI_UNWEIGHTED : MPI_WEIGHTS_EMPTY;
#else
    void *(*resolve)(const char *) = (void *(*)(const char *))lower.lh->mpi.resolve;
    int *const *p = resolve(kind == W_UNWEIGHTED ? "MPI_UNWEIGHTED" : "MPI_WEIGHTS_EMPTY");
    return p ? *p : NULL;
#endif
}

/* Arrays of a recipe, one after the other (ints). */
static int *pack(size_t *len, const int *a, int na, const int *b, int nb, const int *c, int nc, const int *d, int nd)
{
    size_t n = (size_t)na + (size_t)nb + (size_t)nc + (size_t)nd;
    int *p = malloc(n * sizeof(int) + 1), *q = p;
    if (!p) return NULL;
    if (na) { memcpy(q, a, (size_t)na * sizeof(int)); q += na; }
    if (nb) { memcpy(q, b, (size_t)nb * sizeof(int)); q += nb; }
    if (nc) { memcpy(q, c, (size_t)nc * sizeof(int)); q += nc; }
    if (nd) memcpy(q, d, (size_t)nd * sizeof(int));
    *len = n * sizeof(int);
    return p;
}

/* The new communicator's entry (a zombie where this rank got MPI_COMM_NULL: the replay must still
 * make the call). */
static struct vobj *made_comm(MPI_Comm realc, struct vobj *p, int recipe, MPI_Comm *out)
{
    p->flags |= VF_PARENT;
    struct vobj *o;
    new_comm(realc, p, recipe, out, &o);
    if (!o) o = comm_zombie(p, recipe);
    return o;
}

/* ---- graph ---- */

int PMPI_Graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *out)
{
    MANA_CHECK_INIT();
    struct vobj *p = comm_obj(old);
    if (!p) return MPI_ERR_COMM;
    MPI_Comm rc_;
    int rc;
    uint64_t hold;
    COLL_MAKE(p, hold, rc, rc = real.Graph_create(R(old), nnodes, index, edges, reorder, &rc_));
    if (rc != MPI_SUCCESS) return rc;
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    struct vobj *o = made_comm(rc_, p, R_GRAPH_CREATE, out);
    o->a[0] = nnodes;
    o->a[1] = reorder;
    o->a[2] = nedges;
    o->arr = pack(&o->arr_len, index, nnodes, edges, nedges, NULL, 0, NULL, 0);
    made_release(hold);
    return MPI_SUCCESS;
}
ALIAS(Graph_create)

int PMPI_Dist_graph_create_adjacent(MPI_Comm old, int indeg, const int src[], const int sw[], int outdeg,
                                    const int dst[], const int dw[], MPI_Info info, int reorder, MPI_Comm *out)
{
    MANA_CHECK_INIT();
    struct vobj *p = comm_obj(old);
    if (!p) return MPI_ERR_COMM;
    int swk = wkind(sw), dwk = wkind(dw);
    MPI_Comm rc_;
    int rc;
    (void)info;                     /* hints: see info.c */
    uint64_t hold;
    COLL_MAKE(p, hold, rc, rc = real.Dist_graph_create_adjacent(R(old), indeg, src, real_w(swk, sw), outdeg, dst,
                                                                real_w(dwk, dw), R(MPI_INFO_NULL), reorder, &rc_));
    if (rc != MPI_SUCCESS) return rc;
    struct vobj *o = made_comm(rc_, p, R_DIST_GRAPH_ADJ, out);
    o->a[0] = indeg;
    o->a[1] = reorder;
    o->a[2] = outdeg;
    o->a[3] = swk;
    o->a[4] = dwk;
    o->arr = pack(&o->arr_len, src, indeg, sw, swk == W_GIVEN ? indeg : 0, dst, outdeg, dw, dwk == W_GIVEN ? outdeg : 0);
    made_release(hold);
    return MPI_SUCCESS;
}
ALIAS(Dist_graph_create_adjacent)

int PMPI_Dist_graph_create(MPI_Comm old, int n, const int src[], const int deg[], const int dst[], const int w[],
                           MPI_Info info, int reorder, MPI_Comm *out)
{
    MANA_CHECK_INIT();
    struct vobj *p = comm_obj(old);
    if (!p) return MPI_ERR_COMM;
    int wk = wkind(w), total = 0;
    for (int i = 0; i < n; i++) total += deg[i];
    MPI_Comm rc_;
    int rc;
    (void)info;
    uint64_t hold;
    COLL_MAKE(p, hold, rc, rc = real.Dist_graph_create(R(old), n, src, deg, dst, real_w(wk, w), R(MPI_INFO_NULL), reorder, &rc_));
    if (rc != MPI_SUCCESS) return rc;
    struct vobj *o = made_comm(rc_, p, R_DIST_GRAPH, out);
    o->a[0] = n;
    o->a[1] = reorder;
    o->a[2] = total;
    o->a[3] = wk;
    o->arr = pack(&o->arr_len, src, n, deg, n, dst, total, w, wk == W_GIVEN ? total : 0);
    made_release(hold);
    return MPI_SUCCESS;
}
ALIAS(Dist_graph_create)

/* Replay of the three recipes (replay.c), in the lower half's terms: pc is the parent's real handle. */
int mana_topo_replay(struct vobj *o, MPI_Comm pc, MPI_Comm *nc)
{
    int rc = MPI_ERR_INTERN, *ia = o->arr;
    int n = (int)o->a[0], reorder = (int)o->a[1], m = (int)o->a[2];
    switch (o->recipe) {
    case R_GRAPH_CREATE: LOWER(rc = real.Graph_create(pc, n, ia, ia + n, reorder, nc)); break;
    case R_DIST_GRAPH_ADJ: {
        int swk = (int)o->a[3], dwk = (int)o->a[4];
        const int *sw = ia + n, *dst = sw + (swk == W_GIVEN ? n : 0), *dw = dst + m;
        LOWER(rc = real.Dist_graph_create_adjacent(pc, n, ia, real_w(swk, sw), m, dst, real_w(dwk, dw), R(MPI_INFO_NULL),
                                                   reorder, nc));
        break;
    }
    case R_DIST_GRAPH: {
        int wk = (int)o->a[3];
        LOWER(rc = real.Dist_graph_create(pc, n, ia, ia + n, ia + 2 * n, real_w(wk, ia + 2 * n + m), R(MPI_INFO_NULL),
                                          reorder, nc));
        break;
    }
    default: break;
    }
    return rc;
}

int PMPI_Dist_graph_neighbors(MPI_Comm c, int maxin, int src[], int sw[], int maxout, int dst[], int dw[])
{
    MANA_CHECK_INIT();
    int swk = wkind(sw), dwk = wkind(dw), rc;
    LOWER(rc = real.Dist_graph_neighbors(R(c), maxin, src, real_w(swk, sw), maxout, dst, real_w(dwk, dw)));
    return rc;
}
ALIAS(Dist_graph_neighbors)

/* ---- group set operations (the result as world ranks, like every group) ---- */


int PMPI_Group_union(MPI_Group a, MPI_Group b, MPI_Group *out)
{ MANA_CHECK_INIT(); MPI_Group g; int rc; GROUP_LOWER(rc, rc = real.Group_union(R(a), R(b), &g), g, out); return rc; }
ALIAS(Group_union)
int PMPI_Group_intersection(MPI_Group a, MPI_Group b, MPI_Group *out)
{ MANA_CHECK_INIT(); MPI_Group g; int rc; GROUP_LOWER(rc, rc = real.Group_intersection(R(a), R(b), &g), g, out); return rc; }
ALIAS(Group_intersection)
int PMPI_Group_difference(MPI_Group a, MPI_Group b, MPI_Group *out)
{ MANA_CHECK_INIT(); MPI_Group g; int rc; GROUP_LOWER(rc, rc = real.Group_difference(R(a), R(b), &g), g, out); return rc; }
ALIAS(Group_difference)
int PMPI_Group_excl(MPI_Group a, int n, const int ranks[], MPI_Group *out)
{ MANA_CHECK_INIT(); MPI_Group g; int rc; GROUP_LOWER(rc, rc = real.Group_excl(R(a), n, ranks, &g), g, out); return rc; }
ALIAS(Group_excl)
int PMPI_Group_range_incl(MPI_Group a, int n, int ranges[][3], MPI_Group *out)
{ MANA_CHECK_INIT(); MPI_Group g; int rc; GROUP_LOWER(rc, rc = real.Group_range_incl(R(a), n, ranges, &g), g, out); return rc; }
ALIAS(Group_range_incl)
int PMPI_Group_range_excl(MPI_Group a, int n, int ranges[][3], MPI_Group *out)
{ MANA_CHECK_INIT(); MPI_Group g; int rc; GROUP_LOWER(rc, rc = real.Group_range_excl(R(a), n, ranges, &g), g, out); return rc; }
ALIAS(Group_range_excl)
