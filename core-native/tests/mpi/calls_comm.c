/* calls_comm - the topology and communicator calls no other checkpointed program makes, each called every
 * iteration (so checkpoints fall between them) and each result checked:
 *   cartesian  a non-periodic 2-D grid made once: MPI_Cartdim_get, MPI_Cart_get, MPI_Cart_rank,
 *              MPI_Cart_coords, MPI_Cart_map, and MPI_Cart_sub (a row communicator, made and freed);
 *   graph      a ring graph made once: MPI_Graph_get, MPI_Graph_map;
 *   neighbours on the grid: MPI_Neighbor_allgatherv, MPI_Neighbor_alltoallv, MPI_Neighbor_alltoallw, then
 *              MPI_Ineighbor_allgatherv, MPI_Ineighbor_alltoall, MPI_Ineighbor_alltoallv and
 *              MPI_Ineighbor_alltoallw all in flight over local work, completed by one MPI_Waitall;
 *   compare    MPI_Comm_compare (ident, congruent, similar, unequal), MPI_Group_rank;
 *   hints      MPI_Comm_set_info on a duplicate and MPI_Comm_dup_with_info, read back with
 *              MPI_Comm_get_info (whether the library kept the key is in the checksum);
 *   idup       (MPI 4.0 only) MPI_Comm_idup_with_info pending over local work, then used and freed;
 *   persistent (MPI 4.0 only) MPI_Neighbor_allgatherv_init, MPI_Neighbor_alltoallv_init and
 *              MPI_Neighbor_alltoallw_init made once on the grid, started together every iteration.
 * The grid is not periodic: a periodic dimension of size 2 names one neighbour twice, and MPI 3.1
 * leaves open which of its two blocks arrives where.  Every received value goes into the checksum. */
#include "mpitest.h"

#define MAXN 4                  /* a 2-D grid has at most 4 neighbours */

static int me, n;

struct wpair { int i[2]; long l[2]; };   /* alltoallw: ints to the lo neighbours, longs to the hi ones */

/* what rank a sends rank b (i-th element) in iteration it */
static long msg(int a, int b, long it, int i) { return a * 10000L + b * 1000L + it * 10 + i; }
/* how many elements rank a sends rank b in the v/w forms */
static int cnt(int a, int b) { return 1 + (a + b) % 2; }

/* Whether the hint came back (right when it did): an MPI drops a key it does not know, or keeps it, as
 * the library decides (Open MPI 4.1 keeps every key given by MPI_Comm_dup_with_info and drops unknown ones
 * given by MPI_Comm_set_info; MPICH drops them both ways).  The answer goes into the checksum, so the
 * runtime must answer as the native library does (it kept every key before: MPICH's comm/comm_info). */
static int hints_consistent(MPI_Comm c, long it)
{
    MPI_Info got;
    MPI_Comm_get_info(c, &got);
    char v[MPI_MAX_INFO_VAL + 1], want[32];
    int flag = 0;
    MPI_Info_get(got, "mana_calls_iteration", MPI_MAX_INFO_VAL, v, &flag);
    snprintf(want, sizeof want, "%ld", it);
    if (flag && strcmp(v, want) != 0) mt_fail("Comm_set_info: hint reads back as '%s', want '%s'", v, want);
    MPI_Info_free(&got);
    return flag;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    me = r.rank;
    n = r.size;
    MPI_Comm w = MPI_COMM_WORLD;
    if (n > 8) mt_fail("at most 8 ranks");

    int dims[2] = { 0, 0 }, periods[2] = { 0, 0 };
    MPI_Dims_create(n, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(w, 2, dims, periods, 0, &cart);
    int nbr[MAXN];                       /* the grid's neighbours in the standard's order: per dimension, lo then hi */
    for (int d = 0; d < 2; d++) MPI_Cart_shift(cart, d, 1, &nbr[2 * d], &nbr[2 * d + 1]);

    int *gindex = malloc(sizeof(int) * (size_t)n), *gedges = malloc(sizeof(int) * 2 * (size_t)n), ne = 0;
    for (int i = 0; i < n; i++) {
        gedges[ne++] = (i + 1) % n;
        gedges[ne++] = (i + n - 1) % n;
        gindex[i] = ne;
    }
    MPI_Comm graph;
    MPI_Graph_create(w, n, gindex, gedges, 0, &graph);

    MPI_Comm dup, rev;
    MPI_Comm_dup(w, &dup);
    MPI_Comm_split(w, 0, n - me, &rev);   /* the world's ranks in reverse order */
    MPI_Info info;
    MPI_Info_create(&info);

#if MPI_VERSION >= 4
    /* persistent neighbour collectives: buffers, counts, displacements and types fixed for their life */
    long pag[2], pagr[2 * MAXN], pvs[2 * MAXN], pvr[2 * MAXN];
    struct wpair pws[MAXN], pwr[MAXN];
    int pagc[MAXN], pd[MAXN], psc[MAXN], prc[MAXN];
    MPI_Aint pwsd[MAXN], pwrd[MAXN];
    MPI_Datatype pwst[MAXN], pwrt[MAXN];
    for (int k = 0; k < MAXN; k++) {
        pagc[k] = nbr[k] == MPI_PROC_NULL ? 0 : cnt(nbr[k], nbr[k]);
        psc[k] = nbr[k] == MPI_PROC_NULL ? 0 : cnt(me, nbr[k]);
        prc[k] = nbr[k] == MPI_PROC_NULL ? 0 : cnt(nbr[k], me);
        pd[k] = 2 * k;
        pwst[k] = k % 2 ? MPI_LONG : MPI_INT;
        pwrt[k] = k % 2 ? MPI_INT : MPI_LONG;
        pwsd[k] = (MPI_Aint)((char *)(k % 2 ? (void *)pws[k].l : (void *)pws[k].i) - (char *)pws);
        pwrd[k] = (MPI_Aint)((char *)(k % 2 ? (void *)pwr[k].i : (void *)pwr[k].l) - (char *)pwr);
    }
    MPI_Request pq[3];
    MPI_Neighbor_allgatherv_init(pag, cnt(me, me), MPI_LONG, pagr, pagc, pd, MPI_LONG, cart, MPI_INFO_NULL, &pq[0]);
    MPI_Neighbor_alltoallv_init(pvs, psc, pd, MPI_LONG, pvr, prc, pd, MPI_LONG, cart, MPI_INFO_NULL, &pq[1]);
    MPI_Neighbor_alltoallw_init(pws, psc, pwsd, pwst, pwr, prc, pwrd, pwrt, cart, MPI_INFO_NULL, &pq[2]);
#endif

    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        /* cartesian queries */
        int nd = -1, gd[2], gp[2], gc[2], c2[2], rk = -1;
        MPI_Cartdim_get(cart, &nd);
        MPI_Cart_get(cart, 2, gd, gp, gc);
        if (nd != 2 || gd[0] != dims[0] || gd[1] != dims[1] || gp[0] || gp[1]) mt_fail("Cart_get/Cartdim_get: %d %dx%d", nd, gd[0], gd[1]);
        if (gc[0] != me / dims[1] || gc[1] != me % dims[1]) mt_fail("Cart_get: coords %d %d", gc[0], gc[1]);
        MPI_Cart_rank(cart, gc, &rk);
        if (rk != me) mt_fail("Cart_rank: %d", rk);
        int other = (int)((me + it) % n);
        MPI_Cart_coords(cart, other, 2, c2);
        if (c2[0] != other / dims[1] || c2[1] != other % dims[1]) mt_fail("Cart_coords(%d): %d %d", other, c2[0], c2[1]);
        int mapped = -2;
        MPI_Cart_map(w, 2, dims, periods, &mapped);
        if (mapped < 0 || mapped >= n) mt_fail("Cart_map: %d", mapped);
        int remain[2] = { 0, 1 };             /* a row: the ranks that share my first coordinate */
        MPI_Comm row;
        MPI_Cart_sub(cart, remain, &row);
        int rsz = -1, rrk = -1;
        MPI_Comm_size(row, &rsz);
        MPI_Comm_rank(row, &rrk);
        if (rsz != dims[1] || rrk != gc[1]) mt_fail("Cart_sub: size %d rank %d", rsz, rrk);
        long rsum = 0, mine = me + it;
        MPI_Allreduce(&mine, &rsum, 1, MPI_LONG, MPI_SUM, row);
        long rwant = 0;
        for (int j = 0; j < dims[1]; j++) rwant += gc[0] * dims[1] + j + it;
        if (rsum != rwant) mt_fail("Cart_sub: the row's sum %ld, want %ld", rsum, rwant);
        h = mt_hash(h, &rsum, sizeof rsum);

        /* graph queries */
        int xi[MAXN * 2 + 8], xe[MAXN * 4 + 8], gm = -2;
        MPI_Graph_get(graph, n, 2 * n, xi, xe);
        for (int i = 0; i < n; i++)
            if (xi[i] != gindex[i]) mt_fail("Graph_get: index[%d] = %d", i, xi[i]);
        for (int i = 0; i < 2 * n; i++)
            if (xe[i] != gedges[i]) mt_fail("Graph_get: edges[%d] = %d", i, xe[i]);
        MPI_Graph_map(w, n, gindex, gedges, &gm);
        if (gm < 0 || gm >= n) mt_fail("Graph_map: %d", gm);

        /* blocking neighbour collectives on the grid */
        long ag[2] = { msg(me, me, it, 0), msg(me, me, it, 1) }, agr[2 * MAXN];
        int rc[MAXN], rd[MAXN], sc[MAXN], sd[MAXN];
        for (int k = 0; k < MAXN; k++) {
            rc[k] = nbr[k] == MPI_PROC_NULL ? 0 : cnt(nbr[k], nbr[k]);
            rd[k] = 2 * k;
            agr[2 * k] = agr[2 * k + 1] = -1;
        }
        MPI_Neighbor_allgatherv(ag, cnt(me, me), MPI_LONG, agr, rc, rd, MPI_LONG, cart);
        for (int k = 0; k < MAXN; k++)
            for (int i = 0; i < 2; i++)
                if (agr[2 * k + i] != (i < rc[k] ? msg(nbr[k], nbr[k], it, i) : -1))
                    mt_fail("Neighbor_allgatherv: neighbour %d [%d] = %ld", k, i, agr[2 * k + i]);
        h = mt_hash(h, agr, sizeof agr);

        long vs[2 * MAXN], vr[2 * MAXN];
        for (int k = 0; k < MAXN; k++) {
            int to = nbr[k];
            sc[k] = to == MPI_PROC_NULL ? 0 : cnt(me, to);
            rc[k] = to == MPI_PROC_NULL ? 0 : cnt(to, me);
            sd[k] = rd[k] = 2 * k;
            for (int i = 0; i < 2; i++) { vs[2 * k + i] = msg(me, to, it, i + 10 * k); vr[2 * k + i] = -1; }
        }
        /* the block a neighbour sent me is the one for its opposite direction: my lo sent its hi block */
#define FROM_K(k) ((k) ^ 1)
        MPI_Neighbor_alltoallv(vs, sc, sd, MPI_LONG, vr, rc, rd, MPI_LONG, cart);
        for (int k = 0; k < MAXN; k++)
            for (int i = 0; i < 2; i++)
                if (vr[2 * k + i] != (i < rc[k] ? msg(nbr[k], me, it, i + 10 * FROM_K(k)) : -1))
                    mt_fail("Neighbor_alltoallv: neighbour %d [%d] = %ld", k, i, vr[2 * k + i]);
        h = mt_hash(h, vr, sizeof vr);

        /* alltoallw: ints to the lo neighbours, longs to the hi ones, byte displacements */
        struct wpair ws[MAXN], wr[MAXN];
        MPI_Aint wsd[MAXN], wrd[MAXN];
        MPI_Datatype wst[MAXN], wrt[MAXN];
        memset(wr, 0xff, sizeof wr);
        for (int k = 0; k < MAXN; k++) {
            int to = nbr[k];
            wst[k] = k % 2 ? MPI_LONG : MPI_INT;
            wrt[k] = k % 2 ? MPI_INT : MPI_LONG;            /* my hi neighbour sends me ints (I am its lo) */
            wsd[k] = (MPI_Aint)((char *)(k % 2 ? (void *)ws[k].l : (void *)ws[k].i) - (char *)ws);
            wrd[k] = (MPI_Aint)((char *)(k % 2 ? (void *)wr[k].i : (void *)wr[k].l) - (char *)wr);
            for (int i = 0; i < 2; i++) {
                ws[k].i[i] = (int)msg(me, to, it, 20 + i);
                ws[k].l[i] = msg(me, to, it, 30 + i);
            }
        }
        MPI_Neighbor_alltoallw(ws, sc, wsd, wst, wr, rc, wrd, wrt, cart);
        for (int k = 0; k < MAXN; k++)
            for (int i = 0; i < rc[k]; i++) {
                long got = k % 2 ? wr[k].i[i] : wr[k].l[i];
                long want = k % 2 ? (int)msg(nbr[k], me, it, 20 + i) : msg(nbr[k], me, it, 30 + i);
                if (got != want) mt_fail("Neighbor_alltoallw: neighbour %d [%d] = %ld, want %ld", k, i, got, want);
                h = mt_hash(h, &got, sizeof got);
            }

        /* the nonblocking forms, all four in flight */
        MPI_Request q[4];
        long iag[2 * MAXN], ia[MAXN], iar[MAXN], ivr[2 * MAXN];
        struct wpair iwr[MAXN];
        for (int k = 0; k < MAXN; k++) {
            rd[k] = 2 * k;
            iag[2 * k] = iag[2 * k + 1] = -1;
            ivr[2 * k] = ivr[2 * k + 1] = -1;
            ia[k] = msg(me, nbr[k], it, 40 + k);
            iar[k] = -1;
        }
        memset(iwr, 0xff, sizeof iwr);
        int agc[MAXN];
        for (int k = 0; k < MAXN; k++) agc[k] = nbr[k] == MPI_PROC_NULL ? 0 : cnt(nbr[k], nbr[k]);
        MPI_Ineighbor_allgatherv(ag, cnt(me, me), MPI_LONG, iag, agc, rd, MPI_LONG, cart, &q[0]);
        MPI_Ineighbor_alltoall(ia, 1, MPI_LONG, iar, 1, MPI_LONG, cart, &q[1]);
        MPI_Ineighbor_alltoallv(vs, sc, sd, MPI_LONG, ivr, rc, rd, MPI_LONG, cart, &q[2]);
        MPI_Ineighbor_alltoallw(ws, sc, wsd, wst, iwr, rc, wrd, wrt, cart, &q[3]);
        usleep(300);                          /* local work: a checkpoint finds them in flight */
        MPI_Status qs[4];
        MPI_Waitall(4, q, qs);
        for (int k = 0; k < MAXN; k++) {
            for (int i = 0; i < 2; i++) {
                if (iag[2 * k + i] != (i < agc[k] ? msg(nbr[k], nbr[k], it, i) : -1))
                    mt_fail("Ineighbor_allgatherv: neighbour %d [%d] = %ld", k, i, iag[2 * k + i]);
                if (ivr[2 * k + i] != (i < rc[k] ? msg(nbr[k], me, it, i + 10 * FROM_K(k)) : -1))
                    mt_fail("Ineighbor_alltoallv: neighbour %d [%d] = %ld", k, i, ivr[2 * k + i]);
            }
            if (iar[k] != (nbr[k] == MPI_PROC_NULL ? -1 : msg(nbr[k], me, it, 40 + FROM_K(k))))
                mt_fail("Ineighbor_alltoall: neighbour %d = %ld", k, iar[k]);
            for (int i = 0; i < rc[k]; i++) {
                long got = k % 2 ? iwr[k].i[i] : iwr[k].l[i];
                long want = k % 2 ? (int)msg(nbr[k], me, it, 20 + i) : msg(nbr[k], me, it, 30 + i);
                if (got != want) mt_fail("Ineighbor_alltoallw: neighbour %d [%d] = %ld, want %ld", k, i, got, want);
            }
        }
        h = mt_hash(h, iag, sizeof iag);
        h = mt_hash(h, iar, sizeof iar);
        h = mt_hash(h, ivr, sizeof ivr);

        /* comparisons and group ranks */
        int c_id = -1, c_cong = -1, c_sim = -1, c_row = -1;
        MPI_Comm_compare(w, w, &c_id);
        MPI_Comm_compare(w, dup, &c_cong);
        MPI_Comm_compare(w, rev, &c_sim);
        MPI_Comm_compare(cart, row, &c_row);
        if (c_id != MPI_IDENT || c_cong != MPI_CONGRUENT || c_sim != (n > 1 ? MPI_SIMILAR : MPI_CONGRUENT) ||
            c_row != (dims[1] == n ? MPI_CONGRUENT : MPI_UNEQUAL))
            mt_fail("Comm_compare: %d %d %d %d", c_id, c_cong, c_sim, c_row);
        MPI_Group grev, grow;
        MPI_Comm_group(rev, &grev);
        MPI_Comm_group(row, &grow);
        int gr1 = -1, gr2 = -1;
        MPI_Group_rank(grev, &gr1);
        MPI_Group_rank(grow, &gr2);
        if (gr1 != n - 1 - me || gr2 != gc[1]) mt_fail("Group_rank: %d %d", gr1, gr2);
        MPI_Group_free(&grev);
        MPI_Group_free(&grow);
        MPI_Comm_free(&row);

        /* hints set on a communicator, read back */
        char v[32];
        snprintf(v, sizeof v, "%ld", it);
        MPI_Info_set(info, "mana_calls_iteration", v);
        MPI_Comm_set_info(dup, info); /* mana-lint: ignore MPI_Comm_set_info (the hints are only read back) */
        int kept[3] = { hints_consistent(dup, it), 0, 0 };
        MPI_Comm dwi;
        MPI_Comm_dup_with_info(w, info, &dwi); /* mana-lint: ignore MPI_Comm_dup_with_info (the hints are only read back) */
        kept[1] = hints_consistent(dwi, it);
        MPI_Comm_free(&dwi);

#if MPI_VERSION >= 4
        /* a nonblocking duplicate with hints, pending over local work */
        MPI_Comm idc;
        MPI_Request iq;
        MPI_Comm_idup_with_info(w, info, &idc, &iq); /* mana-lint: ignore MPI_Comm_idup_with_info (the hints are only read back) */
        usleep(200);                          /* local work */
        MPI_Wait(&iq, MPI_STATUS_IGNORE);
        int c_idup = -1;
        MPI_Comm_compare(w, idc, &c_idup);
        if (c_idup != MPI_CONGRUENT) mt_fail("Comm_idup_with_info: compares %d", c_idup);
        long isum = 0, one = me + 1;
        MPI_Allreduce(&one, &isum, 1, MPI_LONG, MPI_SUM, idc);
        if (isum != (long)n * (n + 1) / 2) mt_fail("Comm_idup_with_info: sum %ld", isum);
        kept[2] = hints_consistent(idc, it);
        MPI_Comm_free(&idc);
        h = mt_hash(h, &isum, sizeof isum);

        /* the persistent ones, started together, pending over local work */
        for (int i = 0; i < 2; i++) pag[i] = msg(me, me, it, 50 + i);
        memset(pwr, 0xff, sizeof pwr);
        for (int k = 0; k < MAXN; k++)
            for (int i = 0; i < 2; i++) {
                pagr[2 * k + i] = pvr[2 * k + i] = -1;
                pvs[2 * k + i] = msg(me, nbr[k], it, 60 + i + 10 * k);
                pws[k].i[i] = (int)msg(me, nbr[k], it, 70 + i);
                pws[k].l[i] = msg(me, nbr[k], it, 80 + i);
            }
        MPI_Startall(3, pq);
        usleep(200);                          /* local work */
        MPI_Status pst[3];
        MPI_Waitall(3, pq, pst);
        if (pq[0] == MPI_REQUEST_NULL || pq[1] == MPI_REQUEST_NULL || pq[2] == MPI_REQUEST_NULL)
            mt_fail("persistent neighbour collectives: MPI_Waitall freed a request");
        for (int k = 0; k < MAXN; k++) {
            for (int i = 0; i < 2; i++) {
                if (pagr[2 * k + i] != (i < pagc[k] ? msg(nbr[k], nbr[k], it, 50 + i) : -1))
                    mt_fail("Neighbor_allgatherv_init: neighbour %d [%d] = %ld", k, i, pagr[2 * k + i]);
                if (pvr[2 * k + i] != (i < prc[k] ? msg(nbr[k], me, it, 60 + i + 10 * FROM_K(k)) : -1))
                    mt_fail("Neighbor_alltoallv_init: neighbour %d [%d] = %ld", k, i, pvr[2 * k + i]);
            }
            for (int i = 0; i < prc[k]; i++) {
                long got = k % 2 ? pwr[k].i[i] : pwr[k].l[i];
                long want = k % 2 ? (int)msg(nbr[k], me, it, 70 + i) : msg(nbr[k], me, it, 80 + i);
                if (got != want) mt_fail("Neighbor_alltoallw_init: neighbour %d [%d] = %ld, want %ld", k, i, got, want);
                h = mt_hash(h, &got, sizeof got);
            }
        }
        h = mt_hash(h, pagr, sizeof pagr);
        h = mt_hash(h, pvr, sizeof pvr);
#endif
        h = mt_hash(h, kept, sizeof kept);
    } while (!mt_done(&r, it));
#if MPI_VERSION >= 4
    for (int k = 0; k < 3; k++) MPI_Request_free(&pq[k]);
#endif
    MPI_Info_free(&info);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&rev);
    free(gindex);
    free(gedges);
    mt_finish(&r, "calls_comm", it, h);
    return 0;
}
