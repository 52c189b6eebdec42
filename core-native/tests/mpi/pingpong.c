/* pingpong - ranks in pairs (0,1), (2,3), ... bounce a 64-double message; an odd last rank only
 * takes part in the collectives.  Blocking MPI_Send/MPI_Recv, so a checkpoint finds ranks parked
 * in MPI_Recv. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    double msg[64];
    for (int i = 0; i < 64; i++) msg[i] = r.rank + i * 0.5;
    int peer = r.rank ^ 1;
    if (peer >= r.size) peer = MPI_PROC_NULL;
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        if (peer != MPI_PROC_NULL) {
            if (r.rank % 2 == 0) {
                MPI_Send(msg, 64, MPI_DOUBLE, peer, (int)(it % 1000), MPI_COMM_WORLD);
                MPI_Status st;
                MPI_Recv(msg, 64, MPI_DOUBLE, peer, (int)(it % 1000), MPI_COMM_WORLD, &st);
                int n;
                MPI_Get_count(&st, MPI_DOUBLE, &n);
                if (n != 64 || st.MPI_SOURCE != peer) mt_fail("recv: count %d source %d", n, st.MPI_SOURCE);
            } else {
                MPI_Recv(msg, 64, MPI_DOUBLE, peer, (int)(it % 1000), MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < 64; i++) msg[i] = msg[i] * 0.999 + 1.0;
                MPI_Send(msg, 64, MPI_DOUBLE, peer, (int)(it % 1000), MPI_COMM_WORLD);
            }
        }
        h = mt_hash(h, msg, sizeof msg);
    } while (!mt_done(&r, it));
    mt_finish(&r, "pingpong", it, h);
    return 0;
}
