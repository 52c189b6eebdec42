/* ring - every rank passes a block of 256 ints to its right neighbour and receives from its left with
 * MPI_Irecv/MPI_Isend/MPI_Waitall, then mixes it into its own state: requests are pending whenever a
 * checkpoint lands between posting and completion. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;
    int32_t mine[256], got[256];
    for (int i = 0; i < 256; i++) mine[i] = r.rank * 1000 + i;
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        MPI_Request q[2];
        MPI_Irecv(got, 256, MPI_INT32_T, left, 7, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(mine, 256, MPI_INT32_T, right, 7, MPI_COMM_WORLD, &q[1]);
        MPI_Status st[2];
        MPI_Waitall(2, q, st);
        if (st[0].MPI_SOURCE != left || st[0].MPI_TAG != 7) mt_fail("status %d/%d", st[0].MPI_SOURCE, st[0].MPI_TAG);
        for (int i = 0; i < 256; i++) mine[i] = (int32_t)((uint32_t)mine[i] * 31u + (uint32_t)got[i]);
        h = mt_hash(h, mine, sizeof mine);
    } while (!mt_done(&r, it));
    mt_finish(&r, "ring", it, h);
    return 0;
}
