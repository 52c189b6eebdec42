/*
 * dtype.c - datatype introspection, the constructors objects.c does not have (darray,
 * hindexed_block, f90), names.  The pure queries (sizes and extents, the _x and _c forms, external32
 * packing, Status_set_elements) are generated pass-throughs (api/policy.tsv).
 *
 * MPI_Type_get_contents gives the program new handles for the derived types a type was made of (it
 * must free them): each becomes a table entry (recipe R_TYPE_CONTENTS) standing for the virtual type
 * our recipe names, holding the real handle the real library returned; a restart makes it again by
 * that type's own recipe, so it decodes as that type does.
 * Names set with MPI_Type_set_name are kept as an internal attribute (attr.c) so they survive a
 * restart; the real type gets the name too.
 */
#include "mpi_int.h"

#include <stdlib.h>
#include <string.h>


static int made_type(int rc, MPI_Datatype t, int recipe, MPI_Datatype old, MPI_Datatype *out, struct vobj **made)
{
    if (rc != MPI_SUCCESS) return rc;
    struct vobj *o = vnew(K_TYPE, HBITS(t));
    o->recipe = (uint16_t)recipe;
    o->a[1] = (int64_t)HBITS(old);
    mana_record_parent(o, vobj_of(HBITS(old)));
    *out = V(MPI_Datatype, o);
    if (made) *made = o;
    return MPI_SUCCESS;
}

/* ---- constructors ---- */

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                            const int dargs[], const int psizes[], int order, MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    struct vobj *o;
    LOWER(rc = real.Type_create_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, R(old), &t));
    rc = made_type(rc, t, R_TYPE_DARRAY, old, out, &o);
    if (rc == MPI_SUCCESS) {
        o->a[0] = ndims; o->a[2] = order; o->a[3] = size; o->a[4] = rank;
        size_t n = (size_t)ndims * sizeof(int);
        char *arr = malloc(4 * n + 1);
        if (arr) {
            memcpy(arr, gsizes, n); memcpy(arr + n, distribs, n); memcpy(arr + 2 * n, dargs, n); memcpy(arr + 3 * n, psizes, n);
        }
        o->arr = arr;
        o->arr_len = arr ? 4 * n : 0;
    }
    return rc;
}
ALIAS(Type_create_darray)

int PMPI_Type_create_hindexed_block(int count, int blen, const MPI_Aint displs[], MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    struct vobj *o;
    LOWER(rc = real.Type_create_hindexed_block(count, blen, displs, R(old), &t));
    rc = made_type(rc, t, R_TYPE_HINDEXED_BLOCK, old, out, &o);
    if (rc == MPI_SUCCESS) {
        o->a[0] = count; o->a[2] = blen;
        o->arr = malloc((size_t)count * sizeof(MPI_Aint) + 1);
        if (o->arr) memcpy(o->arr, displs, (size_t)count * sizeof(MPI_Aint));
        o->arr_len = o->arr ? (size_t)count * sizeof(MPI_Aint) : 0;
    }
    return rc;
}
ALIAS(Type_create_hindexed_block)

/* MPI_Type_create_f90_*: the same (p, r) always gives the same handle, which the program never
 * frees; a predefined type where the real library gives one. */
enum { F90_REAL, F90_COMPLEX, F90_INTEGER };

static int f90_call(int which, int p, int r, MPI_Datatype *t)
{
    int rc;
    switch (which) {
    case F90_REAL: LOWER(rc = real.Type_create_f90_real(p, r, t)); break;
    case F90_COMPLEX: LOWER(rc = real.Type_create_f90_complex(p, r, t)); break;
    default: LOWER(rc = real.Type_create_f90_integer(r, t)); break;
    }
    return rc;
}

static int f90(int which, int p, int r, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    uint32_t used = mana_vtab_used();
    for (uint32_t i = 1; i <= used; i++) {
        struct vobj *o = &vtab[i];
        if (o->kind == K_TYPE && o->recipe == R_TYPE_F90 && o->a[0] == which && o->a[2] == p && o->a[3] == r) {
            *out = V(MPI_Datatype, o);
            return MPI_SUCCESS;
        }
    }
    MPI_Datatype t;
    int rc = f90_call(which, p, r, &t);
    if (rc != MPI_SUCCESS) return rc;
    uint64_t v = vfind(K_TYPE, HBITS(t));
    if (v && !vobj_of(v)) { *out = HMAKE(MPI_Datatype, v); return MPI_SUCCESS; }
    struct vobj *o = vnew(K_TYPE, HBITS(t));
    o->recipe = R_TYPE_F90;
    o->a[0] = which; o->a[2] = p; o->a[3] = r;
    *out = V(MPI_Datatype, o);
    return MPI_SUCCESS;
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *out) { return f90(F90_REAL, p, r, out); }
ALIAS(Type_create_f90_real)
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *out) { return f90(F90_COMPLEX, p, r, out); }
ALIAS(Type_create_f90_complex)
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *out) { return f90(F90_INTEGER, 0, r, out); }
ALIAS(Type_create_f90_integer)

/* Replay (replay.c) of the constructors above. */
int mana_dtype_replay(struct vobj *o, MPI_Datatype *t)
{
    MPI_Datatype old = HMAKE(MPI_Datatype, v2r((uint64_t)o->a[1]));
    int n = (int)o->a[0], rc = MPI_ERR_INTERN;
    const int *ia = o->arr;
    switch (o->recipe) {
    case R_TYPE_DARRAY:
        LOWER(rc = real.Type_create_darray((int)o->a[3], (int)o->a[4], n, ia, ia + n, ia + 2 * n, ia + 3 * n,
                                           (int)o->a[2], old, t));
        break;
    case R_TYPE_HINDEXED_BLOCK:
        LOWER(rc = real.Type_create_hindexed_block(n, (int)o->a[2], (const MPI_Aint *)o->arr, old, t));
        break;
    case R_TYPE_F90: rc = f90_call(n, (int)o->a[2], (int)o->a[3], t); break;
    default: break;
    }
    return rc;
}

/* ---- introspection (MPI_Type_get_envelope and its _c form are generated: policy pass) ---- */

/* The virtual type a recipe names as its i-th component (0: none known). */
static uint64_t recipe_part(const struct vobj *o, MPI_Count i)
{
    if (!o) return 0;
    switch (o->recipe) {
    case R_TYPE_STRUCT: {
        const uint64_t *tv = mana_struct_types(o);
        return tv && i < o->a[0] ? tv[i] : 0;
    }
    case R_TYPE_CONTENTS: return recipe_part(vobj_of((uint64_t)o->a[1]), i);   /* the same type's */
    case R_TYPE_CONTIGUOUS: case R_TYPE_VECTOR: case R_TYPE_HVECTOR: case R_TYPE_INDEXED: case R_TYPE_INDEXED_BLOCK:
    case R_TYPE_HINDEXED: case R_TYPE_SUBARRAY: case R_TYPE_RESIZED: case R_TYPE_DUP: case R_TYPE_DARRAY:
    case R_TYPE_HINDEXED_BLOCK:
        return i == 0 ? (uint64_t)o->a[1] : 0;
    default: return 0;
    }
}

/* The first n datatypes the real MPI_Type_get_contents(_c) gave for our type o, made the program's:
 * predefined ones as ours, derived ones as new handles. */
static void contents_types(const struct vobj *o, MPI_Datatype types[], MPI_Count n)
{
    for (MPI_Count i = 0; i < n; i++) {
        uint64_t r = HBITS(types[i]), v = vfind(K_TYPE, r);
        if (v && !vobj_of(v)) { types[i] = HMAKE(MPI_Datatype, v); continue; }   /* predefined */
        uint64_t part = recipe_part(o, i);
        if (!part) part = v;
        if (!part) { types[i] = HMAKE(MPI_Datatype, r); continue; }  /* MPICH's pair types are direct handles */
        if (!vobj_of(part)) { types[i] = HMAKE(MPI_Datatype, part); continue; }
        /* A new handle for the program (it frees it) to that part, already made by the real library
         * (the real handle it returned holds a reference).  It is the part itself, not a dup: its
         * envelope says the part's constructor, so the replay makes it again by the part's recipe
         * (R_TYPE_CONTENTS).  (As a dup, one held through a checkpoint decoded as MPI_COMBINER_DUP
         * after the restart: typesc's "derived member wrong", attrs.c now checks it.) */
        struct vobj *p = vobj_of(part), *d = vnew(K_TYPE, r);
        d->recipe = R_TYPE_CONTENTS;
        d->a[1] = (int64_t)part;
        d->flags |= p->flags & VF_COMMITTED;
        mana_record_parent(d, p);
        types[i] = V(MPI_Datatype, d);
    }
}

int PMPI_Type_get_contents(MPI_Datatype t, int maxi, int maxa, int maxd, int ints[], MPI_Aint addrs[],
                           MPI_Datatype types[])
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Type_get_contents(R(t), maxi, maxa, maxd, ints, addrs, types));
    if (rc != MPI_SUCCESS) return rc;
    int ni = 0, na = 0, nd = 0, comb = 0;
    LOWER(real.Type_get_envelope(R(t), &ni, &na, &nd, &comb));
    contents_types(vobj_of(HBITS(t)), types, nd < maxd ? nd : maxd);
    return MPI_SUCCESS;
}
ALIAS(Type_get_contents)

#if MPI_VERSION >= 4
/* The large-count form (MPI 4.0 sec. 5.1.13): the real library answers (the replay made each type with
 * the same call, int or _c, so it answers alike after a restart), the datatypes made the program's. */
int PMPI_Type_get_contents_c(MPI_Datatype t, MPI_Count maxi, MPI_Count maxa, MPI_Count maxl, MPI_Count maxd,
                             int ints[], MPI_Aint addrs[], MPI_Count counts[], MPI_Datatype types[])
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Type_get_contents_c(R(t), maxi, maxa, maxl, maxd, ints, addrs, counts, types));
    if (rc != MPI_SUCCESS) return rc;
    MPI_Count ni = 0, na = 0, nl = 0, nd = 0;
    int comb = 0;
    LOWER(real.Type_get_envelope_c(R(t), &ni, &na, &nl, &nd, &comb));
    contents_types(vobj_of(HBITS(t)), types, nd < maxd ? nd : maxd);
    return MPI_SUCCESS;
}
ALIAS(Type_get_contents_c)
#endif

/* ---- names ---- */

static int name_kv = MPI_KEYVAL_INVALID;

static int name_delete(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)t; (void)kv; (void)extra;
    free(val);
    return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype t, const char *name)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Type_set_name(R(t), name));
    if (rc != MPI_SUCCESS) return rc;
    if (name_kv == MPI_KEYVAL_INVALID && (rc = PMPI_Type_create_keyval(NULL, name_delete, &name_kv, NULL)) != MPI_SUCCESS)
        return rc;
    char *copy = strdup(name);
    if (!copy) return MPI_ERR_NO_MEM;
    return PMPI_Type_set_attr(t, name_kv, copy);
}
ALIAS(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype t, char *name, int *len)
{
    MANA_CHECK_INIT();
    void *val = NULL;
    int flag = 0, rc;
    if (name_kv != MPI_KEYVAL_INVALID) PMPI_Type_get_attr(t, name_kv, &val, &flag);
    if (flag) return mana_name_out(val, name, len);
    LOWER(rc = real.Type_get_name(R(t), name, len));
    return rc;
}
ALIAS(Type_get_name)

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    LOWER(rc = real.Type_match_size(typeclass, size, &t));
    if (rc == MPI_SUCCESS) {
        uint64_t v = vfind(K_TYPE, HBITS(t));
        *out = HMAKE(MPI_Datatype, v ? v : HBITS(t));
    }
    return rc;
}
ALIAS(Type_match_size)

/* ---- addresses and statuses ---- */

/* MPICH exports these; Open MPI 4.1's mpi.h makes them macros and its library does not export them (its
 * stub would not either), so only the MPICH build defines them. */
#ifndef OPEN_MPI
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp); }
ALIAS(Aint_add)
MPI_Aint PMPI_Aint_diff(MPI_Aint a, MPI_Aint b) { return (MPI_Aint)((uintptr_t)a - (uintptr_t)b); }
ALIAS(Aint_diff)
#endif
