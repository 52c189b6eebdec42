/*
 * objs16 - a rank with 16 open MPI-IO files and 16 windows (4 each of MPI_Win_create, MPI_Win_allocate,
 * MPI_Win_create_dynamic with memory attached, and MPI_Win_allocate in a fence epoch), written to every
 * iteration: `make bench-mpi` times the checkpoint of such a program (the mpitest.h protocol: it runs
 * until told to stop). Each file gets the iteration's ints at the rank's own offset; each window a put
 * to the right neighbour.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpitest.h"

#define NF 16
#define NW 16
#define WLEN 4096

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    MPI_File f[NF];
    MPI_Win w[NW];
    int *mem[NW];
    char name[64];
    int right = (r.rank + 1) % r.size;
    for (int i = 0; i < NF; i++) {
        snprintf(name, sizeof name, "objs16_%d.dat", i);
        MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                      MPI_INFO_NULL, &f[i]);
    }
    for (int i = 0; i < NW; i++) {
        switch (i % 4) {
        case 0:
            mem[i] = calloc(WLEN, sizeof(int));
            MPI_Win_create(mem[i], WLEN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w[i]);
            break;
        case 1: case 3:
            MPI_Win_allocate(WLEN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem[i], &w[i]);
            break;
        case 2:
            mem[i] = calloc(WLEN, sizeof(int));
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w[i]);
            MPI_Win_attach(w[i], mem[i], WLEN * sizeof(int));
            break;
        }
    }
    MPI_Aint dyn_base[NW];
    for (int i = 2; i < NW; i += 4) {
        MPI_Aint mine;
        MPI_Get_address(mem[i], &mine);
        MPI_Sendrecv(&mine, 1, MPI_AINT, (r.rank + r.size - 1) % r.size, 0, &dyn_base[i], 1, MPI_AINT, right, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    uint64_t h = 1469598103934665603ULL;
    for (long it = 1;; it++) {
        int v[4] = {(int)it, r.rank, (int)(it * 7), -r.rank};
        for (int i = 0; i < NF; i++)
            MPI_File_write_at(f[i], (MPI_Offset)(r.rank * 4 + (it % 64) * r.size * 4) * (MPI_Offset)sizeof(int), v, 4,
                              MPI_INT, MPI_STATUS_IGNORE);
        for (int i = 0; i < NW; i++) {
            MPI_Win_fence(0, w[i]);
            MPI_Aint at = (MPI_Aint)(it % 64) * 4;
            if (i % 4 == 2) at = MPI_Aint_add(dyn_base[i], at * (MPI_Aint)sizeof(int));
            MPI_Put(v, 4, MPI_INT, right, at, 4, MPI_INT, w[i]);
            MPI_Win_fence(0, w[i]);
            h = mt_hash(h, &mem[i][(it % 64) * 4], 4 * sizeof(int));
        }
        if (mt_done(&r, it)) {
            if (r.rank == 0) mt_out("objs16 done: iters=%ld ranks=%d checksum=%016llx\n", it, r.size,
                                    (unsigned long long)h);
            break;
        }
    }
    for (int i = 0; i < NW; i++) {
        if (i % 4 == 2) MPI_Win_detach(w[i], mem[i]);
        MPI_Win_free(&w[i]);
        if (i % 4 == 0 || i % 4 == 2) free(mem[i]);
    }
    for (int i = 0; i < NF; i++) MPI_File_close(&f[i]);
    MPI_Finalize();
    return 0;
}
