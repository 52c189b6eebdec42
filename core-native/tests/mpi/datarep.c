/* datarep - user-defined data representations for MPI-IO (MPI_Register_datarep) across checkpoints.
 *
 * Neither MPI lets a program use one today (checked natively): MPICH 4.0.2's ROMIO registers a
 * representation without conversion functions (MPI_CONVERSION_FN_NULL) but refuses one with them ("Read
 * and Write datarep conversions are currently not supported by MPI-IO") and refuses every user
 * representation in MPI_File_set_view; Open MPI 4.1's ompio refuses every registration, its romio321
 * every view.  What a program sees is still defined, and must be the same under the runtime: which
 * registrations succeed, that a name stays registered (a second registration of it is
 * MPI_ERR_DUP_DATAREP, after a restart too: the runtime registers it again), what MPI_File_set_view says
 * of it, and the file's own data.  So, with a file opened once and written and read every iteration
 * through a "native" view:
 *   - before the first iteration "mana-be32" is registered with an extent function only (its error
 *     class kept: MPI_SUCCESS on MPICH);
 *   - every iteration: "mana-be32" again (MPI_ERR_DUP_DATAREP where the first one succeeded; Open MPI
 *     keeps the name of a registration ompio refused, and says MPI_ERR_DUP_DATAREP too), a new name with the extent function only, one more with conversion functions
 *     too, MPI_File_set_view with "mana-be32", and the same new name again; every class goes into the
 *     checksum, so a restarted run must give each one the native run gave (on MPICH also a new name
 *     through MPI_Register_datarep_c);
 *   - every rank writes its block of N ints of this iteration and reads it back.
 * The functions never run (neither MPI calls them); were one called, it would count the call. */
#include "mpitest.h"

#define N 256

static long calls;

static int be_conv(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position, void *extra)
{
    (void)userbuf; (void)type; (void)count; (void)filebuf; (void)position; (void)extra;
    calls++;
    return MPI_SUCCESS;
}

static int be_extent(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    (void)type; (void)extra;
    *extent = 4;
    calls++;
    return MPI_SUCCESS;
}

static int cls(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
    return c;
}

static void ok(int rc, const char *what, long it)
{
    if (rc != MPI_SUCCESS) mt_fail("datarep: %s failed at iteration %ld (class %d)", what, it, cls(rc));
}

int main(int argc, char **argv)
{
    struct mt_run run;
    mt_init(&run, &argc, &argv);
    int me = run.rank;
    const char *path = "datarep.dat";                /* in the current directory, as mpiio.c's */
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    int first = cls(MPI_Register_datarep("mana-be32", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, be_extent, &calls));  /* mana-lint: ignore MPI_Register_datarep (what a program sees of it is the test) */
    MPI_File f;
    ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f), "MPI_File_open", 0);
    ok(MPI_File_set_view(f, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), "MPI_File_set_view", 0);

    uint64_t h = mt_hash(MT_HASH0, &first, sizeof first);
    static int w[N], r[N];
    for (long it = 1;; it++) {
        int c[6] = { 0 };
        c[0] = cls(MPI_Register_datarep("mana-be32", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, be_extent, &calls));  /* mana-lint: ignore MPI_Register_datarep (what a program sees of it is the test) */
        if (first == MPI_SUCCESS && c[0] != MPI_ERR_DUP_DATAREP)
            mt_fail("datarep: registering mana-be32 again: class %d (the first registration: %d) at iteration %ld",
                    c[0], first, it);
        char name[64], conv[64];
        snprintf(name, sizeof name, "mana-be32-%ld", it);
        snprintf(conv, sizeof conv, "mana-conv-%ld", it);
        c[1] = cls(MPI_Register_datarep(name, MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, be_extent, &calls));  /* mana-lint: ignore MPI_Register_datarep (what a program sees of it is the test) */
        c[2] = cls(MPI_Register_datarep(conv, be_conv, be_conv, be_extent, &calls));  /* mana-lint: ignore MPI_Register_datarep (what a program sees of it is the test) */
        c[3] = cls(MPI_File_set_view(f, 0, MPI_INT, MPI_INT, "mana-be32", MPI_INFO_NULL));
        c[4] = cls(MPI_Register_datarep(name, MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, be_extent, &calls));  /* mana-lint: ignore MPI_Register_datarep (what a program sees of it is the test) */
        if (c[1] == MPI_SUCCESS && c[4] != MPI_ERR_DUP_DATAREP)
            mt_fail("datarep: %s registered twice: class %d at iteration %ld", name, c[4], it);
#if MPI_VERSION >= 4
        char large[64];              /* MPICH: the large-count form, another name */
        snprintf(large, sizeof large, "mana-be32c-%ld", it);
        c[5] = cls(MPI_Register_datarep_c(large, MPI_CONVERSION_FN_NULL_C, MPI_CONVERSION_FN_NULL_C, be_extent, &calls));  /* mana-lint: ignore MPI_Register_datarep_c (what a program sees of it is the test) */
#endif
        h = mt_hash(h, c, sizeof c);
        ok(MPI_File_set_view(f, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), "MPI_File_set_view native", it);
        MPI_Offset at = (MPI_Offset)me * N;
        for (int i = 0; i < N; i++) w[i] = (int)(it * 100003 + me * 1009 + i * 7 - 5000);
        MPI_Status st;
        ok(MPI_File_write_at_all(f, at, w, N, MPI_INT, &st), "MPI_File_write_at_all", it);
        ok(MPI_File_sync(f), "MPI_File_sync", it);
        MPI_Barrier(MPI_COMM_WORLD);
        ok(MPI_File_sync(f), "MPI_File_sync", it);
        memset(r, 0, sizeof r);
        ok(MPI_File_read_at_all(f, at, r, N, MPI_INT, &st), "MPI_File_read_at_all", it);
        for (int i = 0; i < N; i++)
            if (r[i] != w[i]) mt_fail("datarep: int %d read back as %d, want %d at iteration %ld", i, r[i], w[i], it);
        h = mt_hash(h, r, sizeof r);
        if (mt_done(&run, it)) {
            ok(MPI_File_close(&f), "MPI_File_close", it);
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 0) MPI_File_delete(path, MPI_INFO_NULL);
            h = mt_hash(h, &calls, sizeof calls);
            mt_finish(&run, "datarep", it, h);
            break;
        }
    }
    return 0;
}
