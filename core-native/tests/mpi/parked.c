/* parked - rank 0 computes for a while each iteration while rank 1 waits in MPI_Recv for it and the
 * others wait in MPI_Barrier: a checkpoint nearly always finds ranks parked inside blocking calls. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    uint64_t h = MT_HASH0, x = (uint64_t)r.rank + 1;
    long it = 0;
    do {
        it++;
        if (r.rank == 0) {
            for (int i = 0; i < 200000; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            if (r.size > 1) MPI_Send(&x, 1, MPI_UINT64_T, 1, 0, MPI_COMM_WORLD);
        } else if (r.rank == 1) {
            uint64_t y;
            MPI_Recv(&y, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            x ^= y;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        h = mt_hash(h, &x, sizeof x);
    } while (!mt_done(&r, it));
    mt_finish(&r, "parked", it, h);
    return 0;
}
