/* calls_types - the datatype calls no other checkpointed program makes, each called every iteration (so
 * checkpoints fall between them) and each result checked:
 *   constructors  MPI_Type_indexed, MPI_Type_create_indexed_block, MPI_Type_create_hindexed,
 *                 MPI_Type_create_hvector, made, committed, sent around the ring (received as plain
 *                 elements and checked) and freed; MPI_Type_create_f90_real/_complex/_integer and
 *                 MPI_Type_match_size, whose types carry data too;
 *   queries       MPI_Type_size_x, MPI_Type_get_extent(_x), MPI_Type_get_true_extent(_x) against the
 *                 layout; MPI_Get_address, MPI_Aint_add, MPI_Aint_diff;
 *   elements      MPI_Get_elements, MPI_Get_elements_x (and MPI_Get_elements_c, MPI 4.0) of a message
 *                 that fills a derived type partly; MPI_Status_set_elements(_x) read back;
 *   packing       MPI_Pack_external_size, MPI_Pack_external (big-endian bytes checked), the bytes sent,
 *                 MPI_Unpack_external; MPI_Pack sent as MPI_PACKED and MPI_Unpack'ed;
 *   attributes    MPI_Type_set_attr then MPI_Type_delete_attr, whose delete callback must run.
 * Every received value goes into the checksum. */
#include "mpitest.h"

static int tkey;
static long deletes;

static int on_delete(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t;
    if (key != tkey || extra != &deletes) mt_fail("Type_delete_attr: callback with key %d", key);
    deletes += (long)(intptr_t)val;
    return MPI_SUCCESS;
}

static MPI_Comm w;
static int me, n, right, left;

/* Send `count` of type t from sbuf to the right, receive `elems` ints (or what unit is) from the left. */
static void ring(const void *sbuf, int count, MPI_Datatype t, void *rbuf, int elems, MPI_Datatype unit, int tag)
{
    MPI_Status st;
    MPI_Sendrecv(sbuf, count, t, right, tag, rbuf, elems, unit, left, tag, w, &st);
    int got = -1;
    MPI_Get_count(&st, unit, &got);
    if (got != elems) mt_fail("tag %d: received %d elements, want %d", tag, got, elems);
}

static void expect_extent(MPI_Datatype t, MPI_Aint lb, MPI_Aint ext, MPI_Aint tlb, MPI_Aint text, MPI_Count size,
                          const char *what)
{
    MPI_Aint a = -1, b = -1, c = -1, d = -1;
    MPI_Count ax = -1, bx = -1, cx = -1, dx = -1, sx = -1;
    MPI_Type_get_extent(t, &a, &b);
    MPI_Type_get_true_extent(t, &c, &d);
    MPI_Type_get_extent_x(t, &ax, &bx);
    MPI_Type_get_true_extent_x(t, &cx, &dx);
    MPI_Type_size_x(t, &sx);
    if (a != lb || b != ext || c != tlb || d != text || ax != lb || bx != ext || cx != tlb || dx != text || sx != size)
        mt_fail("%s: extent %ld %ld (%lld %lld), true %ld %ld (%lld %lld), size %lld; want %ld %ld, %ld %ld, %lld", what,
                (long)a, (long)b, (long long)ax, (long long)bx, (long)c, (long)d, (long long)cx, (long long)dx,
                (long long)sx, (long)lb, (long)ext, (long)tlb, (long)text, (long long)size);
}

static int base(int who, long it, int i) { return who * 10000 + (int)it * 100 + i; }

static uint64_t iteration(long it, uint64_t h)
{
    int src[32], got[32];
    for (int i = 0; i < 32; i++) src[i] = base(me, it, i);

    /* MPI_Type_indexed: blocks of 1, 2, 3 ints at 0, 4, 9 */
    int bl[3] = { 1, 2, 3 }, dp[3] = { 0, 4, 9 };
    MPI_Datatype ti;
    MPI_Type_indexed(3, bl, dp, MPI_INT, &ti);
    MPI_Type_commit(&ti);
    expect_extent(ti, 0, 12 * sizeof(int), 0, 12 * sizeof(int), 6 * sizeof(int), "Type_indexed");
    ring(src, 1, ti, got, 6, MPI_INT, 1);
    int wi[6] = { 0, 4, 5, 9, 10, 11 };
    for (int i = 0; i < 6; i++)
        if (got[i] != base(left, it, wi[i])) mt_fail("Type_indexed: [%d] = %d", i, got[i]);
    h = mt_hash(h, got, 6 * sizeof(int));

    /* elements of a message that fills the indexed type partly: 5 of its 6 ints */
    MPI_Status st;
    for (int i = 0; i < 32; i++) got[i] = -1;
    MPI_Sendrecv(src, 5, MPI_INT, right, 2, got, 1, ti, left, 2, w, &st);
    int cnt = 0, el = -1;
    MPI_Count elx = -1;
    MPI_Get_count(&st, ti, &cnt);
    MPI_Get_elements(&st, ti, &el);
    MPI_Get_elements_x(&st, ti, &elx);
    if (cnt != MPI_UNDEFINED || el != 5 || elx != 5) mt_fail("Get_elements: count %d elements %d %lld", cnt, el, (long long)elx);
#if MPI_VERSION >= 4
    MPI_Count elc = -1;
    MPI_Get_elements_c(&st, ti, &elc);
    if (elc != 5) mt_fail("Get_elements_c: %lld", (long long)elc);
#endif
    if (got[0] != base(left, it, 0) || got[4] != base(left, it, 1) || got[9] != base(left, it, 3) || got[10] != base(left, it, 4) ||
        got[11] != -1)
        mt_fail("partial indexed receive: %d %d %d %d %d", got[0], got[4], got[9], got[10], got[11]);
    h = mt_hash(h, got, 12 * sizeof(int));
    MPI_Type_free(&ti);

    /* the elements a status says, set by the program */
    MPI_Status_set_elements(&st, MPI_INT, (int)(7 + it % 5));
    MPI_Get_elements(&st, MPI_INT, &el);
    MPI_Get_count(&st, MPI_INT, &cnt);
    if (el != 7 + it % 5 || cnt != el) mt_fail("Status_set_elements: %d elements, count %d", el, cnt);
    MPI_Status_set_elements_x(&st, MPI_DOUBLE, (MPI_Count)(3 + it % 4));
    MPI_Get_elements_x(&st, MPI_DOUBLE, &elx);
    if (elx != 3 + it % 4) mt_fail("Status_set_elements_x: %lld", (long long)elx);

    /* MPI_Type_create_indexed_block: 3 blocks of 2 ints at 1, 6, 12 */
    int ibd[3] = { 1, 6, 12 };
    MPI_Datatype tib;
    MPI_Type_create_indexed_block(3, 2, ibd, MPI_INT, &tib);
    MPI_Type_commit(&tib);
    expect_extent(tib, sizeof(int), 13 * sizeof(int), sizeof(int), 13 * sizeof(int), 6 * sizeof(int), "Type_create_indexed_block");
    ring(src, 2, tib, got, 12, MPI_INT, 3);  /* two of them: the second starts at the first's extent (13 ints after its lb) */
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 2; i++)
                if (got[6 * k + 2 * b + i] != base(left, it, 13 * k + ibd[b] + i))
                    mt_fail("Type_create_indexed_block: [%d] = %d", 6 * k + 2 * b + i, got[6 * k + 2 * b + i]);
    h = mt_hash(h, got, 12 * sizeof(int));
    MPI_Type_free(&tib);

    /* MPI_Type_create_hvector: 3 ints, 12 bytes apart */
    MPI_Datatype thv;
    MPI_Type_create_hvector(3, 1, 3 * sizeof(int), MPI_INT, &thv);
    MPI_Type_commit(&thv);
    expect_extent(thv, 0, 7 * sizeof(int), 0, 7 * sizeof(int), 3 * sizeof(int), "Type_create_hvector");
    ring(src, 1, thv, got, 3, MPI_INT, 4);
    for (int i = 0; i < 3; i++)
        if (got[i] != base(left, it, 3 * i)) mt_fail("Type_create_hvector: [%d] = %d", i, got[i]);
    h = mt_hash(h, got, 3 * sizeof(int));
    MPI_Type_free(&thv);

    /* MPI_Type_create_hindexed over a struct's fields, its displacements from MPI_Get_address */
    struct { double a; int pad; double b[2]; } s, sr;
    memset(&s, 0, sizeof s);
    s.a = me + it * 0.5;
    s.b[0] = -s.a;
    s.b[1] = s.a * 2;
    MPI_Aint ab, aa, a0, a1;
    MPI_Get_address(&s, &ab);
    MPI_Get_address(&s.a, &aa);
    MPI_Get_address(&s.b[0], &a0);
    MPI_Get_address(&s.b[1], &a1);
    if (MPI_Aint_diff(a0, ab) != (MPI_Aint)offsetof(__typeof__(s), b) || MPI_Aint_diff(a1, a0) != (MPI_Aint)sizeof(double) ||
        MPI_Aint_add(ab, (MPI_Aint)offsetof(__typeof__(s), b)) != a0 || aa != ab)
        mt_fail("Get_address/Aint_diff/Aint_add: %ld %ld %ld %ld", (long)ab, (long)aa, (long)a0, (long)a1);
    int hbl[2] = { 1, 2 };
    MPI_Aint hdp[2] = { MPI_Aint_diff(aa, ab), MPI_Aint_diff(a0, ab) };
    MPI_Datatype thi;
    MPI_Type_create_hindexed(2, hbl, hdp, MPI_DOUBLE, &thi);
    MPI_Type_commit(&thi);
    MPI_Aint hext = (MPI_Aint)(offsetof(__typeof__(s), b) + 2 * sizeof(double));
    expect_extent(thi, 0, hext, 0, hext, 3 * sizeof(double), "Type_create_hindexed");
    memset(&sr, 0, sizeof sr);
    MPI_Sendrecv(&s, 1, thi, right, 5, &sr, 1, thi, left, 5, w, &st);
    if (sr.a != left + it * 0.5 || sr.b[0] != -sr.a || sr.b[1] != sr.a * 2 || sr.pad != 0) mt_fail("Type_create_hindexed: %g %g %g", sr.a, sr.b[0], sr.b[1]);
    h = mt_hash(h, &sr.a, sizeof sr.a);
    h = mt_hash(h, sr.b, sizeof sr.b);
    MPI_Type_free(&thi);

    /* Fortran 90 parameterized types and types by size: predefined, never freed; they carry data */
    MPI_Datatype fr, fc, fi, mr, mi, mc;
    int szr = 0, szc = 0, szi = 0, szmr = 0, szmi = 0, szmc = 0;
    MPI_Type_create_f90_real(15, 300, &fr);
    MPI_Type_create_f90_complex(6, 30, &fc);
    MPI_Type_create_f90_integer(9, &fi);
    MPI_Type_match_size(MPI_TYPECLASS_REAL, sizeof(double), &mr);
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, sizeof(int), &mi);
    MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 2 * sizeof(double), &mc);
    MPI_Type_size(fr, &szr);
    MPI_Type_size(fc, &szc);
    MPI_Type_size(fi, &szi);
    MPI_Type_size(mr, &szmr);
    MPI_Type_size(mi, &szmi);
    MPI_Type_size(mc, &szmc);
    if (szr != 8 || szc != 8 || szi != 4 || szmr != 8 || szmi != 4 || szmc != 16)
        mt_fail("f90/match_size types: sizes %d %d %d %d %d %d", szr, szc, szi, szmr, szmi, szmc);
    double dv[2] = { me * 1.5 + it, -1.0 * it }, dr[2] = { 0, 0 };
    float cv[2] = { (float)me, (float)it }, cr[2] = { 0, 0 };
    int iv = base(me, it, 7), ir = 0;
    double mv = me * 0.125 - it, mrv = 0;
    long mlv = base(me, it, 8), mlr = 0;
    MPI_Sendrecv(dv, 2, fr, right, 6, dr, 2, fr, left, 6, w, &st);
    MPI_Sendrecv(cv, 1, fc, right, 7, cr, 1, fc, left, 7, w, &st);
    MPI_Sendrecv(&iv, 1, fi, right, 8, &ir, 1, fi, left, 8, w, &st);
    MPI_Sendrecv(&mv, 1, mr, right, 11, &mrv, 1, mr, left, 11, w, &st);
    MPI_Sendrecv(&mlv, 1, mi, right, 12, &mlr, 1, mi, left, 12, w, &st);
    if (dr[0] != left * 1.5 + it || dr[1] != -1.0 * it || cr[0] != (float)left || cr[1] != (float)it || ir != base(left, it, 7))
        mt_fail("f90 types: %g %g %g %g %d", dr[0], dr[1], cr[0], cr[1], ir);
    if (mrv != left * 0.125 - it || (int)mlr != base(left, it, 8)) mt_fail("Type_match_size types: %g %ld", mrv, mlr);
    h = mt_hash(h, &mrv, sizeof mrv);
    h = mt_hash(h, dr, sizeof dr);
    h = mt_hash(h, cr, sizeof cr);
    h = mt_hash(h, &ir, sizeof ir);

    /* external32: big-endian, sent as bytes and unpacked by the neighbour */
    int ev[3] = { base(me, it, 1), -base(me, it, 2), 0x01020304 }, er[3] = { 0, 0, 0 };
    MPI_Aint esz = -1, epos = 0, upos = 0;
    MPI_Pack_external_size("external32", 3, MPI_INT, &esz);
    if (esz != 12) mt_fail("Pack_external_size: %ld", (long)esz);
    unsigned char eb[12], ebr[12];
    MPI_Pack_external("external32", ev, 3, MPI_INT, eb, sizeof eb, &epos);
    if (epos != 12 || eb[8] != 1 || eb[9] != 2 || eb[10] != 3 || eb[11] != 4) mt_fail("Pack_external: position %ld, bytes %d %d", (long)epos, eb[8], eb[11]);
    MPI_Sendrecv(eb, 12, MPI_BYTE, right, 9, ebr, 12, MPI_BYTE, left, 9, w, &st);
    MPI_Unpack_external("external32", ebr, sizeof ebr, &upos, er, 3, MPI_INT);
    if (upos != 12 || er[0] != base(left, it, 1) || er[1] != -base(left, it, 2) || er[2] != 0x01020304)
        mt_fail("Unpack_external: %d %d %d", er[0], er[1], er[2]);
    h = mt_hash(h, er, sizeof er);

    /* MPI_Pack, sent as MPI_PACKED, MPI_Unpack'ed */
    char pb[256], pr[256];
    int ppos = 0, psz = 0;
    long pl = base(me, it, 3);
    double pd = me - it * 0.25;
    MPI_Pack(&pl, 1, MPI_LONG, pb, sizeof pb, &ppos, w);
    MPI_Pack(&pd, 1, MPI_DOUBLE, pb, sizeof pb, &ppos, w);
    MPI_Sendrecv(pb, ppos, MPI_PACKED, right, 10, pr, sizeof pr, MPI_PACKED, left, 10, w, &st);
    MPI_Get_count(&st, MPI_PACKED, &psz);
    int upos2 = 0;
    long ul = 0;
    double ud = 0;
    MPI_Unpack(pr, psz, &upos2, &ul, 1, MPI_LONG, w);
    MPI_Unpack(pr, psz, &upos2, &ud, 1, MPI_DOUBLE, w);
    if (upos2 != psz || ul != base(left, it, 3) || ud != left - it * 0.25) mt_fail("Unpack: %ld %g at %d of %d", ul, ud, upos2, psz);
    h = mt_hash(h, &ul, sizeof ul);
    h = mt_hash(h, &ud, sizeof ud);

    /* an attribute on a datatype, deleted: the delete callback runs with its value */
    MPI_Datatype tc;
    MPI_Type_contiguous(2, MPI_INT, &tc);
    long before = deletes;
    MPI_Type_set_attr(tc, tkey, (void *)(intptr_t)(it + 1));
    void *v = NULL;
    int flag = 0;
    MPI_Type_get_attr(tc, tkey, &v, &flag);
    if (!flag || (intptr_t)v != it + 1) mt_fail("Type_get_attr: %d %ld", flag, (long)(intptr_t)v);
    MPI_Type_delete_attr(tc, tkey);
    if (deletes != before + it + 1) mt_fail("Type_delete_attr: the delete callback did not run (%ld, %ld)", deletes, before);
    MPI_Type_get_attr(tc, tkey, &v, &flag);
    if (flag) mt_fail("Type_delete_attr: the attribute is still there");
    MPI_Type_free(&tc);
    h = mt_hash(h, &deletes, sizeof deletes);
    return h;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    w = MPI_COMM_WORLD;
    me = r.rank;
    n = r.size;
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, on_delete, &tkey, &deletes);
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        h = iteration(it, h);
    } while (!mt_done(&r, it));
    if (deletes != it * (it + 1) / 2 + it) mt_fail("Type_delete_attr: %ld deletions' worth after %ld iterations", deletes, it);
    MPI_Type_free_keyval(&tkey);
    mt_finish(&r, "calls_types", it, h);
    return 0;
}
