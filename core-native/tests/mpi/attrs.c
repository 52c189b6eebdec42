/* attrs - attributes with copy and delete callbacks on communicators and datatypes, across
 * checkpoints: every iteration dups a communicator and a datatype that carry attributes (the copy
 * callbacks run), replaces and deletes values and frees the dups (the delete callbacks run); a
 * communicator and a datatype made before the checkpoint keep their attributes through it.  The
 * callbacks' invocation counts and the values seen are part of the checksum.  Also: the MPI-1
 * keyval/attr calls, predefined MPI_COMM_DUP_FN / NULL_COPY_FN, MPI_TAG_UB, datatype names,
 * MPI_Type_get_envelope/get_contents (and a handle get_contents gave, held through every checkpoint),
 * hindexed_block and darray types over the wire. */
#include "mpitest.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"   /* the MPI-1 attribute calls, on purpose */

struct counters { long copies, deletes, tcopies, tdeletes, oldcopies; };
static struct counters cnt;

/* The value of a kv_count attribute: a small heap block the callbacks copy and free. */
struct val { long v; long gen; };

static int copy_cb(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c; (void)kv;
    if (extra != &cnt) mt_fail("copy callback: wrong extra_state");
    struct val *src = (struct val *)in, *dst = (struct val *)malloc(sizeof *dst);
    dst->v = src->v + 1;
    dst->gen = src->gen + 1;
    *(void **)out = dst;
    *flag = 1;
    cnt.copies++;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c; (void)kv; (void)extra;
    free(val);
    cnt.deletes++;
    return MPI_SUCCESS;
}

static int tcopy_cb(MPI_Datatype t, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)t; (void)kv; (void)extra;
    *(void **)out = (void *)((intptr_t)in * 2);
    *flag = 1;
    cnt.tcopies++;
    return MPI_SUCCESS;
}

static int tdelete_cb(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)t; (void)kv; (void)val; (void)extra;
    cnt.tdeletes++;
    return MPI_SUCCESS;
}

/* MPI-1 style (MPI_Keyval_create): copies only when the value is odd. */
static int old_copy(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c; (void)kv; (void)extra;
    *flag = ((intptr_t)in & 1) != 0;
    *(void **)out = in;
    cnt.oldcopies++;
    return MPI_SUCCESS;
}

static void *getattr(MPI_Comm c, int kv, int *flag)
{
    void *v = NULL;
    MPI_Comm_get_attr(c, kv, &v, flag);
    return v;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;

    int kv_count, kv_dup, kv_nocopy, kv_old, tkv;
    MPI_Comm_create_keyval(copy_cb, delete_cb, &kv_count, &cnt);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kv_dup, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv_nocopy, NULL);
    MPI_Keyval_create(old_copy, MPI_NULL_DELETE_FN, &kv_old, NULL);
    MPI_Type_create_keyval(tcopy_cb, tdelete_cb, &tkv, NULL);

    /* Made before the checkpoint, used after it. */
    static long dupval = 7, nocopyval = 11;
    MPI_Comm keep;
    MPI_Comm_dup(MPI_COMM_WORLD, &keep);
    struct val *kv0 = (struct val *)malloc(sizeof *kv0);
    kv0->v = 100 + r.rank;
    kv0->gen = 0;
    MPI_Comm_set_attr(keep, kv_count, kv0);
    MPI_Comm_set_attr(keep, kv_dup, &dupval);
    MPI_Comm_set_attr(keep, kv_nocopy, &nocopyval);

    MPI_Datatype pair, pair_keep;
    int bl[2] = { 1, 1 };
    MPI_Aint dp[2] = { 0, 8 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };
    MPI_Type_create_struct(2, bl, dp, ty, &pair);
    MPI_Type_dup(pair, &pair_keep);           /* no attribute yet: no copy callback */
    MPI_Type_set_attr(pair_keep, tkv, (void *)(intptr_t)3);
    MPI_Type_set_name(pair_keep, "pair_keep");
    MPI_Type_commit(&pair_keep);
    /* A handle MPI_Type_get_contents gave, held across every checkpoint: it is `pair` itself (MPI 4.1
     * sec. 5.1.13), so it decodes as the struct, never as a dup of it, before and after a restart. */
    MPI_Datatype held;
    {
        int ints[1];
        MPI_Aint adr[1];
        MPI_Type_get_contents(pair_keep, 0, 0, 1, ints, adr, &held);
    }

    /* hindexed_block and darray, used every iteration. */
    MPI_Datatype hb, da;
    MPI_Aint hd[3] = { 0, 4 * sizeof(int), 9 * sizeof(int) };
    MPI_Type_create_hindexed_block(3, 2, hd, MPI_INT, &hb);
    MPI_Type_commit(&hb);
    int gs[2] = { 4 * r.size, 6 }, di[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE },
        dg[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, ps[2] = { r.size, 1 };
    MPI_Type_create_darray(r.size, r.rank, 2, gs, di, dg, ps, MPI_ORDER_C, MPI_INT, &da);
    MPI_Type_commit(&da);

    int tagub_flag = 0;
    int *tagub = (int *)getattr(MPI_COMM_WORLD, MPI_TAG_UB, &tagub_flag);
    if (!tagub_flag || *tagub < 32767) mt_fail("MPI_TAG_UB: flag %d", tagub_flag);

    int *grid = (int *)calloc((size_t)gs[0] * 6, sizeof(int));
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        /* communicator: dup (copy callbacks), check, replace (delete), delete, free (delete) */
        MPI_Comm d;
        MPI_Attr_put(keep, kv_old, (void *)(intptr_t)it);
        MPI_Comm_dup(keep, &d);
        int f1, f2, f3, f4;
        struct val *v = (struct val *)getattr(d, kv_count, &f1);
        long *dv = (long *)getattr(d, kv_dup, &f2);
        getattr(d, kv_nocopy, &f3);
        void *ov = NULL;
        MPI_Attr_get(d, kv_old, &ov, &f4);
        if (!f1 || v->v != kv0->v + 1 || v->gen != kv0->gen + 1) mt_fail("copied attribute wrong");
        if (!f2 || dv != &dupval || f3) mt_fail("MPI_COMM_DUP_FN / NULL_COPY_FN wrong (%d %d)", f2, f3);
        if (f4 != (int)(it & 1) || (f4 && (intptr_t)ov != it)) mt_fail("MPI-1 attribute wrong");
        struct val *nv = (struct val *)malloc(sizeof *nv);
        nv->v = v->v * 3 % 1000003;
        nv->gen = it;
        MPI_Comm_set_attr(d, kv_count, nv);  /* deletes the copy */
        long sum = 0;
        MPI_Allreduce(&nv->v, &sum, 1, MPI_LONG, MPI_SUM, d);
        MPI_Comm_delete_attr(d, kv_dup);
        MPI_Comm_free(&d);                   /* deletes nv */
        kv0->v = (kv0->v + sum) % 1000003;   /* the long-lived attribute's value changes */
        kv0->gen++;
        MPI_Attr_delete(keep, kv_old);

        /* datatype: dup (copy callback), value, free (delete callback) */
        MPI_Datatype t;
        MPI_Type_dup(pair_keep, &t);
        void *tv = NULL;
        int tf = 0;
        MPI_Type_get_attr(t, tkv, &tv, &tf);
        if (!tf || (intptr_t)tv != 6) mt_fail("type attribute copy: %d %ld", tf, (long)(intptr_t)tv);
        MPI_Type_set_attr(t, tkv, (void *)(intptr_t)it);   /* delete callback for the old value */
        MPI_Type_free(&t);
        char name[MPI_MAX_OBJECT_NAME];
        int nlen = 0;
        MPI_Type_get_name(pair_keep, name, &nlen);
        if (strcmp(name, "pair_keep") != 0) mt_fail("type name lost: '%s'", name);

        /* introspection: the struct's parts (predefined: no new handles) and a dup's part (new) */
        int ni, na, nd, comb;
        MPI_Type_get_envelope(pair, &ni, &na, &nd, &comb);
        if (comb != MPI_COMBINER_STRUCT || ni != 3 || na != 2 || nd != 2) mt_fail("envelope of the struct");
        int ints[3];
        MPI_Aint adr[2];
        MPI_Datatype parts[2];
        MPI_Type_get_contents(pair, 3, 2, 2, ints, adr, parts);
        if (parts[0] != MPI_INT || parts[1] != MPI_DOUBLE || adr[1] != 8) mt_fail("contents of the struct");
        MPI_Type_get_envelope(pair_keep, &ni, &na, &nd, &comb);
        if (comb != MPI_COMBINER_DUP || nd != 1) mt_fail("envelope of the dup");
        MPI_Type_get_contents(pair_keep, 0, 0, 1, ints, adr, parts);
        int psz = 0;
        MPI_Type_size(parts[0], &psz);
        MPI_Type_get_envelope(parts[0], &ni, &na, &nd, &comb);
        if (psz != 12 || comb != MPI_COMBINER_STRUCT) mt_fail("part of the dup: size %d combiner %d", psz, comb);
        MPI_Type_free(&parts[0]);
        {   /* a vector over the struct: its part is a new handle on Open MPI (a dup the library makes),
             * the struct's own on MPICH; both must decode as the struct */
            MPI_Datatype vv, inner;
            int vi[3];
            MPI_Type_vector(2, 1, 2, pair, &vv);
            MPI_Type_get_contents(vv, 3, 0, 1, vi, adr, &inner);
            int isz = 0;
            MPI_Type_size(inner, &isz);
            MPI_Type_get_envelope(inner, &ni, &na, &nd, &comb);
            if (vi[0] != 2 || vi[2] != 2 || isz != 12 || comb != MPI_COMBINER_STRUCT || nd != 2)
                mt_fail("iteration %ld: the part of a vector over the struct: size %d combiner %d", it, isz, comb);
            MPI_Type_free(&inner);
            MPI_Type_free(&vv);
        }
        MPI_Type_get_envelope(held, &ni, &na, &nd, &comb);
        if (comb != MPI_COMBINER_STRUCT || ni != 3 || na != 2 || nd != 2)
            mt_fail("iteration %ld: the part MPI_Type_get_contents gave before the loop: combiner %d", it, comb);
        MPI_Type_get_contents(held, 3, 2, 2, ints, adr, parts);
        MPI_Type_size(held, &psz);
        if (parts[0] != MPI_INT || parts[1] != MPI_DOUBLE || adr[1] != 8 || psz != 12)
            mt_fail("iteration %ld: contents of the part MPI_Type_get_contents gave before the loop", it);

        /* hindexed_block and darray over the wire */
        int hs[12], hr[12];
        for (int i = 0; i < 12; i++) { hs[i] = (int)(it * 13 + i + r.rank); hr[i] = -1; }
        MPI_Sendrecv(hs, 1, hb, right, 5, hr, 1, hb, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < gs[0] * 6; i++) grid[i] = (int)(i * it + r.rank);
        int dsz = 0;
        MPI_Pack_size(1, da, MPI_COMM_WORLD, &dsz);
        char *pk = (char *)malloc((size_t)dsz);
        int pos = 0;
        MPI_Pack(grid, 1, da, pk, dsz, &pos, MPI_COMM_WORLD);

        h = mt_hash(h, hr, sizeof hr);
        h = mt_hash(h, pk, (size_t)pos);
        h = mt_hash(h, &sum, sizeof sum);
        h = mt_hash(h, kv0, sizeof *kv0);
        h = mt_hash(h, &cnt, sizeof cnt);
        free(pk);
    } while (!mt_done(&r, it));

    /* What the checkpoint must not have lost, once more at the end. */
    int f = 0;
    struct val *last = (struct val *)getattr(keep, kv_count, &f);
    if (!f || last != kv0) mt_fail("the long-lived attribute is gone");
    MPI_Comm_free(&keep);                    /* deletes kv0 */
    MPI_Comm_free_keyval(&kv_count);
    MPI_Comm_free_keyval(&kv_dup);
    MPI_Comm_free_keyval(&kv_nocopy);
    MPI_Keyval_free(&kv_old);
    MPI_Type_free(&held);
    MPI_Type_free(&pair_keep);               /* tdelete for its value */
    MPI_Type_free_keyval(&tkv);
    MPI_Type_free(&pair);
    MPI_Type_free(&hb);
    MPI_Type_free(&da);
    free(grid);
    h = mt_hash(h, &cnt, sizeof cnt);
    if (cnt.copies != it || cnt.deletes != 2 * it + 1 || cnt.tcopies != it || cnt.tdeletes != 2 * it + 1 ||
        cnt.oldcopies != it)
        mt_fail("callback counts: copies %ld deletes %ld tcopies %ld tdeletes %ld old %ld after %ld iterations",
                cnt.copies, cnt.deletes, cnt.tcopies, cnt.tdeletes, cnt.oldcopies, it);
    mt_finish(&r, "attrs", it, h);
    return 0;
}
