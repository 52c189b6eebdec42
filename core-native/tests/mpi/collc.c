/* collc - the large-count (MPI 4) collectives and queries, every one a generated wrapper except the
 * "w" forms (coll.c): blocking and nonblocking collectives with MPI_Count counts and MPI_Aint
 * displacements, neighbourhood collectives on a periodic ring, and Reduce_local_c, Type_size_c,
 * Type_get_extent_c, Pack_c/Unpack_c/Pack_size_c, Get_count_c; datatypes made by the large-count
 * constructors before any checkpoint (replayed with their MPI_Count values at restart) and used after.  Each result is checked against what
 * it must be, every iteration, before and after checkpoints.  MPICH 4 exports the `_c` functions;
 * Open MPI 4.1 does not, and there the same program runs their int twins. */
#include "mpitest.h"

#if MPI_VERSION >= 4
#define C(f) f##_c
typedef MPI_Count cnt_t;
typedef MPI_Aint dsp_t;
#else
#define C(f) f
typedef int cnt_t;
typedef int dsp_t;
#endif

#define NMAX 16

static void expect(int ok, const char *what, long it)
{
    if (!ok) mt_fail("collc: %s wrong at iteration %ld", what, it);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int n = r.size, me = r.rank;
    if (n > NMAX) mt_fail("collc: at most %d ranks", NMAX);
    /* A periodic ring for the neighbourhood collectives: made before any checkpoint, used after. */
    MPI_Comm ring;
    int dims[1] = { n }, periods[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int left = (me + n - 1) % n, right = (me + 1) % n;
    /* Derived types from the large-count constructors, made once: after a restart they are the
     * replay's, which must make the _c call again with the same counts. */
    MPI_Datatype tcont, tvec, thvec, tres;
    C(MPI_Type_contiguous)(3, MPI_LONG, &tcont);
    C(MPI_Type_vector)(2, 1, 2, MPI_LONG, &tvec);                       /* elements 0 and 2 */
    C(MPI_Type_create_hvector)(2, 1, 3 * sizeof(long), MPI_LONG, &thvec); /* elements 0 and 3 */
    C(MPI_Type_create_resized)(MPI_LONG, 0, 2 * sizeof(long), &tres);   /* one long every two */
    MPI_Type_commit(&tcont);
    MPI_Type_commit(&tvec);
    MPI_Type_commit(&thvec);
    MPI_Type_commit(&tres);
    cnt_t cnts[NMAX], rcnts[NMAX];
    dsp_t dsps[NMAX], rdsps[NMAX];
    long a[NMAX * NMAX], b[NMAX * NMAX], c[NMAX * NMAX];
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        long base = it * 1000 + me;
        /* in flight across the blocking calls below */
        long ib = me == 0 ? it * 7 : -1, ia = base, iao = 0;
        MPI_Request rq[2];
        C(MPI_Ibcast)(&ib, 1, MPI_LONG, 0, MPI_COMM_WORLD, &rq[0]);
        C(MPI_Iallreduce)(&ia, &iao, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &rq[1]);

        long v = me == (int)(it % n) ? it * 3 : 0;
        C(MPI_Bcast)(&v, 1, MPI_LONG, (int)(it % n), MPI_COMM_WORLD);
        expect(v == it * 3, "MPI_Bcast_c", it);

        long sum = 0, want = 0;
        for (int i = 0; i < n; i++) want += it * 1000 + i;
        C(MPI_Allreduce)(&base, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        expect(sum == want, "MPI_Allreduce_c", it);
        long mx = -1;
        C(MPI_Reduce)(&base, &mx, 1, MPI_LONG, MPI_MAX, n - 1, MPI_COMM_WORLD);
        if (me == n - 1) expect(mx == it * 1000 + n - 1, "MPI_Reduce_c", it);

        /* rank i gives i+1 values; they land packed in rank order */
        for (int i = 0; i < me + 1; i++) a[i] = base * 10 + i;
        dsp_t at = 0;
        for (int i = 0; i < n; i++) { cnts[i] = i + 1; dsps[i] = at; at += i + 1; }
        C(MPI_Allgatherv)(a, me + 1, MPI_LONG, b, cnts, dsps, MPI_LONG, MPI_COMM_WORLD);
        for (int i = 0, k = 0; i < n; i++)
            for (int j = 0; j < i + 1; j++, k++) expect(b[k] == (it * 1000 + i) * 10 + j, "MPI_Allgatherv_c", it);

        /* two values to each peer */
        for (int i = 0; i < n; i++) { cnts[i] = 2; dsps[i] = 2 * i; a[2 * i] = base + i; a[2 * i + 1] = -(base + i); }
        C(MPI_Alltoallv)(a, cnts, dsps, MPI_LONG, b, cnts, dsps, MPI_LONG, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            expect(b[2 * i] == it * 1000 + i + me && b[2 * i + 1] == -(it * 1000 + i + me), "MPI_Alltoallv_c", it);

        /* the same through the "w" form (hand-written: one datatype per peer) */
        MPI_Datatype ts[NMAX];
        for (int i = 0; i < n; i++) { ts[i] = MPI_LONG; dsps[i] = (dsp_t)(2 * i * sizeof(long)); }
        C(MPI_Alltoallw)(a, cnts, dsps, ts, c, cnts, dsps, ts, MPI_COMM_WORLD);
        expect(memcmp(b, c, sizeof(long) * 2 * (size_t)n) == 0, "MPI_Alltoallw_c", it);

        for (int i = 0; i < n; i++) a[i] = base + i;
        long rsb = 0;
        C(MPI_Reduce_scatter_block)(a, &rsb, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        expect(rsb == want + (long)n * me, "MPI_Reduce_scatter_block_c", it);

        long sc = 0, ex = 0, wsc = 0;
        for (int i = 0; i <= me; i++) wsc += it * 1000 + i;
        C(MPI_Scan)(&base, &sc, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        C(MPI_Exscan)(&base, &ex, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        expect(sc == wsc, "MPI_Scan_c", it);
        if (me > 0) expect(ex == wsc - base, "MPI_Exscan_c", it);

        /* root scatters i+1 values to rank i, gathers one back from each */
        at = 0;
        for (int i = 0; i < n; i++) { rcnts[i] = i + 1; rdsps[i] = at; for (int j = 0; j <= i; j++) a[at + j] = it + i * 100 + j; at += i + 1; }
        C(MPI_Scatterv)(a, rcnts, rdsps, MPI_LONG, b, me + 1, MPI_LONG, 0, MPI_COMM_WORLD);
        for (int j = 0; j <= me; j++) expect(b[j] == it + me * 100 + j, "MPI_Scatterv_c", it);
        C(MPI_Gather)(&b[me], 1, MPI_LONG, c, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        if (me == 0)
            for (int i = 0; i < n; i++) expect(c[i] == it + i * 100 + i, "MPI_Gather_c", it);

        /* one value from each rank, to all; one value to each peer */
        C(MPI_Allgather)(&base, 1, MPI_LONG, b, 1, MPI_LONG, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) expect(b[i] == it * 1000 + i, "MPI_Allgather_c", it);
        for (int i = 0; i < n; i++) a[i] = base * 100 + i;
        C(MPI_Alltoall)(a, 1, MPI_LONG, b, 1, MPI_LONG, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) expect(b[i] == (it * 1000 + i) * 100 + me, "MPI_Alltoall_c", it);
        /* the root gathers i+1 values from rank i, then scatters one to each */
        for (int i = 0; i < me + 1; i++) a[i] = base * 10 + i;
        at = 0;
        for (int i = 0; i < n; i++) { rcnts[i] = i + 1; rdsps[i] = at; at += i + 1; }
        C(MPI_Gatherv)(a, me + 1, MPI_LONG, c, rcnts, rdsps, MPI_LONG, n - 1, MPI_COMM_WORLD);
        if (me == n - 1)
            for (int i = 0, k = 0; i < n; i++)
                for (int j = 0; j < i + 1; j++, k++) expect(c[k] == (it * 1000 + i) * 10 + j, "MPI_Gatherv_c", it);
        for (int i = 0; i < n; i++) a[i] = it * 5 + i;
        long one = -1;
        C(MPI_Scatter)(a, 1, MPI_LONG, &one, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        expect(one == it * 5 + me, "MPI_Scatter_c", it);
        /* rank i gets the sum of everyone's i-th pair */
        for (int i = 0; i < n; i++) { rcnts[i] = 2; a[2 * i] = base + i; a[2 * i + 1] = 1; }
        long rs[2] = { 0, 0 };
        C(MPI_Reduce_scatter)(a, rs, rcnts, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        expect(rs[0] == want + (long)n * me && rs[1] == n, "MPI_Reduce_scatter_c", it);

        /* neighbours on the ring: left then right */
        long nb[2] = { 0, 0 }, mine[2] = { base, -base };
        C(MPI_Neighbor_allgather)(&base, 1, MPI_LONG, nb, 1, MPI_LONG, ring);
        expect(nb[0] == it * 1000 + left && nb[1] == it * 1000 + right, "MPI_Neighbor_allgather_c", it);
        long nb2[2] = { 0, 0 };
        C(MPI_Neighbor_alltoall)(mine, 1, MPI_LONG, nb2, 1, MPI_LONG, ring);
        if (n > 2 || n == 1)
            expect(nb2[0] == -(it * 1000 + left) && nb2[1] == it * 1000 + right, "MPI_Neighbor_alltoall_c", it);
        MPI_Request nr;
        C(MPI_Ineighbor_alltoall)(mine, 1, MPI_LONG, nb, 1, MPI_LONG, ring, &nr);
        MPI_Wait(&nr, MPI_STATUS_IGNORE);
        /* my left neighbour sent me its second value (to its right), my right one its first */
        if (n > 2 || n == 1)
            expect(nb[0] == -(it * 1000 + left) && nb[1] == it * 1000 + right, "MPI_Ineighbor_alltoall_c", it);

        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        expect(ib == it * 7, "MPI_Ibcast_c", it);
        expect(iao == want, "MPI_Iallreduce_c", it);

        /* local: no communication */
        long acc[2] = { 1, 2 }, add[2] = { base, base };
        C(MPI_Reduce_local)(add, acc, 2, MPI_LONG, MPI_SUM);
        expect(acc[0] == base + 1 && acc[1] == base + 2, "MPI_Reduce_local_c", it);
        cnt_t tsz = 0, lb = -1, ext = 0, psz = 0, pos = 0, upos = 0;
#if MPI_VERSION >= 4
        MPI_Type_size_c(MPI_LONG, &tsz);
        MPI_Type_get_extent_c(MPI_LONG, &lb, &ext);
        MPI_Pack_size_c(2, MPI_LONG, MPI_COMM_WORLD, &psz);
#else
        MPI_Aint lb_, ext_;
        MPI_Type_size(MPI_LONG, &tsz);
        MPI_Type_get_extent(MPI_LONG, &lb_, &ext_);
        lb = (cnt_t)lb_;
        ext = (cnt_t)ext_;
        MPI_Pack_size(2, MPI_LONG, MPI_COMM_WORLD, &psz);
#endif
#if MPI_VERSION >= 4
        {   /* the portable representation, and the true extent */
            MPI_Count tlb = -1, text = 0, xsz = 0, xpos = 0, xupos = 0;
            MPI_Type_get_true_extent_c(tvec, &tlb, &text);
            expect(tlb == 0 && text == 3 * (MPI_Count)sizeof(long), "MPI_Type_get_true_extent_c", it);
            char xp[64];
            long xv[2] = { base, -base }, xb[2] = { 0, 0 };
            MPI_Pack_external_size_c("external32", 2, MPI_LONG, &xsz);
            MPI_Pack_external_c("external32", xv, 2, MPI_LONG, xp, sizeof xp, &xpos);
            MPI_Unpack_external_c("external32", xp, xpos, &xupos, xb, 2, MPI_LONG);
            expect(xsz == xpos && xupos == xpos && xb[0] == base && xb[1] == -base, "MPI_Pack_external_c", it);
        }
#endif
        expect(tsz == sizeof(long) && lb == 0 && ext == sizeof(long) && psz >= 2 * (cnt_t)sizeof(long),
               "MPI_Type_size_c/MPI_Type_get_extent_c/MPI_Pack_size_c", it);
        char pk[256];
        long back[2] = { 0, 0 };
        C(MPI_Pack)(acc, 2, MPI_LONG, pk, sizeof pk, &pos, MPI_COMM_WORLD);
        C(MPI_Unpack)(pk, pos, &upos, back, 2, MPI_LONG, MPI_COMM_WORLD);
        expect(upos == pos && back[0] == acc[0] && back[1] == acc[1], "MPI_Pack_c/MPI_Unpack_c", it);

        /* the count of a received message, as MPI_Count */
        MPI_Status st;
        long got[3];
        MPI_Sendrecv(a, 3, MPI_LONG, right, 5, got, 3, MPI_LONG, left, 5, MPI_COMM_WORLD, &st);
        cnt_t gc = 0;
        C(MPI_Get_count)(&st, MPI_LONG, &gc);
        expect(gc == 3, "MPI_Get_count_c", it);

        /* the derived types: from the root of this iteration to everyone */
        int root = (int)(it % n);
        long src[8], dst[4][8];
        for (int i = 0; i < 8; i++) src[i] = me == root ? it * 100 + i : -1;
        memcpy(dst[0], src, sizeof src); memcpy(dst[1], src, sizeof src);
        memcpy(dst[2], src, sizeof src); memcpy(dst[3], src, sizeof src);
        C(MPI_Bcast)(dst[0], 1, tcont, root, MPI_COMM_WORLD);
        C(MPI_Bcast)(dst[1], 1, tvec, root, MPI_COMM_WORLD);
        C(MPI_Bcast)(dst[2], 1, thvec, root, MPI_COMM_WORLD);
        C(MPI_Bcast)(dst[3], 3, tres, root, MPI_COMM_WORLD);
        long w = it * 100;
        expect(dst[0][0] == w && dst[0][1] == w + 1 && dst[0][2] == w + 2, "MPI_Type_contiguous_c", it);
        expect(dst[1][0] == w && dst[1][2] == w + 2 && (me == root || dst[1][1] == -1), "MPI_Type_vector_c", it);
        expect(dst[2][0] == w && dst[2][3] == w + 3 && (me == root || dst[2][1] == -1), "MPI_Type_create_hvector_c", it);
        expect(dst[3][0] == w && dst[3][2] == w + 2 && dst[3][4] == w + 4 && (me == root || dst[3][1] == -1),
               "MPI_Type_create_resized_c", it);

        h = mt_hash(h, dst, sizeof dst);
        h = mt_hash(h, b, sizeof(long) * 2 * (size_t)n);
        h = mt_hash(h, &sum, sizeof sum);
        h = mt_hash(h, &rsb, sizeof rsb);
        h = mt_hash(h, &sc, sizeof sc);
        h = mt_hash(h, nb, sizeof nb);
    } while (!mt_done(&r, it));
    MPI_Type_free(&tcont);
    MPI_Type_free(&tvec);
    MPI_Type_free(&thvec);
    MPI_Type_free(&tres);
    MPI_Comm_free(&ring);
    mt_finish(&r, "collc", it, h);
    return 0;
}
