/* mpiio - MPI-IO across checkpoints: every kind of file access, each possibly in flight at a checkpoint.
 *
 * Three files, named with rank 0's pid (runs in one folder never share them), created and emptied at
 * the start:
 *   data   all ranks, through a view of a derived filetype (rank r owns blocks r, r+size, ... of B
 *          ints; the program frees the filetype right after setting the view).  Each iteration:
 *            - MPI_File_write_all of NB blocks at the individual pointer, which must then be at
 *              it*NB*B (MPI_File_get_position);
 *            - the previous iteration's blocks read back with the split collective
 *              MPI_File_read_at_all_begin/_end, local work between the two, and checked;
 *            - the same blocks read again with MPI_File_iread_at_all (a nonblocking collective),
 *              pending over local work, then MPI_Wait, and checked;
 *   log    all ranks, MPI_File_write_ordered of one record per rank (the shared file pointer), whose
 *          position (MPI_File_get_position_shared) must then be it*size records;
 *   own    one per rank on MPI_COMM_SELF, atomic mode, MPI_File_iwrite_at of a record at an explicit
 *          offset, pending over local work, then MPI_Wait; MPI_File_iread_at of the record before it.
 * At the end every rank hashes the whole of each file it can see (read with MPI_File_read_at), rank 0
 * prints the checksum, and the files are deleted.  A checkpoint that lost a pointer, a view, a pending
 * operation or a byte of a file changes the checksum or fails a check. */
#include "mpitest.h"

#define B 16                  /* ints per block */
#define NB 4                  /* blocks per rank per iteration */

static void check(int rc, const char *what, long it)
{
    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int n = 0;
        MPI_Error_string(rc, s, &n);
        mt_fail("%s failed at iteration %ld: %s", what, it, s);
    }
}

static int value(int rank, long it, int k) { return (int)((it * 1000003L + rank * 7919L + k) & 0x7fffffff); }

static void local_work(volatile double *x)
{
    for (int i = 0; i < 20000; i++) *x = *x * 1.0000001 + 1e-9;
}

static uint64_t hash_file(MPI_File f, uint64_t h)
{
    MPI_Offset size = 0;
    check(MPI_File_get_size(f, &size), "MPI_File_get_size", -1);
    char *buf = malloc((size_t)size + 1);
    MPI_Status st;
    /* byte view for the whole file */
    check(MPI_File_set_view(f, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "MPI_File_set_view (bytes)", -1);
    check(MPI_File_read_at_all(f, 0, buf, (int)size, MPI_BYTE, &st), "MPI_File_read_at_all (whole file)", -1);
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    if (n != (int)size) mt_fail("read %d of %lld bytes", n, (long long)size);
    h = mt_hash(h, &size, sizeof size);
    h = mt_hash(h, buf, (size_t)size);
    free(buf);
    return h;
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int tag = (int)getpid();
    MPI_Bcast(&tag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char data_name[64], log_name[64], own_name[64];
    snprintf(data_name, sizeof data_name, "mpiio_%d_data.dat", tag);
    snprintf(log_name, sizeof log_name, "mpiio_%d_log.dat", tag);
    snprintf(own_name, sizeof own_name, "mpiio_%d_own%d.dat", tag, r.rank);

    /* data: on a duplicate of MPI_COMM_WORLD the program frees at once (the file keeps it) */
    MPI_Comm dc;
    MPI_Comm_dup(MPI_COMM_WORLD, &dc);
    MPI_File data, log, own;
    check(MPI_File_open(dc, data_name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &data), "MPI_File_open data", 0);
    MPI_Comm_free(&dc);
    check(MPI_File_set_size(data, 0), "MPI_File_set_size", 0);
    MPI_Datatype vec, blocks;      /* NB blocks of B ints, one every size blocks, tiling without gaps */
    MPI_Type_vector(NB, B, B * r.size, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)NB * B * r.size * (MPI_Aint)sizeof(int), &blocks);
    MPI_Type_free(&vec);
    MPI_Type_commit(&blocks);
    check(MPI_File_set_view(data, (MPI_Offset)r.rank * B * (MPI_Offset)sizeof(int), MPI_INT, blocks, "native", MPI_INFO_NULL),
          "MPI_File_set_view", 0);
    MPI_Type_free(&blocks);

    check(MPI_File_open(MPI_COMM_WORLD, log_name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &log), "MPI_File_open log", 0);
    check(MPI_File_set_size(log, 0), "MPI_File_set_size log", 0);
    check(MPI_File_open(MPI_COMM_SELF, own_name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &own), "MPI_File_open own", 0);
    check(MPI_File_set_size(own, 0), "MPI_File_set_size own", 0);
    check(MPI_File_set_atomicity(own, 1), "MPI_File_set_atomicity", 0);

    int out[NB * B], back[NB * B], back2[NB * B];
    volatile double x = 1.0;
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        for (int k = 0; k < NB * B; k++) out[k] = value(r.rank, it, k);
        MPI_Status st;
        check(MPI_File_write_all(data, out, NB * B, MPI_INT, &st), "MPI_File_write_all", it);
        int n = 0;
        MPI_Get_count(&st, MPI_INT, &n);
        if (n != NB * B) mt_fail("MPI_File_write_all wrote %d ints at iteration %ld", n, it);
        MPI_Offset pos = -1;
        check(MPI_File_get_position(data, &pos), "MPI_File_get_position", it);
        if (pos != it * NB * B) mt_fail("individual pointer %lld at iteration %ld, want %ld", (long long)pos, it, it * NB * B);

        if (it > 1) {
            MPI_Offset prev = (it - 2) * NB * B;
            check(MPI_File_read_at_all_begin(data, prev, back, NB * B, MPI_INT), "MPI_File_read_at_all_begin", it);
            local_work(&x);
            check(MPI_File_read_at_all_end(data, back, &st), "MPI_File_read_at_all_end", it);
            MPI_Request rq;
            check(MPI_File_iread_at_all(data, prev, back2, NB * B, MPI_INT, &rq), "MPI_File_iread_at_all", it);
            local_work(&x);
            check(MPI_Wait(&rq, &st), "MPI_Wait (iread_at_all)", it);
            MPI_Get_count(&st, MPI_INT, &n);
            if (n != NB * B) mt_fail("MPI_File_iread_at_all read %d ints at iteration %ld", n, it);
            for (int k = 0; k < NB * B; k++)
                if (back[k] != value(r.rank, it - 1, k) || back2[k] != back[k])
                    mt_fail("data block %d of iteration %ld reads %d/%d, want %d", k, it - 1, back[k], back2[k],
                            value(r.rank, it - 1, k));
            h = mt_hash(h, back, sizeof back);
        }

        char rec[32];
        snprintf(rec, sizeof rec, "%08ld rank %04d       \n", it, r.rank);
        check(MPI_File_write_ordered(log, rec, 24, MPI_CHAR, &st), "MPI_File_write_ordered", it);
        MPI_Offset sp = -1;
        check(MPI_File_get_position_shared(log, &sp), "MPI_File_get_position_shared", it);
        if (sp != it * r.size * 24) mt_fail("shared pointer %lld at iteration %ld, want %ld", (long long)sp, it, it * r.size * 24);

        int mine[4] = { r.rank, (int)it, value(r.rank, it, 0), -1 }, before[4] = { 0, 0, 0, 0 };
        MPI_Request wq, rq;
        check(MPI_File_iwrite_at(own, (it - 1) * (MPI_Offset)sizeof mine, mine, 4, MPI_INT, &wq), "MPI_File_iwrite_at", it);
        local_work(&x);
        check(MPI_Wait(&wq, &st), "MPI_Wait (iwrite_at)", it);
        if (it > 1) {
            check(MPI_File_iread_at(own, (it - 2) * (MPI_Offset)sizeof mine, before, 4, MPI_INT, &rq), "MPI_File_iread_at", it);
            check(MPI_Wait(&rq, &st), "MPI_Wait (iread_at)", it);
            if (before[0] != r.rank || before[1] != it - 1 || before[2] != value(r.rank, it - 1, 0))
                mt_fail("own record of iteration %ld reads %d %d %d", it - 1, before[0], before[1], before[2]);
        }
    } while (!mt_done(&r, it));

    int atomic = 0;
    MPI_File_get_atomicity(own, &atomic);
    if (!atomic) mt_fail("atomic mode of the own file lost");
    check(MPI_File_close(&log), "MPI_File_close log", it);
    check(MPI_File_open(MPI_COMM_WORLD, log_name, MPI_MODE_RDONLY, MPI_INFO_NULL, &log), "MPI_File_open log (read)", it);
    h = hash_file(data, h);
    h = hash_file(log, h);
    h = hash_file(own, h);
    check(MPI_File_close(&data), "MPI_File_close data", it);
    check(MPI_File_close(&log), "MPI_File_close log", it);
    check(MPI_File_close(&own), "MPI_File_close own", it);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_delete(own_name, MPI_INFO_NULL);
    if (r.rank == 0) {
        MPI_File_delete(data_name, MPI_INFO_NULL);
        MPI_File_delete(log_name, MPI_INFO_NULL);
    }
    mt_finish(&r, "mpiio", it, h);
    return 0;
}
