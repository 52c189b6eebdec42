/* rma_fence - a 1-D halo exchange by one-sided communication in fence epochs: every rank's strip lives
 * in memory the program gives to MPI_Win_create; each iteration puts its edge cells into the neighbours'
 * halo cells (MPI_Put), adds a whole number made from its strip's sum into a cell on rank 0 (MPI_Accumulate), reads the right
 * neighbour's first cell back (MPI_Get), and closes the epoch with MPI_Win_fence.  A checkpoint finds the
 * window between two fences, with operations outstanding, any time; the restart opens the epoch again
 * on the same memory. */
#include "mpitest.h"

#define N 64

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int left = (r.rank + r.size - 1) % r.size, right = (r.rank + 1) % r.size;
    /* u[0] and u[N+1]: halos; u[N+2]: rank 0's sum cell */
    double *u = calloc(N + 3, sizeof *u), *nu = calloc(N + 2, sizeof *nu);
    for (int i = 1; i <= N; i++) u[i] = r.rank * 100.0 + i;
    MPI_Win win;
    if (MPI_Win_create(u, (MPI_Aint)((N + 3) * sizeof *u), sizeof *u, MPI_INFO_NULL, MPI_COMM_WORLD, &win) != MPI_SUCCESS)
        mt_fail("MPI_Win_create");
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        /* an integer, so the sum on rank 0 does not depend on the order the ranks' accumulates land in
         * (doubles of the strip's sum gave another last bit from run to run with 4 ranks, natively too) */
        double got = -1, mysum = 0;
        for (int i = 1; i <= N; i++) mysum += u[i];
        mysum = (double)(long)(mysum * 1e3) + (double)(it * (r.rank + 1));
        MPI_Put(&u[1], 1, MPI_DOUBLE, left, N + 1, 1, MPI_DOUBLE, win);
        MPI_Put(&u[N], 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, win);
        MPI_Accumulate(&mysum, 1, MPI_DOUBLE, 0, N + 2, 1, MPI_DOUBLE, MPI_SUM, win);
        MPI_Get(&got, 1, MPI_DOUBLE, right, 1, 1, MPI_DOUBLE, win);
        MPI_Win_fence(0, win);
        /* the halo from the right is the right neighbour's first cell, which the Get read as well */
        if (got != u[N + 1]) mt_fail("iteration %ld: MPI_Get read %.17g, the halo holds %.17g", it, got, u[N + 1]);
        for (int i = 1; i <= N; i++) nu[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1] + 1e-3 * it;
        MPI_Win_fence(0, win);      /* everyone read the halos before anyone puts new ones */
        for (int i = 1; i <= N; i++) u[i] = nu[i];
        h = mt_hash(h, &u[1], N * sizeof *u);
        h = mt_hash(h, &got, sizeof got);
    } while (!mt_done(&r, it));
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (r.rank == 0) h = mt_hash(h, &u[N + 2], sizeof u[N + 2]);
    MPI_Win_free(&win);
    free(nu);
    free(u);
    mt_finish(&r, "rma_fence", it, h);
    return 0;
}
