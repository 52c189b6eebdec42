/* halo - a cartesian halo exchange and the collectives that only this runtime version wraps:
 * a 2-D periodic grid of ranks (MPI_Dims_create, MPI_Cart_create); every iteration exchanges halos
 * with MPI_Cart_shift + MPI_Sendrecv and again with MPI_Neighbor_alltoall, starts MPI_Ineighbor_
 * allgather, MPI_Iallgatherv, MPI_Iscan, MPI_Iexscan, MPI_Ireduce_scatter_block, MPI_Ialltoallv and
 * MPI_Ialltoallw (on MPI_COMM_WORLD), runs MPI_Alltoallw and MPI_Neighbor_allgather while they are in flight, then waits
 * for them all.  A checkpoint finds several nonblocking collectives in flight. */
#include "mpitest.h"

#define L 16

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 };
    MPI_Dims_create(r.size, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int me, n = r.size;
    MPI_Comm_rank(cart, &me);
    double u[L + 2][L + 2];
    for (int i = 0; i < L + 2; i++)
        for (int j = 0; j < L + 2; j++) u[i][j] = me + 0.01 * i + 0.0001 * j;
    int *cnt = malloc(sizeof(int) * (size_t)n), *dsp = malloc(sizeof(int) * (size_t)n);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)n);
    int *wcnt = malloc(sizeof(int) * (size_t)n), *wdsp = malloc(sizeof(int) * (size_t)n);
    double *ga = malloc(sizeof(double) * 2 * (size_t)n), *aa = malloc(sizeof(double) * (size_t)n),
           *ab = malloc(sizeof(double) * (size_t)n), *wa = malloc(sizeof(double) * (size_t)n),
           *wb = malloc(sizeof(double) * (size_t)n), *wc = malloc(sizeof(double) * (size_t)n),
           *rsb = malloc(sizeof(double) * (size_t)n);
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        /* halo exchange along both dimensions */
        for (int d = 0; d < 2; d++) {
            int lo, hi;
            MPI_Cart_shift(cart, d, 1, &lo, &hi);
            double sh[L], rh[L];
            for (int k = 0; k < L; k++) sh[k] = d == 0 ? u[L][k + 1] : u[k + 1][L];
            MPI_Sendrecv(sh, L, MPI_DOUBLE, hi, d, rh, L, MPI_DOUBLE, lo, d, cart, MPI_STATUS_IGNORE);
            for (int k = 0; k < L; k++) { if (d == 0) u[0][k + 1] = rh[k]; else u[k + 1][0] = rh[k]; }
        }
        /* the same neighbours through a neighbourhood collective: 4 = 2 * ndims blocks */
        double nsend[4], nrecv[4];
        for (int k = 0; k < 4; k++) nsend[k] = u[1 + k][1 + k] + it;
        MPI_Neighbor_alltoall(nsend, 1, MPI_DOUBLE, nrecv, 1, MPI_DOUBLE, cart);
        /* nonblocking collectives kept in flight */
        MPI_Request q[7];
        double mine = u[2][2], scan = 0, exscan = 0, ng[4], rs = 0;
        MPI_Ineighbor_allgather(&mine, 1, MPI_DOUBLE, ng, 1, MPI_DOUBLE, cart, &q[0]);
        for (int i = 0; i < n; i++) { cnt[i] = 1 + i % 2; dsp[i] = 2 * i; }
        double two[2] = { mine, -mine };
        MPI_Iallgatherv(two, cnt[me], MPI_DOUBLE, ga, cnt, dsp, MPI_DOUBLE, cart, &q[1]);
        MPI_Iscan(&mine, &scan, 1, MPI_DOUBLE, MPI_SUM, cart, &q[2]);
        MPI_Iexscan(&mine, &exscan, 1, MPI_DOUBLE, MPI_MAX, cart, &q[3]);
        for (int i = 0; i < n; i++) { aa[i] = mine * (i + 1); rsb[i] = mine + i; }
        MPI_Ireduce_scatter_block(rsb, &rs, 1, MPI_DOUBLE, MPI_SUM, cart, &q[4]);
        for (int i = 0; i < n; i++) { wcnt[i] = 1; wdsp[i] = i; }
        MPI_Ialltoallv(aa, wcnt, wdsp, MPI_DOUBLE, ab, wcnt, wdsp, MPI_DOUBLE, cart, &q[5]);
        for (int i = 0; i < n; i++) { types[i] = MPI_DOUBLE; wdsp[i] = i * (int)sizeof(double); wa[i] = mine - i; }
        /* On MPI_COMM_WORLD: Open MPI 4.1's MPI_Ialltoallw reads 2 * ndims datatypes on a cartesian
         * communicator (its neighbour count) instead of the group size, and crashes natively with 2 ranks. */
        MPI_Ialltoallw(wa, wcnt, wdsp, types, wb, wcnt, wdsp, types, MPI_COMM_WORLD, &q[6]);
        double wd[64], nall[4];
        MPI_Alltoallw(wa, wcnt, wdsp, types, wc, wcnt, wdsp, types, MPI_COMM_WORLD);
        MPI_Neighbor_allgather(&mine, 1, MPI_DOUBLE, nall, 1, MPI_DOUBLE, cart);
        (void)wd;
        MPI_Waitall(7, q, MPI_STATUSES_IGNORE);
        /* mix everything into the grid */
        for (int i = 1; i <= L; i++)
            for (int j = 1; j <= L; j++)
                u[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]) + 1e-6 * (scan - exscan + rs);
        for (int k = 0; k < 4; k++) u[1][1 + k] += 1e-3 * (nrecv[k] - ng[k] + nall[k]);
        double acc = 0;
        for (int i = 0; i < n; i++) acc += ab[i] + wb[i] + wc[i] + ga[2 * i] * cnt[i];
        u[L][L] += 1e-9 * acc;
        h = mt_hash(h, u, sizeof u);
    } while (!mt_done(&r, it));
    MPI_Comm_free(&cart);
    mt_finish(&r, "halo", it, h);
    return 0;
}
