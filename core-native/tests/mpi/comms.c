/* comms - 300 live communicators at once: dups of MPI_COMM_WORLD, of MPI_COMM_SELF (a different id on
 * every rank), of an even/odd split and of each other.  Every iteration runs collectives on a few of
 * them, chosen the same on every rank, so their collective counts differ at any checkpoint.
 *
 * The collective drain gives each communicator a slot of a table by a hash of its id; with this many,
 * ids always share slots (about 22 pairs in a table of 2,048), and the drain must resolve them instead
 * of refusing the checkpoint.  The restart replays 300 communicator recipes. */
#include "mpitest.h"

#define NCOMMS 300

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    static MPI_Comm c[NCOMMS];
    int n = 0;
    MPI_Comm_split(MPI_COMM_WORLD, r.rank % 2, r.rank, &c[n++]);
    while (n < NCOMMS) {
        switch (n % 4) {
        case 0: MPI_Comm_dup(MPI_COMM_WORLD, &c[n]); break;
        case 1: MPI_Comm_dup(MPI_COMM_SELF, &c[n]); break;
        case 2: MPI_Comm_dup(c[0], &c[n]); break;
        default: MPI_Comm_dup(c[n - 3], &c[n]); break; /* a dup of a world dup */
        }
        n++;
    }
    double x = 1.0 + r.rank;
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        for (int k = 0; k < 3; k++) {
            MPI_Comm cm = c[(it * 7 + k * 101) % NCOMMS];
            double s = x;
            MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, cm);
            int sz;
            MPI_Comm_size(cm, &sz);
            x = x * 0.5 + s / (2.0 * sz) + 1e-3 * k;
        }
        if (it % 5 == 0) MPI_Barrier(c[(it * 13) % NCOMMS]);
        h = mt_hash(h, &x, sizeof x);
    } while (!mt_done(&r, it));
    for (int i = NCOMMS - 1; i >= 0; i--) MPI_Comm_free(&c[i]);
    mt_finish(&r, "comms", it, h);
    return 0;
}
