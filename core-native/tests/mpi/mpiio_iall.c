/* mpiio_iall - several nonblocking collective MPI-IO calls pending at once, completed by one MPI_Waitall,
 * across checkpoints.  Every iteration, on one file opened once with ROMIO's collective-buffering
 * hints (one aggregator, collective writes on): NOBJ MPI_File_iwrite_at_all of OBJ bytes each, rank-
 * interleaved blocks, then one MPI_Waitall; then NOBJ MPI_File_iread_at_all of the same blocks, one
 * MPI_Waitall, and every byte checked.
 * MPICH's ROMIO drives these requests through their poll functions and needs them completed in order:
 * a loop of MPI_Testall (or a round of MPI_Test over all of them) never ends, natively too, while
 * MPI_Waitall completes them one after the other.  The runtime's MPI_Waitall used to test every pending
 * request in turn and hung here at the first iteration (MPICH's io/i_aggregation1, i_hindexed). */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

#define NOBJ 4
#define OBJ (256 * 1024)

static unsigned char byte_at(long it, int rank, int k, long i)
{
    return (unsigned char)(it * 131 + rank * 31 + k * 7 + i);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_File fh;
    char path[64];
    snprintf(path, sizeof path, "mpiio_iall.%d.dat", r.size);
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, info, &fh) != MPI_SUCCESS)
        mt_fail("MPI_File_open %s", path);
    MPI_Info_free(&info);
    unsigned char *out[NOBJ], *in[NOBJ];
    for (int k = 0; k < NOBJ; k++) {
        out[k] = malloc(OBJ);
        in[k] = malloc(OBJ);
        if (!out[k] || !in[k]) mt_fail("out of memory");
    }
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        MPI_Request req[NOBJ];
        MPI_Status st[NOBJ];
        for (int k = 0; k < NOBJ; k++) {
            for (long i = 0; i < OBJ; i++) out[k][i] = byte_at(it, r.rank, k, i);
            MPI_Offset at = ((MPI_Offset)k * r.size + r.rank) * OBJ;
            if (MPI_File_iwrite_at_all(fh, at, out[k], OBJ, MPI_BYTE, &req[k]) != MPI_SUCCESS)
                mt_fail("iteration %ld: MPI_File_iwrite_at_all %d", it, k);
        }
        MPI_Waitall(NOBJ, req, st);
        for (int k = 0; k < NOBJ; k++) {
            memset(in[k], 0, OBJ);
            MPI_Offset at = ((MPI_Offset)k * r.size + r.rank) * OBJ;
            if (MPI_File_iread_at_all(fh, at, in[k], OBJ, MPI_BYTE, &req[k]) != MPI_SUCCESS)
                mt_fail("iteration %ld: MPI_File_iread_at_all %d", it, k);
        }
        MPI_Waitall(NOBJ, req, st);
        for (int k = 0; k < NOBJ; k++) {
            if (memcmp(in[k], out[k], OBJ) != 0) mt_fail("iteration %ld: block %d read back differs", it, k);
            h = mt_hash(h, in[k], 64);
        }
    } while (!mt_done(&r, it));
    MPI_File_close(&fh);
    for (int k = 0; k < NOBJ; k++) { free(out[k]); free(in[k]); }
    mt_finish(&r, "mpiio_iall", it, h);
    return 0;
}
