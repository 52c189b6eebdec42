/* mpiio_pending DIR GO - MPI-IO operations pending while a checkpoint is taken, for certain.
 *
 * Every rank writes its block of a shared file (DIR/mpiio_pending.dat) with MPI_File_write_at_all, then
 * starts, and leaves pending:
 *   - MPI_File_iread_at_all of its block (a nonblocking collective),
 *   - MPI_File_iwrite_at of a second block (nonblocking, independent),
 *   - MPI_File_write_at_all_begin of a third block (a split collective, ended later),
 * rank 0 prints "pending", and every rank waits outside MPI until the file GO exists (the harness
 * checkpoints, kills and restarts the job meanwhile, then creates GO).  Then the requests are waited for
 * and checked, the split collective ended, the whole file read back and hashed: rank 0 prints
 * "mpiio_pending done: checksum=X", which a native run (GO there from the start) must print too. */
#include "mpitest.h"

#define N 4096                      /* ints per block */

static void ok(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) mt_fail("%s failed (error %d)", what, rc);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) mt_fail("usage: mpiio_pending DIR GO");
    char path[4096];
    snprintf(path, sizeof path, "%s/mpiio_pending.dat", argv[1]);
    static int a[N], b[N], c[N], back[N];
    for (int k = 0; k < N; k++) {
        a[k] = rank * 1000003 + k;
        b[k] = rank * 7919 + 3 * k;
        c[k] = rank * 104729 + 5 * k;
    }
    MPI_Offset blk = (MPI_Offset)N * sizeof(int);
    MPI_File f;
    ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f), "MPI_File_open");
    ok(MPI_File_set_size(f, 0), "MPI_File_set_size");
    MPI_Status st;
    ok(MPI_File_write_at_all(f, rank * blk, a, N, MPI_INT, &st), "MPI_File_write_at_all");
    ok(MPI_File_sync(f), "MPI_File_sync");
    MPI_Barrier(MPI_COMM_WORLD);
    ok(MPI_File_sync(f), "MPI_File_sync");

    MPI_Request rd, wr;
    ok(MPI_File_iread_at_all(f, rank * blk, back, N, MPI_INT, &rd), "MPI_File_iread_at_all");
    ok(MPI_File_iwrite_at(f, (size + rank) * blk, b, N, MPI_INT, &wr), "MPI_File_iwrite_at");
    ok(MPI_File_write_at_all_begin(f, (2 * size + rank) * blk, c, N, MPI_INT), "MPI_File_write_at_all_begin");
    if (rank == 0) mt_out("pending\n");
    while (access(argv[2], F_OK) != 0) usleep(10000);

    int n = -1;
    ok(MPI_Wait(&rd, &st), "MPI_Wait (iread_at_all)");
    MPI_Get_count(&st, MPI_INT, &n);
    if (n != N) mt_fail("MPI_File_iread_at_all: %d ints, want %d", n, N);
    for (int k = 0; k < N; k++)
        if (back[k] != a[k]) mt_fail("MPI_File_iread_at_all: word %d is %d, want %d", k, back[k], a[k]);
    ok(MPI_Wait(&wr, &st), "MPI_Wait (iwrite_at)");
    MPI_Get_count(&st, MPI_INT, &n);
    if (n != N) mt_fail("MPI_File_iwrite_at: %d ints, want %d", n, N);
    ok(MPI_File_write_at_all_end(f, c, &st), "MPI_File_write_at_all_end");
    MPI_Get_count(&st, MPI_INT, &n);
    if (n != N) mt_fail("MPI_File_write_at_all_end: %d ints, want %d", n, N);

    ok(MPI_File_sync(f), "MPI_File_sync");
    MPI_Barrier(MPI_COMM_WORLD);
    ok(MPI_File_sync(f), "MPI_File_sync");
    MPI_Offset fsize = 0;
    ok(MPI_File_get_size(f, &fsize), "MPI_File_get_size");
    if (fsize != 3 * size * blk) mt_fail("the file has %lld bytes, want %lld", (long long)fsize, (long long)(3 * size * blk));
    char *all = malloc((size_t)fsize);
    ok(MPI_File_read_at_all(f, 0, all, (int)fsize, MPI_BYTE, &st), "MPI_File_read_at_all (whole)");
    uint64_t h = mt_hash(MT_HASH0, all, (size_t)fsize);
    free(all);
    ok(MPI_File_close(&f), "MPI_File_close");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_delete(path, MPI_INFO_NULL);
        mt_out("mpiio_pending done: ranks=%d checksum=%016llx\n", size, (unsigned long long)h);
    }
    MPI_Finalize();
    return 0;
}
