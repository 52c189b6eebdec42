/*
 * objects.c - communicators, groups, datatypes, ops and cartesian topologies.
 *
 * Each object the program makes gets a virtual handle and a recipe (how it was made, in terms of
 * other virtual handles); replay.c makes the real object again from it after a restart.  Groups are
 * kept as lists of world ranks, so a group never depends on the communicator it came from.
 * Collective constructors pass the parent's sequence gate like any collective.  Queries that only
 * read handles (Group_size, Type_size, Pack, Cart_coords...) are generated pass-throughs (api/policy.tsv).
 */
#include "mpi_int.h"

#include <stdlib.h>
#include <string.h>

static void *dup_arr(const void *src, size_t len)
{
    void *p = malloc(len ? len : 1);
    if (p && len) memcpy(p, src, len);
    return p;
}

/* ---- communicators ---- */

int new_comm(MPI_Comm realc, struct vobj *parent, int recipe, MPI_Comm *out, struct vobj **made)
{
    if (HBITS(realc) == v2r(HBITS(MPI_COMM_NULL))) { *out = MPI_COMM_NULL; if (made) *made = NULL; return MPI_SUCCESS; }
    struct vobj *o = vnew(K_COMM, HBITS(realc));
    o->recipe = (uint16_t)recipe;
    mana_record_parent(o, parent);
    comm_init_gid(o, parent);
    o->call = comm_call_id(parent, parent->seq);
    /* A new communicator inherits its parent's error handler: say which, so the replay sets it
     * explicitly (the parent may have another one by then). */
    o->errh = parent->errh ? parent->errh : HBITS(MPI_ERRORS_ARE_FATAL);
    *out = V(MPI_Comm, o);
    if (made) *made = o;
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    MANA_CHECK_INIT();
    struct vobj *p = comm_obj(comm);
        MPI_Comm rc_;
    int rc;
    uint64_t hold;
    /* Under MPI_THREAD_MULTIPLE the real MPI_Comm_dup would wait for the other members while holding this
     * rank's lower half, and a member whose lower half another of its threads holds, in a dup of another
     * communicator, never comes: two threads per rank duplicating two communicators in opposite orders
     * deadlocked (MPICH's threads/comm/ctxdup, comm_dup_deadlock; test dup_mt).  The nonblocking dup
     * waits outside it, as the blocking collectives do then (coll.c, COLL_MT); the same recipe. */
    if (mana_thread_multiple) {
        /* It takes a constructor turn too (ctor_turn.c), held until the dup is done: Open MPI makes one
         * new communicator at a time per process (ompi_comm_nextcid), so a real constructor that holds
         * this rank's lower half waits for an idup still pending here, whose other members may not have
         * posted it yet because their own lower halves are held the same way (win_mt hung so after a
         * restart, in MPI_Win_create). */
        MPI_Request r;
        uint64_t turn = mana_ctor_turn_take(p);
        if ((rc = mana_comm_idup_post(comm, newcomm, &r)) == MPI_SUCCESS) rc = PMPI_Wait(&r, MPI_STATUS_IGNORE);
        mana_ctor_turn_give(turn);
        if (rc != MPI_SUCCESS) return rc;
        return mana_comm_dup_attrs(comm, newcomm);
    }
    COLL_MAKE(p, hold, rc, rc = real.Comm_dup(R(comm), &rc_));
    if (rc != MPI_SUCCESS) return rc;
    p->flags |= VF_PARENT;
    new_comm(rc_, p, R_COMM_DUP, newcomm, NULL);
    made_release(hold);
    return mana_comm_dup_attrs(comm, newcomm);      /* the program's copy callbacks: after the hold */
}
ALIAS(Comm_dup)

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    MANA_CHECK_INIT();
    struct vobj *p = comm_obj(comm);
        MPI_Comm rc_;
    int rc;
    uint64_t hold;
    COLL_MAKE(p, hold, rc, rc = real.Comm_split(R(comm), color, key, &rc_));
    if (rc != MPI_SUCCESS) return rc;
    p->flags |= VF_PARENT;
    struct vobj *o;
    new_comm(rc_, p, R_COMM_SPLIT, newcomm, &o);
    if (o) { o->a[0] = color; o->a[1] = key; }
    else {
        /* MPI_UNDEFINED: nothing here, but the replay must still make the same call. */
        struct vobj *z = comm_zombie(p, R_COMM_SPLIT);
        z->a[0] = color;
        z->a[1] = key;
    }
    made_release(hold);
    return MPI_SUCCESS;
}
ALIAS(Comm_split)

int PMPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    MANA_CHECK_INIT();
    struct vobj *p = comm_obj(comm);
        MPI_Comm rc_;
    int rc;
    /* The hints choose the split for some types (MPI_COMM_TYPE_HW_GUIDED's "mpi_hw_resource_type",
     * MPICH's MPIX_COMM_TYPE_NEIGHBORHOOD's "nbhd_common_dirname"): the real MPI gets them, and the
     * recipe keeps a copy of ours for the replay. */
    MPI_Info ri, kept = MPI_INFO_NULL;
    uint64_t hold;
    COLL_MAKE(p, hold, rc, ri = mana_info_real_lower(info); rc = real.Comm_split_type(R(comm), type, key, ri, &rc_);
              mana_info_real_free_lower(ri));
    if (rc != MPI_SUCCESS) return rc;
    if (info != MPI_INFO_NULL && mana_info_dup(info, &kept) != MPI_SUCCESS) kept = MPI_INFO_NULL;
    p->flags |= VF_PARENT;
    struct vobj *o;
    new_comm(rc_, p, R_COMM_SPLIT_TYPE, newcomm, &o);
    if (!o) o = comm_zombie(p, R_COMM_SPLIT_TYPE);
    o->a[0] = type;
    o->a[1] = key;
    o->a[2] = (int64_t)HBITS(kept);
    made_release(hold);
    return MPI_SUCCESS;
}
ALIAS(Comm_split_type)

/* World ranks of a real group (call outside LOWER). */
int *world_ranks(MPI_Group realg, int *n)
{
    int size = 0;
    MPI_Group wg;
    LOWER(real.Group_size(realg, &size); real.Comm_group(R(MPI_COMM_WORLD), &wg));
    int *in = malloc(((size_t)size + 1) * sizeof *in), *out = malloc(((size_t)size + 1) * sizeof *out);
    if (!in || !out) {
        LOWER(real.Group_free(&wg));
        free(in);
        free(out);
        *n = 0;
        return NULL;
    }
    for (int i = 0; i < size; i++) in[i] = i;
    LOWER(real.Group_translate_ranks(realg, size, in, wg, out); real.Group_free(&wg));
    free(in);
    *n = size;
    return out;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    MANA_CHECK_INIT();
    struct vobj *p = comm_obj(comm), *g = vobj_of(HBITS(group));
        MPI_Comm rc_;
    int rc;
    uint64_t hold;
    COLL_MAKE(p, hold, rc, rc = real.Comm_create(R(comm), R(group), &rc_));
    if (rc != MPI_SUCCESS) return rc;
    p->flags |= VF_PARENT;
    struct vobj *o;
    new_comm(rc_, p, R_COMM_CREATE, newcomm, &o);
    if (!o) o = comm_zombie(p, R_COMM_CREATE);
    if (g && g->arr) { o->arr = dup_arr(g->arr, g->arr_len); o->arr_len = g->arr_len; }
    else {
        int n;
        int *wr = world_ranks(R(group), &n);
        o->arr = wr;
        o->arr_len = (size_t)n * sizeof(int);
    }
    made_release(hold);
    return MPI_SUCCESS;
}
ALIAS(Comm_create)

int PMPI_Comm_compare(MPI_Comm a, MPI_Comm b, int *result)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Comm_compare(R(a), R(b), result));
    return rc;
}
ALIAS(Comm_compare)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Comm_test_inter(R(comm), flag));
    return rc;
}
ALIAS(Comm_test_inter)

/* MPI_Comm_set_errhandler: errh.c; MPI_Comm_get_attr: attr.c; MPI_Comm_set_name, MPI_Comm_get_name: comm.c. */

/* ---- groups (kept as world ranks) ---- */

int new_group(MPI_Group realg, MPI_Group *out)
{
    if (HBITS(realg) == v2r(HBITS(MPI_GROUP_EMPTY))) { *out = MPI_GROUP_EMPTY; return MPI_SUCCESS; }
    struct vobj *o = vnew(K_GROUP, HBITS(realg));
    o->recipe = R_GROUP_WORLD_RANKS;
    int n;
    o->arr = world_ranks(realg, &n);
    o->arr_len = (size_t)n * sizeof(int);
    *out = V(MPI_Group, o);
    return MPI_SUCCESS;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    MANA_CHECK_INIT();
    MPI_Group g;
    int rc;
    GROUP_LOWER(rc, rc = real.Comm_group(R(comm), &g), g, group);
    return rc;
}
ALIAS(Comm_group)

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *out)
{
    MANA_CHECK_INIT();
    MPI_Group g;
    int rc;
    GROUP_LOWER(rc, rc = real.Group_incl(R(group), n, ranks, &g), g, out);
    return rc;
}
ALIAS(Group_incl)

int PMPI_Group_free(MPI_Group *group)
{
    MANA_CHECK_INIT();
    struct vobj *g = vobj_of(HBITS(*group));
    MPI_Group r;
    int rc;
    LOWER(r = R(*group); rc = real.Group_free(&r));
    if (rc != MPI_SUCCESS) return rc;
    if (g) vrelease(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
ALIAS(Group_free)

/* ---- datatypes ---- */

static int new_type(int rc, MPI_Datatype realt, int recipe, MPI_Datatype *out, struct vobj *parent, struct vobj **made)
{
    if (rc != MPI_SUCCESS) return rc;
    struct vobj *o = vnew(K_TYPE, HBITS(realt));
    o->recipe = (uint16_t)recipe;
    mana_record_parent(o, parent);
    *out = V(MPI_Datatype, o);
    if (made) *made = o;
    return MPI_SUCCESS;
}

int PMPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    struct vobj *o;
    LOWER(rc = real.Type_contiguous(count, R(old), &t));
    rc = new_type(rc, t, R_TYPE_CONTIGUOUS, out, vobj_of(HBITS(old)), &o);
    if (rc == MPI_SUCCESS) { o->a[0] = count; o->a[1] = (int64_t)HBITS(old); }
    return rc;
}
ALIAS(Type_contiguous)

int PMPI_Type_vector(int count, int blen, int stride, MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    struct vobj *o;
    LOWER(rc = real.Type_vector(count, blen, stride, R(old), &t));
    rc = new_type(rc, t, R_TYPE_VECTOR, out, vobj_of(HBITS(old)), &o);
    if (rc == MPI_SUCCESS) { o->a[0] = count; o->a[1] = (int64_t)HBITS(old); o->a[2] = blen; o->a[3] = stride; }
    return rc;
}
ALIAS(Type_vector)

int PMPI_Type_create_hvector(int count, int blen, MPI_Aint stride, MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    struct vobj *o;
    LOWER(rc = real.Type_create_hvector(count, blen, stride, R(old), &t));
    rc = new_type(rc, t, R_TYPE_HVECTOR, out, vobj_of(HBITS(old)), &o);
    if (rc == MPI_SUCCESS) { o->a[0] = count; o->a[1] = (int64_t)HBITS(old); o->a[2] = blen; o->a[3] = stride; }
    return rc;
}
ALIAS(Type_create_hvector)

int PMPI_Type_indexed(int count, const int blens[], const int displs[], MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    struct vobj *o;
    LOWER(rc = real.Type_indexed(count, blens, displs, R(old), &t));
    rc = new_type(rc, t, R_TYPE_INDEXED, out, vobj_of(HBITS(old)), &o);
    if (rc == MPI_SUCCESS) {
        o->a[0] = count;
        o->a[1] = (int64_t)HBITS(old);
        int *arr = malloc(2 * (size_t)count * sizeof(int) + 1);
        memcpy(arr, blens, (size_t)count * sizeof(int));
        memcpy(arr + count, displs, (size_t)count * sizeof(int));
        o->arr = arr;
        o->arr_len = 2 * (size_t)count * sizeof(int);
    }
    return rc;
}
ALIAS(Type_indexed)

int PMPI_Type_create_indexed_block(int count, int blen, const int displs[], MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    struct vobj *o;
    LOWER(rc = real.Type_create_indexed_block(count, blen, displs, R(old), &t));
    rc = new_type(rc, t, R_TYPE_INDEXED_BLOCK, out, vobj_of(HBITS(old)), &o);
    if (rc == MPI_SUCCESS) {
        o->a[0] = count; o->a[1] = (int64_t)HBITS(old); o->a[2] = blen;
        o->arr = dup_arr(displs, (size_t)count * sizeof(int));
        o->arr_len = (size_t)count * sizeof(int);
    }
    return rc;
}
ALIAS(Type_create_indexed_block)

int PMPI_Type_create_hindexed(int count, const int blens[], const MPI_Aint displs[], MPI_Datatype old,
                              MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    struct vobj *o;
    LOWER(rc = real.Type_create_hindexed(count, blens, displs, R(old), &t));
    rc = new_type(rc, t, R_TYPE_HINDEXED, out, vobj_of(HBITS(old)), &o);
    if (rc == MPI_SUCCESS) {
        o->a[0] = count; o->a[1] = (int64_t)HBITS(old);
        char *arr = malloc((size_t)count * (sizeof(int) + sizeof(MPI_Aint)) + 1);
        memcpy(arr, blens, (size_t)count * sizeof(int));
        memcpy(arr + (size_t)count * sizeof(int), displs, (size_t)count * sizeof(MPI_Aint));
        o->arr = arr;
        o->arr_len = (size_t)count * (sizeof(int) + sizeof(MPI_Aint));
    }
    return rc;
}
ALIAS(Type_create_hindexed)

int PMPI_Type_create_struct(int count, const int blens[], const MPI_Aint displs[], const MPI_Datatype types[],
                            MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype *rt = malloc(((size_t)count + 1) * sizeof *rt), t;
    int rc;
    LOWER(for (int i = 0; i < count; i++) rt[i] = R(types[i]);
          rc = real.Type_create_struct(count, blens, displs, rt, &t));
    free(rt);
    struct vobj *o;
    rc = new_type(rc, t, R_TYPE_STRUCT, out, NULL, &o);
    if (rc == MPI_SUCCESS) {
        o->a[0] = count;
        size_t sz = (size_t)count * (sizeof(int) + sizeof(MPI_Aint) + sizeof(uint64_t));
        char *arr = malloc(sz + 1);
        memcpy(arr, blens, (size_t)count * sizeof(int));
        memcpy(arr + (size_t)count * sizeof(int), displs, (size_t)count * sizeof(MPI_Aint));
        uint64_t *tv = (uint64_t *)(arr + (size_t)count * (sizeof(int) + sizeof(MPI_Aint)));
        for (int i = 0; i < count; i++) {
            tv[i] = HBITS(types[i]);
            struct vobj *p = vobj_of(tv[i]);
            if (p) { p->flags |= VF_PARENT; vref(p); }
        }
        o->arr = arr;
        o->arr_len = sz;
    }
    return rc;
}
ALIAS(Type_create_struct)

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                              MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    struct vobj *o;
    LOWER(rc = real.Type_create_subarray(ndims, sizes, subsizes, starts, order, R(old), &t));
    rc = new_type(rc, t, R_TYPE_SUBARRAY, out, vobj_of(HBITS(old)), &o);
    if (rc == MPI_SUCCESS) {
        o->a[0] = ndims; o->a[1] = (int64_t)HBITS(old); o->a[2] = order;
        int *arr = malloc(3 * (size_t)ndims * sizeof(int) + 1);
        memcpy(arr, sizes, (size_t)ndims * sizeof(int));
        memcpy(arr + ndims, subsizes, (size_t)ndims * sizeof(int));
        memcpy(arr + 2 * ndims, starts, (size_t)ndims * sizeof(int));
        o->arr = arr;
        o->arr_len = 3 * (size_t)ndims * sizeof(int);
    }
    return rc;
}
ALIAS(Type_create_subarray)

int PMPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    struct vobj *o;
    LOWER(rc = real.Type_create_resized(R(old), lb, extent, &t));
    rc = new_type(rc, t, R_TYPE_RESIZED, out, vobj_of(HBITS(old)), &o);
    if (rc == MPI_SUCCESS) { o->a[1] = (int64_t)HBITS(old); o->a[2] = lb; o->a[3] = extent; }
    return rc;
}
ALIAS(Type_create_resized)

/* The large-count (MPI 4) constructors, MPI_Type_contiguous_c and the others: dtype_c.c. */

int PMPI_Type_dup(MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    struct vobj *o;
    LOWER(rc = real.Type_dup(R(old), &t));
    rc = new_type(rc, t, R_TYPE_DUP, out, vobj_of(HBITS(old)), &o);
    if (rc == MPI_SUCCESS) o->a[1] = (int64_t)HBITS(old);
    if (rc == MPI_SUCCESS && (rc = mana_attr_copy(K_TYPE, HBITS(old), HBITS(*out))) != MPI_SUCCESS) {
        MPI_Datatype d = *out;          /* a copy callback failed: the dup fails (the copies made are deleted) */
        PMPI_Type_free(&d);
        *out = MPI_DATATYPE_NULL;
    }
    return rc;
}
ALIAS(Type_dup)

int PMPI_Type_commit(MPI_Datatype *type)
{
    MANA_CHECK_INIT();
    struct vobj *o = vobj_of(HBITS(*type));
    MPI_Datatype r;
    int rc;
    /* the handle is read, and the flag the replay commits by set, inside the excursion: a checkpoint
     * comes before or after both */
    LOWER(r = R(*type); rc = real.Type_commit(&r); if (rc == MPI_SUCCESS && o) o->flags |= VF_COMMITTED);
    return rc;
}
ALIAS(Type_commit)

int PMPI_Type_free(MPI_Datatype *type)
{
    MANA_CHECK_INIT();
    struct vobj *o = vobj_of(HBITS(*type));
    if (!o) return MPI_ERR_TYPE;
    int rc = mana_attr_clear(K_TYPE, HBITS(*type));
    if (rc != MPI_SUCCESS) return rc;
    *type = MPI_DATATYPE_NULL;
    /* Still named by another type's recipe or by a request (a persistent one may start again, a pending
     * one may be posted again after a restart): a zombie that keeps its real type until the last of
     * them goes (vunref).  MPI allows freeing a type in use; the operations go on with it. */
    if (__atomic_load_n(&o->refs, __ATOMIC_ACQUIRE) > 0) { o->flags |= VF_ZOMBIE; return MPI_SUCCESS; }
    MPI_Datatype r;
    LOWER(r = HMAKE(MPI_Datatype, o->real); rc = real.Type_free(&r));
    vrelease(o);
    return rc;
}
ALIAS(Type_free)

/* A struct type's member types (virtual handles, a[0] of them): the last part of its list, after the
 * block lengths and displacements, which are int and MPI_Aint, or MPI_Count both when
 * MPI_Type_create_struct_c made it (dtype_c.c).  NULL for any other type. */
const uint64_t *mana_struct_types(const struct vobj *o)
{
    if (o->recipe != R_TYPE_STRUCT || !o->arr) return NULL;
    size_t n = (size_t)o->a[0];
    size_t before = recipe_large(o) ? 2 * sizeof(MPI_Count) : sizeof(int) + sizeof(MPI_Aint);
    return (const uint64_t *)((const char *)o->arr + n * before);
}

/* A struct type names its member types in its list (arr), not in parent[]. */
void mana_type_drop_refs(struct vobj *o)
{
    const uint64_t *tv = mana_struct_types(o);
    if (!tv) return;
    for (int64_t i = 0; i < o->a[0]; i++) vunref(vobj_of(tv[i]));
}

int PMPI_Get_address(const void *loc, MPI_Aint *addr) { *addr = (MPI_Aint)(uintptr_t)loc; return MPI_SUCCESS; }
ALIAS(Get_address)

/* ---- user-defined ops: the real MPI calls them inside the lower half; a trampoline switches to
 * the upper TLS of the calling thread (mana_up_fs), gives the function virtual datatypes and
 * switches back.  MPI_Op_create's functions take an int length (MPI_User_function), MPI_Op_create_c's
 * an MPI_Count one (MPI_User_function_c, MPI 4): each form has its own 64 trampolines, and the two
 * share the 64 slots (a slot holds one function of one form). ---- */

#define MAX_OPS 64
typedef void (*op_any)(void);           /* either form, cast back by op_call */
static op_any op_fn[MAX_OPS];
static int op_live[MAX_OPS];            /* live ops whose trampoline is this slot */
static unsigned char op_large[MAX_OPS];     /* the slot's function is an MPI_User_function_c */
static unsigned char op_fortran[MAX_OPS];   /* Open MPI: a Fortran function (mana_op_fortran) */
static volatile int op_lock;

/* Slot i's function on (in, inout) with the real library's datatype *dt: on the upper TLS, with our
 * handle for the datatype.  len is the int length (MPI_Op_create), or NULL and clen the MPI_Count one. */
static void op_call(int i, void *in, void *inout, int *len, void *clen, MPI_Datatype *dt)
{
    uint64_t low;
    __asm__ volatile("mov %%fs:0x10, %0" : "=r"(low));
#ifdef OPEN_MPI
    /* A Fortran function takes the datatype as a Fortran handle: the real library's number for a
     * predefined one (asked here, still on the lower TLS, inside the real call), ours otherwise. */
    MPI_Fint fdt = op_fortran[i] ? real.Type_c2f(*dt) : 0;
#endif
    mana_set_fs(mana_up_fs);
    MPI_Datatype v = HMAKE(MPI_Datatype, vfind(K_TYPE, HBITS(*dt)));
#ifdef OPEN_MPI
    if (op_fortran[i]) {
        struct vobj *t = vobj_of(HBITS(v));
        if (t) fdt = (MPI_Fint)(MANA_F_BASE + t->idx);
        ((void (*)(void *, void *, int *, MPI_Fint *))op_fn[i])(in, inout, len, &fdt);
        mana_set_fs(low);
        return;
    }
#endif
#if MPI_VERSION >= 4
    if (!len) {
        ((MPI_User_function_c *)op_fn[i])(in, inout, clen, &v);
        mana_set_fs(low);
        return;
    }
#else
    (void)clen;
#endif
    ((MPI_User_function *)op_fn[i])(in, inout, len, &v);
    mana_set_fs(low);
}

/* Open MPI's Fortran binding made an op of slot's function (fortran.c): call it the Fortran way. */
void mana_op_fortran(int slot)
{
    if (slot >= 0 && slot < MAX_OPS) op_fortran[slot] = 1;
}

/* X(i) for every slot, 0 to 63 */
#define OP_SLOTS10(X, d) X(d##0) X(d##1) X(d##2) X(d##3) X(d##4) X(d##5) X(d##6) X(d##7) X(d##8) X(d##9)
#define OP_SLOTS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) OP_SLOTS10(X, 1) OP_SLOTS10(X, 2) \
                    OP_SLOTS10(X, 3) OP_SLOTS10(X, 4) OP_SLOTS10(X, 5) X(60) X(61) X(62) X(63)

#define OP_TRAMP(i) static void tramp##i(void *a, void *b, int *n, MPI_Datatype *d) { op_call(i, a, b, n, NULL, d); }
OP_SLOTS(OP_TRAMP)
#define OP_TRAMP_AT(i) tramp##i,
static MPI_User_function *const tramps[MAX_OPS] = { OP_SLOTS(OP_TRAMP_AT) };

MPI_User_function *mana_op_tramp(int slot) { return tramps[slot]; }

#if MPI_VERSION >= 4
#define OP_TRAMP_C(i) \
    static void trampc##i(void *a, void *b, MPI_Count *n, MPI_Datatype *d) { op_call(i, a, b, NULL, n, d); }
OP_SLOTS(OP_TRAMP_C)
#define OP_TRAMP_C_AT(i) trampc##i,
static MPI_User_function_c *const tramps_c[MAX_OPS] = { OP_SLOTS(OP_TRAMP_C_AT) };

MPI_User_function_c *mana_op_tramp_c(int slot) { return tramps_c[slot]; }
#endif

/* The trampoline slot of fn (of the form `large` says): ops of one function share it (BLACS makes
 * and frees an op for every combine), and a slot no live op uses is taken for another function.
 * -1: 64 functions live at once. */
static int op_slot(op_any fn, int large)
{
    while (__atomic_exchange_n(&op_lock, 1, __ATOMIC_ACQUIRE)) mana_sys0(SYS_sched_yield);
    int slot = -1;
    for (int i = 0; i < MAX_OPS && slot < 0; i++) if (op_fn[i] == fn && op_large[i] == large) slot = i;
    for (int i = 0; i < MAX_OPS && slot < 0; i++) if (!op_fn[i] || !op_live[i]) slot = i;
    if (slot >= 0) {
        if (op_fn[slot] != fn || op_large[slot] != large) op_fortran[slot] = 0;
        op_fn[slot] = fn;
        op_large[slot] = (unsigned char)large;
        op_live[slot]++;
    }
    __atomic_store_n(&op_lock, 0, __ATOMIC_RELEASE);
    return slot;
}

static void op_slot_put(int slot)
{
    while (__atomic_exchange_n(&op_lock, 1, __ATOMIC_ACQUIRE)) mana_sys0(SYS_sched_yield);
    if (slot >= 0 && slot < MAX_OPS && op_live[slot] > 0) op_live[slot]--;
    __atomic_store_n(&op_lock, 0, __ATOMIC_RELEASE);
}

/* The table entry of a real op made on slot's trampoline: recipe R_OP_CREATE (slot, commute), a[7]
 * RECIPE_LARGE when MPI_Op_create_c made it (the replay makes it with that call again). */
static void new_op(MPI_Op r, int slot, int commute, int large, MPI_Op *op)
{
    struct vobj *o = vnew(K_OP, HBITS(r));
    o->recipe = R_OP_CREATE;
    o->a[0] = slot;
    o->a[1] = commute;
    if (large) o->a[7] = RECIPE_LARGE;
    *op = V(MPI_Op, o);
}

int PMPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op)
{
    MANA_CHECK_INIT();
    int slot = op_slot((op_any)fn, 0);
    if (slot < 0) mana_unsupported("MPI_Op_create", "more than 64 different user functions in live operations");
    MPI_Op r;
    int rc;
    LOWER(rc = real.Op_create(tramps[slot], commute, &r));
    if (rc != MPI_SUCCESS) { op_slot_put(slot); return rc; }
    new_op(r, slot, commute, 0, op);
    return MPI_SUCCESS;
}
ALIAS(Op_create)

#if MPI_VERSION >= 4
int PMPI_Op_create_c(MPI_User_function_c *fn, int commute, MPI_Op *op)
{
    MANA_CHECK_INIT();
    int slot = op_slot((op_any)fn, 1);
    if (slot < 0) mana_unsupported("MPI_Op_create_c", "more than 64 different user functions in live operations");
    MPI_Op r;
    int rc;
    LOWER(rc = real.Op_create_c(tramps_c[slot], commute, &r));
    if (rc != MPI_SUCCESS) { op_slot_put(slot); return rc; }
    new_op(r, slot, commute, 1, op);
    return MPI_SUCCESS;
}
ALIAS(Op_create_c)
#endif

int PMPI_Op_free(MPI_Op *op)
{
    MANA_CHECK_INIT();
    struct vobj *o = vobj_of(HBITS(*op));
    if (!o) return MPI_ERR_OP;
    MPI_Op r;
    int rc;
    LOWER(r = R(*op); rc = real.Op_free(&r));
    if (o->recipe == R_OP_CREATE) op_slot_put((int)o->a[0]);
    vrelease(o);
    *op = MPI_OP_NULL;
    return rc;
}
ALIAS(Op_free)

/* ---- cartesian topologies ---- */

int PMPI_Cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *out)
{
    MANA_CHECK_INIT();
    struct vobj *p = comm_obj(old);
        MPI_Comm rc_;
    int rc;
    uint64_t hold;
    COLL_MAKE(p, hold, rc, rc = real.Cart_create(R(old), ndims, dims, periods, reorder, &rc_));
    if (rc != MPI_SUCCESS) return rc;
    p->flags |= VF_PARENT;
    struct vobj *o;
    new_comm(rc_, p, R_CART_CREATE, out, &o);
    if (!o) o = comm_zombie(p, R_CART_CREATE);
    o->a[0] = ndims;
    o->a[1] = reorder;
    int *arr = malloc(2 * (size_t)ndims * sizeof(int) + 1);
    memcpy(arr, dims, (size_t)ndims * sizeof(int));
    memcpy(arr + ndims, periods, (size_t)ndims * sizeof(int));
    o->arr = arr;
    o->arr_len = 2 * (size_t)ndims * sizeof(int);
    made_release(hold);
    return MPI_SUCCESS;
}
ALIAS(Cart_create)

int PMPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *out)
{
    MANA_CHECK_INIT();
    struct vobj *p = comm_obj(comm);
        MPI_Comm rc_;
    int rc, nd = 0;
    uint64_t hold;
    COLL_MAKE(p, hold, rc, rc = real.Cart_sub(R(comm), remain, &rc_); real.Cartdim_get(R(comm), &nd));
    if (rc != MPI_SUCCESS) return rc;
    p->flags |= VF_PARENT;
    struct vobj *o;
    new_comm(rc_, p, R_CART_SUB, out, &o);
    if (o) {
        o->a[0] = nd;
        o->arr = dup_arr(remain, (size_t)nd * sizeof(int));
        o->arr_len = (size_t)nd * sizeof(int);
    }
    made_release(hold);
    return MPI_SUCCESS;
}
ALIAS(Cart_sub)
