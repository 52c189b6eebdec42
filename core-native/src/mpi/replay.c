/*
 * replay.c - after a restart, make every object the program made again, in the order it made them,
 * under the same virtual handle (objects.c keeps each one's recipe).  Collective constructors run on
 * every member in the same order, as they did before, so the replay is itself a valid MPI program.
 * Objects the program freed but another recipe names ("zombies") are made, used, then freed again.
 */
#include "mpi_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MPI_User_function *mana_op_tramp(int slot);                         /* objects.c */
int mana_topo_replay(struct vobj *o, MPI_Comm pc, MPI_Comm *nc);     /* topo.c */
int mana_dtype_replay(struct vobj *o, MPI_Datatype *t);             /* dtype.c */
int mana_errcode_replay(struct vobj *o);                            /* errh.c */
int mana_intercomm_replay(struct vobj *o, MPI_Comm *nc);            /* intercomm.c */

static int by_order(const void *a, const void *b)
{
    const struct vobj *x = *(struct vobj *const *)a, *y = *(struct vobj *const *)b;
    return x->order < y->order ? -1 : x->order > y->order;
}

uint32_t mana_replay_count(void)
{
    uint32_t n = 0, used = mana_vtab_used();
    for (uint32_t i = 1; i <= used; i++) if (vtab[i].recipe != R_NONE) n++;
    return n;
}

static uint64_t rparent(const struct vobj *o) { return o->parent[0] ? o->parent[0]->real : 0; }

/* Contiguous, vector, hvector and resized types (with int counts: the _c forms are dtype_c.c's). */
static int type_simple(const struct vobj *o, MPI_Datatype old, MPI_Datatype *t)
{
    int rc, n = (int)o->a[0];
    switch (o->recipe) {
    case R_TYPE_CONTIGUOUS: LOWER(rc = real.Type_contiguous(n, old, t)); break;
    case R_TYPE_VECTOR: LOWER(rc = real.Type_vector(n, (int)o->a[2], (int)o->a[3], old, t)); break;
    case R_TYPE_HVECTOR: LOWER(rc = real.Type_create_hvector(n, (int)o->a[2], (MPI_Aint)o->a[3], old, t)); break;
    default: LOWER(rc = real.Type_create_resized(old, (MPI_Aint)o->a[2], (MPI_Aint)o->a[3], t)); break;
    }
    return rc;
}

/* An op: made on the trampoline of its slot again, by the call that made it. */
static int replay_op(struct vobj *o)
{
    MPI_Op op;
    int rc;
#if MPI_VERSION >= 4
    if (recipe_large(o)) {
        LOWER(rc = real.Op_create_c(mana_op_tramp_c((int)o->a[0]), (int)o->a[1], &op));
        o->real = HBITS(op);
        return rc;
    }
#endif
    LOWER(rc = real.Op_create(mana_op_tramp((int)o->a[0]), (int)o->a[1], &op));
    o->real = HBITS(op);
    return rc;
}

static int replay_one(struct vobj *o, MPI_Group wg)
{
    int rc = MPI_SUCCESS;
    MPI_Comm pc = HMAKE(MPI_Comm, rparent(o)), nc = MPI_COMM_NULL;
    /* a[1] holds the old type's virtual handle for datatype recipes only (other recipes keep other
     * arguments there): translate it only for those. */
    MPI_Datatype t = MPI_DATATYPE_NULL;
#define old HMAKE(MPI_Datatype, v2r((uint64_t)o->a[1]))
    int n = (int)o->a[0];
    int *ia = o->arr;
#if MPI_VERSION >= 4
    if (o->kind == K_TYPE && recipe_large(o)) rc = mana_type_c_replay(o, &t);   /* a _c constructor's */
    else
#endif
    switch (o->recipe) {
    case R_COMM_DUP: LOWER(rc = real.Comm_dup(pc, &nc)); break;
    case R_COMM_SPLIT: LOWER(rc = real.Comm_split(pc, (int)o->a[0], (int)o->a[1], &nc)); break;
    case R_COMM_SPLIT_TYPE: {
        MPI_Info ri = mana_info_real(o->a[2] ? HMAKE(MPI_Info, o->a[2]) : MPI_INFO_NULL);
        LOWER(rc = real.Comm_split_type(pc, (int)o->a[0], (int)o->a[1], ri, &nc));
        mana_info_real_free(ri);
        break;
    }
    case R_COMM_CREATE: {
        MPI_Group g;
        LOWER(rc = real.Group_incl(wg, (int)(o->arr_len / sizeof(int)), ia, &g);
              if (rc == MPI_SUCCESS) { rc = real.Comm_create(pc, g, &nc); real.Group_free(&g); });
        break;
    }
    case R_CART_CREATE: LOWER(rc = real.Cart_create(pc, n, ia, ia + n, (int)o->a[1], &nc)); break;
    case R_CART_SUB: LOWER(rc = real.Cart_sub(pc, ia, &nc)); break;
    case R_GROUP_WORLD_RANKS: {
        MPI_Group g;
        LOWER(rc = real.Group_incl(wg, (int)(o->arr_len / sizeof(int)), ia, &g));
        o->real = HBITS(g);
        return rc;
    }
    case R_TYPE_CONTIGUOUS: case R_TYPE_VECTOR: case R_TYPE_HVECTOR: case R_TYPE_RESIZED:
        rc = type_simple(o, old, &t);
        break;
    case R_TYPE_INDEXED: LOWER(rc = real.Type_indexed(n, ia, ia + n, old, &t)); break;
    case R_TYPE_INDEXED_BLOCK: LOWER(rc = real.Type_create_indexed_block(n, (int)o->a[2], ia, old, &t)); break;
    case R_TYPE_HINDEXED:
        LOWER(rc = real.Type_create_hindexed(n, ia, (const MPI_Aint *)((char *)o->arr + (size_t)n * sizeof(int)), old, &t));
        break;
    case R_TYPE_STRUCT: {
        const char *p = o->arr;
        const MPI_Aint *d = (const MPI_Aint *)(p + (size_t)n * sizeof(int));
        const uint64_t *tv = mana_struct_types(o);
        MPI_Datatype *rt = malloc(((size_t)n + 1) * sizeof *rt);
        if (!rt) return MPI_ERR_NO_MEM;
        for (int i = 0; i < n; i++) rt[i] = HMAKE(MPI_Datatype, v2r(tv[i]));
        LOWER(rc = real.Type_create_struct(n, (const int *)p, d, rt, &t));
        free(rt);
        break;
    }
    case R_TYPE_SUBARRAY: LOWER(rc = real.Type_create_subarray(n, ia, ia + n, ia + 2 * n, (int)o->a[2], old, &t)); break;
    case R_TYPE_DUP: LOWER(rc = real.Type_dup(old, &t)); break;
    case R_TYPE_CONTENTS: {
        /* the type a[1] stands for, made again by that type's recipe on a copy of its entry (the
         * entry itself keeps its own real handle), committed as this handle was */
        struct vobj *p = vobj_of((uint64_t)o->a[1]);
        if (!p || p->kind != K_TYPE || p->recipe == R_NONE) { LOWER(rc = real.Type_dup(old, &t)); break; }
        struct vobj copy = *p;
        copy.flags = (copy.flags & ~VF_COMMITTED) | (o->flags & VF_COMMITTED);
        rc = replay_one(&copy, wg);
        o->real = copy.real;
        return rc;
    }
    case R_OP_CREATE: return replay_op(o);
    case R_GRAPH_CREATE: case R_DIST_GRAPH: case R_DIST_GRAPH_ADJ: rc = mana_topo_replay(o, pc, &nc); break;
    case R_COMM_CREATE_GROUP: {
        /* MPICH 4.0 reads the parent's group in MPI_Comm_create_group without making it first (a NULL
         * there: SIGSEGV in every restart of a program that had made a communicator this way); a program
         * makes it with the MPI_Comm_group it takes its group from, and so does the replay */
        MPI_Group g, pg;
        LOWER(rc = real.Comm_group(pc, &pg); if (rc == MPI_SUCCESS) real.Group_free(&pg);
              if (rc == MPI_SUCCESS) rc = real.Group_incl(wg, (int)(o->arr_len / sizeof(int)), ia, &g);
              if (rc == MPI_SUCCESS) { rc = real.Comm_create_group(pc, g, (int)o->a[0], &nc); real.Group_free(&g); });
        break;
    }
    case R_TYPE_DARRAY: case R_TYPE_HINDEXED_BLOCK: case R_TYPE_F90: rc = mana_dtype_replay(o, &t); break;
    case R_INTERCOMM_CREATE: case R_INTERCOMM_MERGE: rc = mana_intercomm_replay(o, &nc); break;
    case R_FILE_OPEN: return mana_file_replay(o, pc);
    case R_WIN_CREATE: return mana_win_replay(o, pc);
    /* info objects live in the upper half: only the real MPI_INFO_NULL they stand for is new */
    case R_INFO: o->real = v2r(HBITS(MPI_INFO_NULL)); return MPI_SUCCESS;
    case R_ERRH_USER: return MPI_SUCCESS;                 /* mana_errh_replay did it */
    case R_ERR_CLASS: case R_ERR_CODE: case R_ERR_STRING: return mana_errcode_replay(o);
    default: return MPI_SUCCESS;
    }
#undef old
    if (rc != MPI_SUCCESS) return rc;
    if (o->kind == K_COMM) {
        o->real = HBITS(nc) == v2r(HBITS(MPI_COMM_NULL)) ? 0 : HBITS(nc);
        if (o->real && o->errh) LOWER(real.Comm_set_errhandler(nc, HMAKE(MPI_Errhandler, v2r(o->errh))));
    } else if (o->kind == K_TYPE) {
        o->real = HBITS(t);
        if (o->flags & VF_COMMITTED) LOWER(rc = real.Type_commit(&t));
    }
    return rc;
}

/*
 * Duplicates under MPI_THREAD_MULTIPLE.  Two threads of a rank may have duplicated two communicators at
 * once, so the ranks' creation orders may differ (rank 0 made c1's dup first, rank 1 c2's): replayed
 * one blocking MPI_Comm_dup at a time, in each rank's own order, rank 0 waited in c1's dup for rank 1,
 * which waited in c2's for rank 0 (test dup_mt).  For such programs every dup is posted as an
 * MPI_Comm_idup as soon as its parent exists, in creation order (which is the same on every member of
 * one parent: MPI orders a communicator's collectives), and one waiting on an unfinished parent goes to
 * a deferred list; before any other collective recipe, and at the end, all of them complete.  One
 * thread's constructors of other kinds were blocking before the checkpoint too (objects.c).
 * A posted dup keeps its slot until it completes: the real MPI may write the new communicator's handle
 * into ncs[k] only at completion, so a slot is never moved or reused (each object is posted once, so
 * the arrays have room for all).  posted[k] is NULL once slot k completed.
 */
struct dups {
    struct vobj **posted, **deferred;
    MPI_Request *reqs;
    MPI_Comm *ncs;
    uint32_t nslots, nposted, ndeferred;     /* slots used, of them still pending; deferred */
};

static int dup_pending(const struct dups *d, const struct vobj *o)
{
    for (uint32_t i = 0; i < d->nslots; i++) if (d->posted[i] == o) return 1;
    for (uint32_t i = 0; i < d->ndeferred; i++) if (d->deferred[i] == o) return 1;
    return 0;
}

static int dup_post(struct dups *d, struct vobj *o)
{
    uint32_t k = d->nslots;
    int rc;
    LOWER(rc = real.Comm_idup(HMAKE(MPI_Comm, rparent(o)), &d->ncs[k], &d->reqs[k]));
    if (rc != MPI_SUCCESS) return rc;
    d->posted[k] = o;
    d->nslots++;
    d->nposted++;
    return MPI_SUCCESS;
}

/* Posted dups complete, deferred ones are posted once their parent is there, until none is left. */
static int dup_flush(struct dups *d)
{
    for (unsigned spin = 0; d->nposted || d->ndeferred; spin++) {
        int rc = MPI_SUCCESS, progress = 0;
        for (uint32_t i = 0; i < d->nslots && rc == MPI_SUCCESS; i++) {
            if (!d->posted[i]) continue;
            int flag = 0;
            LOWER(rc = real.Test(&d->reqs[i], &flag, MPI_STATUS_IGNORE));
            if (rc != MPI_SUCCESS || !flag) continue;
            struct vobj *o = d->posted[i];
            o->real = HBITS(d->ncs[i]);
            if (o->errh) LOWER(real.Comm_set_errhandler(d->ncs[i], HMAKE(MPI_Errhandler, v2r(o->errh))));
            d->posted[i] = NULL;
            d->nposted--;
            progress = 1;
        }
        if (rc != MPI_SUCCESS) return rc;
        if (progress) {                        /* deferred ones whose parent is there now, in order */
            uint32_t keep = 0;
            for (uint32_t i = 0; i < d->ndeferred; i++) {
                struct vobj *o = d->deferred[i];
                /* (entries before i not kept are stale copies: posted or kept, pending either way) */
                if (dup_pending(d, o->parent[0])) { d->deferred[keep++] = o; continue; }
                if ((rc = dup_post(d, o)) != MPI_SUCCESS) return rc;
            }
            d->ndeferred = keep;
        }
        if (spin_yield(spin)) mana_sys0(SYS_sched_yield);
    }
    return MPI_SUCCESS;
}

/* Recipes that make nothing with other ranks: they need not wait for the pending dups. */
static int local_recipe(const struct vobj *o)
{
    return o->kind == K_TYPE || o->kind == K_OP || o->kind == K_GROUP || o->kind == K_INFO ||
           o->kind == K_ERRH || o->kind == K_ERRCODE;
}

int mana_replay(char *err, size_t errlen)
{
    uint32_t used = mana_vtab_used(), n = 0;
    struct vobj **list = malloc(((size_t)used + 1) * sizeof *list);
    if (!list) { snprintf(err, errlen, "out of memory"); return -1; }
    for (uint32_t i = 1; i <= used; i++) {
        struct vobj *o = &vtab[i];
        if (o->kind == K_REQ && (o->rkind == RQ_COLL || !(o->flags & VF_DONE))) continue;
        if (o->recipe != R_NONE) list[n++] = o;
    }
    qsort(list, n, sizeof *list, by_order);
    MPI_Group wg;
    LOWER(real.Comm_group(R(MPI_COMM_WORLD), &wg));
    mana_errh_replay();                 /* before any communicator gets a user error handler again */
    for (int k = 0; k < 2; k++) {
        struct vobj *pre = k == 0 ? world_obj : self_obj;
        if (pre->errh) LOWER(real.Comm_set_errhandler(HMAKE(MPI_Comm, pre->real), HMAKE(MPI_Errhandler, v2r(pre->errh))));
    }
    struct dups d = { 0 };
    if (mana_thread_multiple) {
        d.posted = calloc(n + 1, sizeof *d.posted);
        d.deferred = calloc(n + 1, sizeof *d.deferred);
        d.reqs = calloc(n + 1, sizeof *d.reqs);
        d.ncs = calloc(n + 1, sizeof *d.ncs);
        if (!d.posted || !d.deferred || !d.reqs || !d.ncs) {
            snprintf(err, errlen, "out of memory");
            free(d.posted), free(d.deferred), free(d.reqs), free(d.ncs), free(list);
            return -1;
        }
    }
    int rc = MPI_SUCCESS;
    uint32_t i = 0;
    for (; i < n; i++) {
        struct vobj *o = list[i];
        if (d.posted && o->kind == K_COMM && o->recipe == R_COMM_DUP) {
            if (dup_pending(&d, o->parent[0])) d.deferred[d.ndeferred++] = o;
            else if ((rc = dup_post(&d, o)) != MPI_SUCCESS) break;
            continue;
        }
        if (d.posted && !local_recipe(o) && (rc = dup_flush(&d)) != MPI_SUCCESS) break;
        if ((rc = replay_one(o, wg)) != MPI_SUCCESS) break;
    }
    if (rc == MPI_SUCCESS && d.posted && (rc = dup_flush(&d)) != MPI_SUCCESS) i = n - 1;   /* (a dup's) */
    free(d.posted), free(d.deferred), free(d.reqs), free(d.ncs);
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "cannot rebuild MPI object %u of %u (recipe %u): MPI error %d", i + 1, n,
                 list[i]->recipe, rc);
        free(list);
        return -1;
    }
    /* Zombie communicators did their part.  A zombie datatype keeps its real type: a request may still
     * use it (vunref frees it with the last object that names it). */
    for (uint32_t i = 0; i < n; i++) {
        struct vobj *o = list[i];
        if (!(o->flags & VF_ZOMBIE) || !o->real || o->kind != K_COMM) continue;
        if (o->flags & VF_FILE_PARENT) continue;    /* mana_io_restart still needs it, then frees it */
        /* a receive may wait on it: freed after mana_p2p_restart (mana_cfree_restart_free) */
        if (o->flags & VF_CFREED) continue;
        MPI_Comm c = HMAKE(MPI_Comm, o->real);
        LOWER(real.Comm_free(&c));
        o->real = 0;
    }
    LOWER(real.Group_free(&wg));
    free(list);
    return 0;
}
