/* split - MPI_Comm_split into even and odd ranks (and a dup of each); the even communicator runs two
 * collectives per iteration and the odd one five, so the sub-communicators' collective counts differ
 * at any checkpoint; a group-derived communicator (Comm_create) and a cartesian halo exchange
 * (Cart_create/Cart_shift/Sendrecv) make the recipes the restart must replay. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    MPI_Comm half, halfdup, cart, firsts;
    MPI_Comm_split(MPI_COMM_WORLD, r.rank % 2, -r.rank, &half);
    MPI_Comm_dup(half, &halfdup);
    int dims[1] = { 0 }, periods[1] = { 1 };
    MPI_Dims_create(r.size, 1, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int inc[2] = { 0, r.size > 1 ? 1 : 0 };
    MPI_Group_incl(wg, r.size > 1 ? 2 : 1, inc, &g);
    MPI_Comm_create(MPI_COMM_WORLD, g, &firsts);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    double x = r.rank + 1.0, halo = 0;
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        int rounds = r.rank % 2 ? 5 : 2;
        for (int k = 0; k < rounds; k++) {
            double s = x;
            MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, k % 2 ? halfdup : half);
            x = x * 0.75 + s / (hs * 4.0) + hr;
        }
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, dst, 3, &halo, 1, MPI_DOUBLE, src, 3, cart, MPI_STATUS_IGNORE);
        x = 0.5 * (x + halo);
        if (firsts != MPI_COMM_NULL) {
            double m = x;
            MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MIN, firsts);
            x += m * 1e-6;
        }
        h = mt_hash(h, &x, sizeof x);
    } while (!mt_done(&r, it));
    if (firsts != MPI_COMM_NULL) MPI_Comm_free(&firsts);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&halfdup);
    MPI_Comm_free(&half);
    mt_finish(&r, "split", it, h);
    return 0;
}
