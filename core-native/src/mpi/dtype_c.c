/*
 * dtype_c.c - the large-count datatype constructors of MPI 4 (MPI_Type_contiguous_c ...
 * MPI_Type_create_darray_c; MPICH 4 exports them, Open MPI 4.1 does not) and their replay.
 *
 * Each makes the real type in the lower half and records the recipe of its int twin (the same
 * R_TYPE_* and the same a[] slots: a[0] count or ndims, a[1] the old type's virtual handle), with
 * a[7] = RECIPE_LARGE and every count whole as an MPI_Count.  The replay makes the same _c call again,
 * so the real library answers MPI_Type_get_envelope_c and MPI_Type_get_contents_c for the new type as
 * it did for the old one (MPI_COMBINER_* and the counts in the large-count array, MPI 4.0 sec. 5.1.13).
 * The arrays of a recipe (arr), one after the other:
 *   indexed        blocklengths[n], displacements[n]               MPI_Count
 *   indexed_block  displacements[n]                                MPI_Count   (a[2] blocklength)
 *   hindexed       blocklengths[n], displacements[n] (bytes)       MPI_Count
 *   hindexed_block displacements[n] (bytes)                        MPI_Count   (a[2] blocklength)
 *   struct         blocklengths[n], displacements[n]               MPI_Count, then the n member
 *                  types' virtual handles (uint64_t: mana_struct_types)
 *   subarray       sizes[n], subsizes[n], starts[n]                MPI_Count   (a[2] order)
 *   darray         gsizes[n] MPI_Count, then distribs[n], dargs[n], psizes[n] int
 *                                                   (a[2] order, a[3] size, a[4] rank)
 *   contiguous, vector, hvector, resized: scalars only (a[0] count, a[2] blocklength or lb,
 *                  a[3] stride or extent).
 */
#include "mpi_int.h"

#if MPI_VERSION >= 4

#include <stdlib.h>
#include <string.h>

/* The table entry for the real type t a _c constructor made (rc its result): recipe, old type
 * (MPI_DATATYPE_NULL: none, a struct's members are in its list) and arr, which the entry takes (freed
 * here when the real call failed).  NULL when it failed. */
static struct vobj *made_c(int rc, MPI_Datatype t, int recipe, MPI_Datatype old, void *arr, size_t len,
                           MPI_Datatype *out)
{
    if (rc != MPI_SUCCESS) { free(arr); return NULL; }
    struct vobj *o = vnew(K_TYPE, HBITS(t));
    o->recipe = (uint16_t)recipe;
    if (old != MPI_DATATYPE_NULL) {
        o->a[1] = (int64_t)HBITS(old);
        mana_record_parent(o, vobj_of(HBITS(old)));
    }
    o->a[7] = RECIPE_LARGE;
    o->arr = arr;
    o->arr_len = len;
    *out = V(MPI_Datatype, o);
    return o;
}

/* Space for a recipe's arrays: `parts` arrays of n MPI_Count, plus `extra` bytes.  A negative n (the
 * real call refuses it, through the error handler) gives an empty one. */
static MPI_Count *counts_arr(size_t n, int parts, size_t extra, size_t *len)
{
    *len = n * (size_t)parts * sizeof(MPI_Count) + extra;
    return malloc(*len ? *len : 1);
}

/* n MPI_Count values from src to dst (nothing when n is 0: src may be NULL then) */
static void put_counts(MPI_Count *dst, const MPI_Count *src, size_t n)
{
    if (n) memcpy(dst, src, n * sizeof(MPI_Count));
}

/* ---- scalars only ---- */

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    LOWER(rc = real.Type_contiguous_c(count, R(old), &t));
    struct vobj *o = made_c(rc, t, R_TYPE_CONTIGUOUS, old, NULL, 0, out);
    if (o) o->a[0] = count;
    return rc;
}
ALIAS(Type_contiguous_c)

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blen, MPI_Count stride, MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    LOWER(rc = real.Type_vector_c(count, blen, stride, R(old), &t));
    struct vobj *o = made_c(rc, t, R_TYPE_VECTOR, old, NULL, 0, out);
    if (o) { o->a[0] = count; o->a[2] = blen; o->a[3] = stride; }
    return rc;
}
ALIAS(Type_vector_c)

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blen, MPI_Count stride, MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    LOWER(rc = real.Type_create_hvector_c(count, blen, stride, R(old), &t));
    struct vobj *o = made_c(rc, t, R_TYPE_HVECTOR, old, NULL, 0, out);
    if (o) { o->a[0] = count; o->a[2] = blen; o->a[3] = stride; }
    return rc;
}
ALIAS(Type_create_hvector_c)

int PMPI_Type_create_resized_c(MPI_Datatype old, MPI_Count lb, MPI_Count extent, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    MPI_Datatype t;
    int rc;
    LOWER(rc = real.Type_create_resized_c(R(old), lb, extent, &t));
    struct vobj *o = made_c(rc, t, R_TYPE_RESIZED, old, NULL, 0, out);
    if (o) { o->a[2] = lb; o->a[3] = extent; }
    return rc;
}
ALIAS(Type_create_resized_c)

/* ---- with arrays (copied into the recipe before the real call: no real type without its recipe) ---- */

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count blens[], const MPI_Count displs[], MPI_Datatype old,
                        MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    size_t len, k = count > 0 ? (size_t)count : 0;
    MPI_Count *arr = counts_arr(k, 2, 0, &len);
    if (!arr) return MPI_ERR_NO_MEM;
    put_counts(arr, blens, k);
    put_counts(arr + k, displs, k);
    MPI_Datatype t;
    int rc;
    LOWER(rc = real.Type_indexed_c(count, blens, displs, R(old), &t));
    struct vobj *o = made_c(rc, t, R_TYPE_INDEXED, old, arr, len, out);
    if (o) o->a[0] = count;
    return rc;
}
ALIAS(Type_indexed_c)

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blen, const MPI_Count displs[], MPI_Datatype old,
                                     MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    size_t len, k = count > 0 ? (size_t)count : 0;
    MPI_Count *arr = counts_arr(k, 1, 0, &len);
    if (!arr) return MPI_ERR_NO_MEM;
    put_counts(arr, displs, k);
    MPI_Datatype t;
    int rc;
    LOWER(rc = real.Type_create_indexed_block_c(count, blen, displs, R(old), &t));
    struct vobj *o = made_c(rc, t, R_TYPE_INDEXED_BLOCK, old, arr, len, out);
    if (o) { o->a[0] = count; o->a[2] = blen; }
    return rc;
}
ALIAS(Type_create_indexed_block_c)

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count blens[], const MPI_Count displs[], MPI_Datatype old,
                                MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    size_t len, k = count > 0 ? (size_t)count : 0;
    MPI_Count *arr = counts_arr(k, 2, 0, &len);
    if (!arr) return MPI_ERR_NO_MEM;
    put_counts(arr, blens, k);
    put_counts(arr + k, displs, k);
    MPI_Datatype t;
    int rc;
    LOWER(rc = real.Type_create_hindexed_c(count, blens, displs, R(old), &t));
    struct vobj *o = made_c(rc, t, R_TYPE_HINDEXED, old, arr, len, out);
    if (o) o->a[0] = count;
    return rc;
}
ALIAS(Type_create_hindexed_c)

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blen, const MPI_Count displs[], MPI_Datatype old,
                                      MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    size_t len, k = count > 0 ? (size_t)count : 0;
    MPI_Count *arr = counts_arr(k, 1, 0, &len);
    if (!arr) return MPI_ERR_NO_MEM;
    put_counts(arr, displs, k);
    MPI_Datatype t;
    int rc;
    LOWER(rc = real.Type_create_hindexed_block_c(count, blen, displs, R(old), &t));
    struct vobj *o = made_c(rc, t, R_TYPE_HINDEXED_BLOCK, old, arr, len, out);
    if (o) { o->a[0] = count; o->a[2] = blen; }
    return rc;
}
ALIAS(Type_create_hindexed_block_c)

/* Each member type the struct names (virtual handles in its list) is held like a parent: VF_PARENT
 * and a reference, dropped by mana_type_drop_refs when the struct goes. */
static void hold_members(const uint64_t *tv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct vobj *p = vobj_of(tv[i]);
        if (p) { p->flags |= VF_PARENT; vref(p); }
    }
}

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count blens[], const MPI_Count displs[],
                              const MPI_Datatype types[], MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    size_t len, k = count > 0 ? (size_t)count : 0;
    MPI_Count *arr = counts_arr(k, 2, k * sizeof(uint64_t), &len);
    MPI_Datatype *rt = malloc((k + 1) * sizeof *rt);
    if (!arr || !rt) { free(arr); free(rt); return MPI_ERR_NO_MEM; }
    put_counts(arr, blens, k);
    put_counts(arr + k, displs, k);
    uint64_t *tv = (uint64_t *)(arr + 2 * k);
    for (size_t i = 0; i < k; i++) tv[i] = HBITS(types[i]);
    MPI_Datatype t;
    int rc;
    LOWER(for (size_t i = 0; i < k; i++) rt[i] = R(types[i]);
          rc = real.Type_create_struct_c(count, blens, displs, rt, &t));
    free(rt);
    struct vobj *o = made_c(rc, t, R_TYPE_STRUCT, MPI_DATATYPE_NULL, arr, len, out);
    if (o) { o->a[0] = count; hold_members(tv, k); }
    return rc;
}
ALIAS(Type_create_struct_c)

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count sizes[], const MPI_Count subsizes[],
                                const MPI_Count starts[], int order, MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    size_t len, n = ndims > 0 ? (size_t)ndims : 0;
    MPI_Count *arr = counts_arr(n, 3, 0, &len);
    if (!arr) return MPI_ERR_NO_MEM;
    put_counts(arr, sizes, n);
    put_counts(arr + n, subsizes, n);
    put_counts(arr + 2 * n, starts, n);
    MPI_Datatype t;
    int rc;
    LOWER(rc = real.Type_create_subarray_c(ndims, sizes, subsizes, starts, order, R(old), &t));
    struct vobj *o = made_c(rc, t, R_TYPE_SUBARRAY, old, arr, len, out);
    if (o) { o->a[0] = ndims; o->a[2] = order; }
    return rc;
}
ALIAS(Type_create_subarray_c)

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count gsizes[], const int distribs[],
                              const int dargs[], const int psizes[], int order, MPI_Datatype old, MPI_Datatype *out)
{
    MANA_CHECK_INIT();
    size_t len, n = ndims > 0 ? (size_t)ndims : 0;
    MPI_Count *arr = counts_arr(n, 1, 3 * n * sizeof(int), &len);
    if (!arr) return MPI_ERR_NO_MEM;
    put_counts(arr, gsizes, n);
    int *ia = (int *)(arr + n);
    if (n) {
        memcpy(ia, distribs, n * sizeof(int));
        memcpy(ia + n, dargs, n * sizeof(int));
        memcpy(ia + 2 * n, psizes, n * sizeof(int));
    }
    MPI_Datatype t;
    int rc;
    LOWER(rc = real.Type_create_darray_c(size, rank, ndims, gsizes, distribs, dargs, psizes, order, R(old), &t));
    struct vobj *o = made_c(rc, t, R_TYPE_DARRAY, old, arr, len, out);
    if (o) { o->a[0] = ndims; o->a[2] = order; o->a[3] = size; o->a[4] = rank; }
    return rc;
}
ALIAS(Type_create_darray_c)

/* ---- replay (replay.c, for the entries whose a[7] is RECIPE_LARGE) ---- */

/* A struct type's call again: its member types' real handles as they are now. */
static int replay_struct(const struct vobj *o, MPI_Datatype *t)
{
    MPI_Count n = o->a[0];
    const MPI_Count *ca = o->arr;
    const uint64_t *tv = mana_struct_types(o);
    MPI_Datatype *rt = malloc(((size_t)n + 1) * sizeof *rt);
    if (!rt) return MPI_ERR_NO_MEM;
    int rc;
    LOWER(for (MPI_Count i = 0; i < n; i++) rt[i] = HMAKE(MPI_Datatype, v2r(tv[i]));
          rc = real.Type_create_struct_c(n, ca, ca + n, rt, t));
    free(rt);
    return rc;
}

int mana_type_c_replay(struct vobj *o, MPI_Datatype *t)
{
    MPI_Datatype old = HMAKE(MPI_Datatype, v2r((uint64_t)o->a[1]));
    MPI_Count n = o->a[0];
    const MPI_Count *ca = o->arr;
    const int *ia = ca ? (const int *)(ca + n) : NULL;    /* darray: its int arrays after gsizes */
    int rc = MPI_ERR_INTERN;
    switch (o->recipe) {
    case R_TYPE_CONTIGUOUS: LOWER(rc = real.Type_contiguous_c(n, old, t)); break;
    case R_TYPE_VECTOR: LOWER(rc = real.Type_vector_c(n, o->a[2], o->a[3], old, t)); break;
    case R_TYPE_HVECTOR: LOWER(rc = real.Type_create_hvector_c(n, o->a[2], o->a[3], old, t)); break;
    case R_TYPE_RESIZED: LOWER(rc = real.Type_create_resized_c(old, o->a[2], o->a[3], t)); break;
    case R_TYPE_INDEXED: LOWER(rc = real.Type_indexed_c(n, ca, ca + n, old, t)); break;
    case R_TYPE_INDEXED_BLOCK: LOWER(rc = real.Type_create_indexed_block_c(n, o->a[2], ca, old, t)); break;
    case R_TYPE_HINDEXED: LOWER(rc = real.Type_create_hindexed_c(n, ca, ca + n, old, t)); break;
    case R_TYPE_HINDEXED_BLOCK: LOWER(rc = real.Type_create_hindexed_block_c(n, o->a[2], ca, old, t)); break;
    case R_TYPE_STRUCT: rc = replay_struct(o, t); break;
    case R_TYPE_SUBARRAY:
        LOWER(rc = real.Type_create_subarray_c((int)n, ca, ca + n, ca + 2 * n, (int)o->a[2], old, t));
        break;
    case R_TYPE_DARRAY:
        LOWER(rc = real.Type_create_darray_c((int)o->a[3], (int)o->a[4], (int)n, ca, ia, ia + n, ia + 2 * n,
                                             (int)o->a[2], old, t));
        break;
    default: break;
    }
    return rc;
}

#endif /* MPI_VERSION >= 4 */
