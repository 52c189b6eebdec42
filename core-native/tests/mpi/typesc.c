/* typesc - MPI 4.0's large-count datatype constructors, their decoding and large-count user ops, across
 * checkpoints.  MPICH 4.0 exports them; Open MPI 4.1 does not, so the test is registered for MPICH only.
 *
 * Thirteen datatypes over MPI_LONG, one per constructor: MPI_Type_contiguous_c, _vector_c,
 * _create_hvector_c, _create_resized_c, _indexed_c, _create_indexed_block_c, _create_hindexed_c,
 * _create_hindexed_block_c (over a derived type), _create_struct_c (a long and a derived type),
 * _create_subarray_c, _create_darray_c (this rank's block), and two int-form ones (MPI_Type_indexed,
 * MPI_Type_create_struct) that the large-count queries must answer for too.  One set is made before the
 * first iteration (after a restart those are the replay's: same handles, remade by the same calls), and
 * a second set is made, used and freed every iteration (so checkpoints fall between the calls).  Every
 * iteration, for every type of both sets:
 *   layout     sent with the type, received as plain longs, and the other way round; the elements must
 *              sit where the layout (computed here, per rank) says, and nothing else may be written;
 *   decoding   MPI_Type_get_envelope_c and MPI_Type_get_contents_c give the combiner and the integer,
 *              address and large-count arrays the constructor was called with (MPI 4.0 sec. 5.1.13:
 *              a _c constructor's counts come back in the MPI_Count array, an int one's in the int
 *              array); predefined members come back as themselves, the derived one as a new handle
 *              that is the same contiguous type (decoded too) and is freed;
 *   user ops   MPI_Allreduce of pairs (a derived type) with an op of MPI_Op_create_c made before the
 *              first iteration, whose function checks that the datatype it is given is the program's
 *              handle; MPI_Allreduce_c with a non-commutative op made and freed every iteration.
 * Each result is compared with the value it must have; every received value goes into the checksum. */
#include "mpitest.h"

#if MPI_VERSION >= 4

#define NT 13            /* datatypes per set */
#define BUF 128          /* longs in a buffer: the darray spans 4 per rank, at most 16 ranks */
#define L ((MPI_Count)sizeof(long))

static int me, n, left, right;
static MPI_Datatype part;        /* contiguous_c(3, MPI_LONG): the derived member of two types */
static MPI_Datatype pair;        /* contiguous_c(2, MPI_LONG): the element of the user op's Allreduce */
static long op_calls, op_bad;    /* calls of the user functions; calls with a datatype not ours */

static void fail_at(const char *what, int k, long it, const char *detail)
{
    mt_fail("typesc: type %d: %s: %s wrong at iteration %ld", k, what, detail, it);
}

/* ---- the types and what they must be ---- */

/* Datatype k of a set, made by its constructor (rank decides the darray's block). */
static MPI_Datatype make_type(int k)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Count bl[3] = { 2, 1, 0 }, ds[3] = { 1, 5, 0 }, ib3[3] = { 0, 3, 7 }, hb[2] = { 1, 2 }, hd[2] = { 2 * L, 6 * L };
    MPI_Count hbd[2] = { 1 * L, 4 * L }, sb[2] = { 1, 1 }, sd[2] = { 0, 5 * L };
    MPI_Count sz[2] = { 4, 5 }, ssz[2] = { 2, 3 }, st[2] = { 1, 1 }, gs[1] = { 4 * (MPI_Count)n };
    MPI_Datatype stys[2] = { MPI_LONG, part };
    int ibl[2] = { 2, 1 }, ids[2] = { 1, 5 }, isb[2] = { 1, 1 };
    MPI_Aint isd[2] = { 0, 5 * sizeof(long) };
    int dist[1] = { MPI_DISTRIBUTE_BLOCK }, darg[1] = { MPI_DISTRIBUTE_DFLT_DARG }, ps[1] = { n };
    switch (k) {
    case 0: MPI_Type_contiguous_c(3, MPI_LONG, &t); break;
    case 1: MPI_Type_vector_c(2, 1, 2, MPI_LONG, &t); break;
    case 2: MPI_Type_create_hvector_c(2, 1, 3 * L, MPI_LONG, &t); break;
    case 3: MPI_Type_create_resized_c(MPI_LONG, 0, 2 * L, &t); break;
    case 4: MPI_Type_indexed_c(2, bl, ds, MPI_LONG, &t); break;
    case 5: MPI_Type_create_indexed_block_c(3, 2, ib3, MPI_LONG, &t); break;
    case 6: MPI_Type_create_hindexed_c(2, hb, hd, MPI_LONG, &t); break;
    case 7: MPI_Type_create_hindexed_block_c(2, 1, hbd, part, &t); break;
    case 8: MPI_Type_create_struct_c(2, sb, sd, stys, &t); break;
    case 9: MPI_Type_create_subarray_c(2, sz, ssz, st, MPI_ORDER_C, MPI_LONG, &t); break;
    case 10: MPI_Type_create_darray_c(n, me, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_LONG, &t); break;
    case 11: MPI_Type_indexed(2, ibl, ids, MPI_LONG, &t); break;
    default: MPI_Type_create_struct(2, isb, isd, stys, &t); break;
    }
    MPI_Type_commit(&t);
    return t;
}

/* Where type k of rank r puts its elements, in longs from the buffer's start; returns how many. */
static int layout(int k, int r, int offs[])
{
    static const int o0[] = { 0, 1, 2 }, o1[] = { 0, 2 }, o2[] = { 0, 3 }, o3[] = { 0 }, o4[] = { 1, 2, 5 };
    static const int o5[] = { 0, 1, 3, 4, 7, 8 }, o6[] = { 2, 6, 7 }, o7[] = { 1, 2, 3, 4, 5, 6 };
    static const int o8[] = { 0, 5, 6, 7 }, o9[] = { 6, 7, 8, 11, 12, 13 };
    static const int *const tab[] = { o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, NULL, o4, o8 };
    static const int len[] = { 3, 2, 2, 1, 3, 6, 3, 6, 4, 6, 4, 3, 4 };
    for (int i = 0; i < len[k]; i++) offs[i] = tab[k] ? tab[k][i] : 4 * r + i;   /* darray: block r */
    return len[k];
}

/* What MPI_Type_get_envelope_c and MPI_Type_get_contents_c must say about type k. */
struct decoded {
    int comb;
    MPI_Count ni, na, nl, nd;
    int ints[8];
    MPI_Aint addrs[2];
    MPI_Count large[8];
    MPI_Datatype types[2];       /* MPI_DATATYPE_NULL: `part`, as a new handle */
};

static struct decoded expected(int k)
{
    MPI_Datatype P = MPI_DATATYPE_NULL, LG = MPI_LONG;
    switch (k) {
    case 0: return (struct decoded){ MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1, { 0 }, { 0 }, { 3 }, { LG } };
    case 1: return (struct decoded){ MPI_COMBINER_VECTOR, 0, 0, 3, 1, { 0 }, { 0 }, { 2, 1, 2 }, { LG } };
    case 2: return (struct decoded){ MPI_COMBINER_HVECTOR, 0, 0, 3, 1, { 0 }, { 0 }, { 2, 1, 3 * L }, { LG } };
    case 3: return (struct decoded){ MPI_COMBINER_RESIZED, 0, 0, 2, 1, { 0 }, { 0 }, { 0, 2 * L }, { LG } };
    case 4: return (struct decoded){ MPI_COMBINER_INDEXED, 0, 0, 5, 1, { 0 }, { 0 }, { 2, 2, 1, 1, 5 }, { LG } };
    case 5: return (struct decoded){ MPI_COMBINER_INDEXED_BLOCK, 0, 0, 5, 1, { 0 }, { 0 }, { 3, 2, 0, 3, 7 }, { LG } };
    case 6: return (struct decoded){ MPI_COMBINER_HINDEXED, 0, 0, 5, 1, { 0 }, { 0 }, { 2, 1, 2, 2 * L, 6 * L }, { LG } };
    case 7: return (struct decoded){ MPI_COMBINER_HINDEXED_BLOCK, 0, 0, 4, 1, { 0 }, { 0 }, { 2, 1, L, 4 * L }, { P } };
    case 8: return (struct decoded){ MPI_COMBINER_STRUCT, 0, 0, 5, 2, { 0 }, { 0 }, { 2, 1, 1, 0, 5 * L }, { LG, P } };
    case 9:
        return (struct decoded){ MPI_COMBINER_SUBARRAY, 2, 0, 6, 1, { 2, MPI_ORDER_C }, { 0 }, { 4, 5, 2, 3, 1, 1 }, { LG } };
    case 10:
        return (struct decoded){ MPI_COMBINER_DARRAY, 7, 0, 1, 1,
                                 { n, me, 1, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, n, MPI_ORDER_C },
                                 { 0 }, { 4 * (MPI_Count)n }, { LG } };
    case 11: return (struct decoded){ MPI_COMBINER_INDEXED, 5, 0, 0, 1, { 2, 2, 1, 1, 5 }, { 0 }, { 0 }, { LG } };
    default:
        return (struct decoded){ MPI_COMBINER_STRUCT, 3, 2, 0, 2, { 2, 1, 1 }, { 0, 5 * sizeof(long) }, { 0 }, { LG, P } };
    }
}

/* ---- the checks ---- */

/* The derived member a decoding gave, which the program must free: decoded as contiguous_c(3, MPI_LONG).
 * (MPICH gives part's own handle with one more reference; under the runtime it is a handle of its own.) */
static void check_part(MPI_Datatype d, int k, long it)
{
    if (d == MPI_LONG || d == MPI_DATATYPE_NULL) fail_at("MPI_Type_get_contents_c", k, it, "derived member handle");
    MPI_Count ni = -1, na = -1, nl = -1, nd = -1, size = 0, large[1] = { 0 };
    int comb = -1;
    MPI_Datatype inner[1];
    MPI_Type_get_envelope_c(d, &ni, &na, &nl, &nd, &comb);
    if (comb != MPI_COMBINER_CONTIGUOUS || ni != 0 || na != 0 || nl != 1 || nd != 1)
        fail_at("MPI_Type_get_envelope_c", k, it, "derived member's envelope");
    MPI_Type_get_contents_c(d, 0, 0, 1, 1, NULL, NULL, large, inner);
    MPI_Type_size_c(d, &size);
    if (large[0] != 3 || inner[0] != MPI_LONG || size != 3 * L) fail_at("MPI_Type_get_contents_c", k, it, "derived member");
    MPI_Type_free(&d);
}

static void check_decoding(MPI_Datatype t, int k, long it)
{
    struct decoded e = expected(k);
    MPI_Count ni = -1, na = -1, nl = -1, nd = -1;
    int comb = -1;
    MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb);
    if (comb != e.comb || ni != e.ni || na != e.na || nl != e.nl || nd != e.nd)
        fail_at("MPI_Type_get_envelope_c", k, it, "combiner or counts");
    int ints[8];
    MPI_Aint addrs[2];
    MPI_Count large[8];
    MPI_Datatype types[2];
    MPI_Type_get_contents_c(t, ni, na, nl, nd, ints, addrs, large, types);
    for (MPI_Count i = 0; i < ni; i++) if (ints[i] != e.ints[i]) fail_at("MPI_Type_get_contents_c", k, it, "integers");
    for (MPI_Count i = 0; i < na; i++) if (addrs[i] != e.addrs[i]) fail_at("MPI_Type_get_contents_c", k, it, "addresses");
    for (MPI_Count i = 0; i < nl; i++) if (large[i] != e.large[i]) fail_at("MPI_Type_get_contents_c", k, it, "large counts");
    for (MPI_Count i = 0; i < nd; i++) {
        if (e.types[i] == MPI_DATATYPE_NULL) check_part(types[i], k, it);
        else if (types[i] != e.types[i]) fail_at("MPI_Type_get_contents_c", k, it, "predefined member");
    }
}

static long val(int r, long it, int j) { return (it * 100 + r) * 1000 + j; }

/* Type k around the ring both ways: sent as the type and received as longs, then sent as longs and
 * received as the type.  Returns the checksum with what arrived. */
static uint64_t check_layout(MPI_Datatype t, int k, long it, uint64_t h)
{
    long sbuf[BUF], rbuf[BUF];
    int mine[BUF], theirs[BUF];
    int m = layout(k, me, mine);
    layout(k, left, theirs);
    for (int j = 0; j < BUF; j++) { sbuf[j] = val(me, it, j); rbuf[j] = -1; }
    MPI_Sendrecv(sbuf, 1, t, right, k, rbuf, m, MPI_LONG, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < m; i++) if (rbuf[i] != val(left, it, theirs[i])) fail_at("send with the type", k, it, "element");
    h = mt_hash(h, rbuf, (size_t)m * sizeof(long));
    for (int j = 0; j < BUF; j++) rbuf[j] = -1;
    MPI_Sendrecv(sbuf, m, MPI_LONG, right, k, rbuf, 1, t, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < m; i++) {
        if (rbuf[mine[i]] != val(left, it, i)) fail_at("receive with the type", k, it, "element");
        rbuf[mine[i]] = -1;
    }
    for (int j = 0; j < BUF; j++) if (rbuf[j] != -1) fail_at("receive with the type", k, it, "a hole written");
    return h;
}

/* ---- user ops ---- */

/* pairs: first components summed, second ones' maximum; called with our handle for `pair` */
static void pair_op(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    const long *a = in;
    long *b = inout;
    op_calls++;
    if (*dt != pair) op_bad++;
    for (MPI_Count i = 0; i < *len; i++) {
        b[2 * i] += a[2 * i];
        if (a[2 * i + 1] > b[2 * i + 1]) b[2 * i + 1] = a[2 * i + 1];
    }
}

/* x op y = x: not commutative, the reduction is the lowest rank's value; called with MPI_LONG */
static void first_op(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    op_calls++;
    if (*dt != MPI_LONG) op_bad++;
    memcpy(inout, in, (size_t)*len * sizeof(long));
}

static uint64_t check_ops(MPI_Op pairs, long it, uint64_t h)
{
    long in[6], out[6];
    for (int i = 0; i < 3; i++) { in[2 * i] = it * 10 + me + i; in[2 * i + 1] = it + me * 7 + i; }
    long calls = op_calls;
    MPI_Allreduce(in, out, 3, pair, pairs, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++) {
        long sum = 0;
        for (int r = 0; r < n; r++) sum += it * 10 + r + i;
        if (out[2 * i] != sum || out[2 * i + 1] != it + (n - 1) * 7 + i) mt_fail("typesc: MPI_Op_create_c op wrong at iteration %ld", it);
    }
    MPI_Op first;
    MPI_Op_create_c(first_op, 0, &first);   /* mana-lint: ignore MPI_Op_create_c (two functions: far below the limit) */
    long v[2] = { val(me, it, 0), val(me, it, 1) }, w[2] = { 0, 0 };
    MPI_Allreduce_c(v, w, 2, MPI_LONG, first, MPI_COMM_WORLD);
    MPI_Op_free(&first);
    if (w[0] != val(0, it, 0) || w[1] != val(0, it, 1)) mt_fail("typesc: non-commutative MPI_Op_create_c op wrong at iteration %ld", it);
    if (op_bad) mt_fail("typesc: a user function was given a datatype that is not the program's (iteration %ld)", it);
    long ran = op_calls - calls, ran_all = 0;      /* some ranks only pass their values on */
    MPI_Allreduce(&ran, &ran_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (n > 1 && ran_all < 2) mt_fail("typesc: the user functions ran %ld times at iteration %ld", ran_all, it);
    h = mt_hash(h, out, sizeof out);
    return mt_hash(h, w, sizeof w);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    me = r.rank;
    n = r.size;
    left = (me + n - 1) % n;
    right = (me + 1) % n;
    if (n > BUF / 8) mt_fail("typesc: at most %d ranks", BUF / 8);
    MPI_Type_contiguous_c(3, MPI_LONG, &part);
    MPI_Type_contiguous_c(2, MPI_LONG, &pair);
    MPI_Type_commit(&part);
    MPI_Type_commit(&pair);
    MPI_Datatype kept[NT];                 /* made once: replayed at each restart */
    for (int k = 0; k < NT; k++) kept[k] = make_type(k);
    MPI_Op pairs;
    MPI_Op_create_c(pair_op, 1, &pairs);    /* mana-lint: ignore MPI_Op_create_c (two functions: far below the limit) */
    {   /* a predefined type decodes as named */
        MPI_Count ni, na, nl, nd;
        int comb = -1;
        MPI_Type_get_envelope_c(MPI_LONG, &ni, &na, &nl, &nd, &comb);
        if (comb != MPI_COMBINER_NAMED) mt_fail("typesc: MPI_LONG's combiner is %d", comb);
    }
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        for (int k = 0; k < NT; k++) {
            MPI_Datatype fresh = make_type(k);
            check_decoding(kept[k], k, it);
            check_decoding(fresh, k, it);
            h = check_layout(kept[k], k, it, h);
            h = check_layout(fresh, k, it, h);
            MPI_Type_free(&fresh);
        }
        h = check_ops(pairs, it, h);
    } while (!mt_done(&r, it));
    MPI_Op_free(&pairs);
    for (int k = 0; k < NT; k++) MPI_Type_free(&kept[k]);
    MPI_Type_free(&part);
    MPI_Type_free(&pair);
    mt_finish(&r, "typesc", it, h);
    return 0;
}

#else
int main(void)
{
    fprintf(stderr, "typesc: needs MPI 4.0's large-count calls (MPICH 4.0 has them)\n");
    return 77;
}
#endif
