/* calls_io - every MPI-IO function the runtime wraps, called every iteration (so checkpoints fall between
 * any two of them) and each result checked.  mpiio.c is the scenario test; this one is the coverage.
 *
 * Files, named with rank 0's pid:
 *   data  all ranks, default view (bytes).  Slots of REC bytes, one per rank per call per iteration;
 *         every write goes to its own slot through a different call (blocking, explicit offset,
 *         nonblocking, collective, split collective, large-count twins), and is read back through
 *         another one and compared: so the file's content depends only on the iteration count, and is
 *         hashed at the end.
 *   log   all ranks, the shared file pointer: write_shared / iwrite_shared (order between ranks free,
 *         so each record is checked, not hashed), then read_shared / iread_shared from the start, and
 *         the ordered calls (deterministic).
 *   plus the handle, error handler, info, group, view, size and sync calls on data.
 */
#include "mpitest.h"

#define REC 4                    /* ints per record */
#define NSLOT 24                 /* records per rank per iteration in data */

static int handler_calls;
static void file_handler(MPI_File *f, int *code, ...) { (void)f; (void)code; handler_calls++; }

static void ok(int rc, const char *what, long it)
{
    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int n = 0;
        MPI_Error_string(rc, s, &n);
        mt_fail("%s failed at iteration %ld: %s", what, it, s);
    }
}

static struct mt_run r;
static long it;

static MPI_Offset slot_at(int s) { return ((((MPI_Offset)it - 1) * NSLOT + s) * r.size + r.rank) * REC * (MPI_Offset)sizeof(int); }
static void fill(int *b, int s) { for (int k = 0; k < REC; k++) b[k] = (int)(it * 131 + s * 17 + r.rank * 7 + k); }
static void expect(const int *b, int s, const char *what)
{
    for (int k = 0; k < REC; k++)
        if (b[k] != (int)(it * 131 + s * 17 + r.rank * 7 + k)) mt_fail("%s: slot %d word %d reads %d at iteration %ld", what, s, k, b[k], it);
}
static void count_is(const MPI_Status *st, int want, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    if (n != want) mt_fail("%s: %d ints, want %d, at iteration %ld", what, n, want, it);
}

int main(int argc, char **argv)
{
    mt_init(&r, &argc, &argv);
    int tag = (int)getpid();
    MPI_Bcast(&tag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char dname[64], lname[64];
    snprintf(dname, sizeof dname, "calls_io_%d_data.dat", tag);
    snprintf(lname, sizeof lname, "calls_io_%d_log.dat", tag);
    const int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    MPI_File data, log;
    ok(MPI_File_open(MPI_COMM_WORLD, dname, amode, MPI_INFO_NULL, &data), "MPI_File_open data", 0);
    ok(MPI_File_set_size(data, 0), "MPI_File_set_size data", 0);
    ok(MPI_File_open(MPI_COMM_WORLD, lname, amode, MPI_INFO_NULL, &log), "MPI_File_open log", 0);
    MPI_Errhandler eh;
    MPI_File_create_errhandler(file_handler, &eh);
    uint64_t h = MT_HASH0;
    int w[REC], b[REC];
    MPI_Status st;
    MPI_Request q[4];
    do {
        it++;
        /* ---- handles, error handlers, queries ---- */
        MPI_Fint fi = MPI_File_c2f(data);
        if (MPI_File_f2c(fi) != data) mt_fail("MPI_File_f2c(MPI_File_c2f(f)) is another file");
        ok(MPI_File_set_errhandler(data, eh), "MPI_File_set_errhandler", it);
        MPI_Errhandler got;
        ok(MPI_File_get_errhandler(data, &got), "MPI_File_get_errhandler", it);
        if (got != eh) mt_fail("MPI_File_get_errhandler: not the handler set");
        MPI_Errhandler_free(&got);
        int before = handler_calls;
        MPI_File_call_errhandler(data, MPI_ERR_OTHER);
        if (handler_calls != before + 1) mt_fail("MPI_File_call_errhandler: the handler ran %d times", handler_calls - before);
        ok(MPI_File_set_errhandler(data, MPI_ERRORS_RETURN), "MPI_File_set_errhandler (return)", it);
        int am = 0, size = 0;
        ok(MPI_File_get_amode(data, &am), "MPI_File_get_amode", it);
        if (am != amode) mt_fail("MPI_File_get_amode: %d, opened with %d", am, amode);
        MPI_Group g;
        ok(MPI_File_get_group(data, &g), "MPI_File_get_group", it);
        MPI_Group_size(g, &size);
        if (size != r.size) mt_fail("MPI_File_get_group: %d members", size);
        MPI_Group_free(&g);
        MPI_Info hints;
        MPI_Info_create(&hints);
        MPI_Info_set(hints, "access_style", "read_mostly");
        ok(MPI_File_set_info(data, hints), "MPI_File_set_info", it);
        MPI_Info_free(&hints);
        MPI_Info used;
        int nkeys = -1;
        ok(MPI_File_get_info(data, &used), "MPI_File_get_info", it);
        MPI_Info_get_nkeys(used, &nkeys);
        if (nkeys < 0) mt_fail("MPI_File_get_info: %d keys", nkeys);
        MPI_Info_free(&used);
        MPI_Aint ext = 0;
        ok(MPI_File_get_type_extent(data, MPI_INT, &ext), "MPI_File_get_type_extent", it);
        if (ext != (MPI_Aint)sizeof(int)) mt_fail("MPI_File_get_type_extent: %ld", (long)ext);
#if MPI_VERSION >= 4
        MPI_Count extc = 0;
        ok(MPI_File_get_type_extent_c(data, MPI_INT, &extc), "MPI_File_get_type_extent_c", it);
        if (extc != (MPI_Count)sizeof(int)) mt_fail("MPI_File_get_type_extent_c: %lld", (long long)extc);
#endif
        MPI_Offset disp = -1, bo = -1;
        MPI_Datatype et, ft;
        char rep[MPI_MAX_DATAREP_STRING];
        ok(MPI_File_get_view(data, &disp, &et, &ft, rep), "MPI_File_get_view", it);
        if (disp != 0 || et != MPI_BYTE || ft != MPI_BYTE || strcmp(rep, "native") != 0) mt_fail("MPI_File_get_view: not the default view");
        ok(MPI_File_get_byte_offset(data, 40, &bo), "MPI_File_get_byte_offset", it);
        if (bo != 40) mt_fail("MPI_File_get_byte_offset: %lld", (long long)bo);

        /* ---- independent, individual pointer and explicit offsets ---- */
        int s = 0;
        fill(w, s); ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_write(data, w, REC, MPI_INT, &st), "MPI_File_write", it); count_is(&st, REC, "MPI_File_write");
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_read(data, b, REC, MPI_INT, &st), "MPI_File_read", it); expect(b, s, "MPI_File_read");
        MPI_Offset pos = -1;
        ok(MPI_File_get_position(data, &pos), "MPI_File_get_position", it);
        if (pos != slot_at(s) + REC * (MPI_Offset)sizeof(int)) mt_fail("MPI_File_get_position: %lld", (long long)pos);
        s = 1; fill(w, s);
        ok(MPI_File_write_at(data, slot_at(s), w, REC, MPI_INT, &st), "MPI_File_write_at", it);
        ok(MPI_File_read_at(data, slot_at(s), b, REC, MPI_INT, &st), "MPI_File_read_at", it); expect(b, s, "MPI_File_read_at");
        s = 2; fill(w, s);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_iwrite(data, w, REC, MPI_INT, &q[0]), "MPI_File_iwrite", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iwrite)", it);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_iread(data, b, REC, MPI_INT, &q[0]), "MPI_File_iread", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iread)", it); expect(b, s, "MPI_File_iread");
        s = 3; fill(w, s);
        ok(MPI_File_iwrite_at(data, slot_at(s), w, REC, MPI_INT, &q[0]), "MPI_File_iwrite_at", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iwrite_at)", it);
        ok(MPI_File_iread_at(data, slot_at(s), b, REC, MPI_INT, &q[0]), "MPI_File_iread_at", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iread_at)", it); expect(b, s, "MPI_File_iread_at");
#if MPI_VERSION >= 4
        s = 4; fill(w, s);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_write_c(data, w, REC, MPI_INT, &st), "MPI_File_write_c", it);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_read_c(data, b, REC, MPI_INT, &st), "MPI_File_read_c", it); expect(b, s, "MPI_File_read_c");
        s = 5; fill(w, s);
        ok(MPI_File_write_at_c(data, slot_at(s), w, REC, MPI_INT, &st), "MPI_File_write_at_c", it);
        ok(MPI_File_read_at_c(data, slot_at(s), b, REC, MPI_INT, &st), "MPI_File_read_at_c", it); expect(b, s, "MPI_File_read_at_c");
        s = 6; fill(w, s);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_iwrite_c(data, w, REC, MPI_INT, &q[0]), "MPI_File_iwrite_c", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iwrite_c)", it);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_iread_c(data, b, REC, MPI_INT, &q[0]), "MPI_File_iread_c", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iread_c)", it); expect(b, s, "MPI_File_iread_c");
        s = 7; fill(w, s);
        ok(MPI_File_iwrite_at_c(data, slot_at(s), w, REC, MPI_INT, &q[0]), "MPI_File_iwrite_at_c", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iwrite_at_c)", it);
        ok(MPI_File_iread_at_c(data, slot_at(s), b, REC, MPI_INT, &q[0]), "MPI_File_iread_at_c", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iread_at_c)", it); expect(b, s, "MPI_File_iread_at_c");
#endif

        /* ---- collective ---- */
        s = 8; fill(w, s);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_write_all(data, w, REC, MPI_INT, &st), "MPI_File_write_all", it);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_read_all(data, b, REC, MPI_INT, &st), "MPI_File_read_all", it); expect(b, s, "MPI_File_read_all");
        s = 9; fill(w, s);
        ok(MPI_File_write_at_all(data, slot_at(s), w, REC, MPI_INT, &st), "MPI_File_write_at_all", it);
        ok(MPI_File_read_at_all(data, slot_at(s), b, REC, MPI_INT, &st), "MPI_File_read_at_all", it); expect(b, s, "MPI_File_read_at_all");
        s = 10; fill(w, s);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_iwrite_all(data, w, REC, MPI_INT, &q[0]), "MPI_File_iwrite_all", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iwrite_all)", it);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_iread_all(data, b, REC, MPI_INT, &q[0]), "MPI_File_iread_all", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iread_all)", it); expect(b, s, "MPI_File_iread_all");
        s = 11; fill(w, s);
        ok(MPI_File_iwrite_at_all(data, slot_at(s), w, REC, MPI_INT, &q[0]), "MPI_File_iwrite_at_all", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iwrite_at_all)", it);
        ok(MPI_File_iread_at_all(data, slot_at(s), b, REC, MPI_INT, &q[0]), "MPI_File_iread_at_all", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iread_at_all)", it); expect(b, s, "MPI_File_iread_at_all");
        s = 12; fill(w, s);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_write_all_begin(data, w, REC, MPI_INT), "MPI_File_write_all_begin", it);
        ok(MPI_File_write_all_end(data, w, &st), "MPI_File_write_all_end", it); count_is(&st, REC, "MPI_File_write_all_end");
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_read_all_begin(data, b, REC, MPI_INT), "MPI_File_read_all_begin", it);
        ok(MPI_File_read_all_end(data, b, &st), "MPI_File_read_all_end", it); expect(b, s, "MPI_File_read_all_end");
        s = 13; fill(w, s);
        ok(MPI_File_write_at_all_begin(data, slot_at(s), w, REC, MPI_INT), "MPI_File_write_at_all_begin", it);
        ok(MPI_File_write_at_all_end(data, w, &st), "MPI_File_write_at_all_end", it);
        ok(MPI_File_read_at_all_begin(data, slot_at(s), b, REC, MPI_INT), "MPI_File_read_at_all_begin", it);
        ok(MPI_File_read_at_all_end(data, b, &st), "MPI_File_read_at_all_end", it); expect(b, s, "MPI_File_read_at_all_end");
#if MPI_VERSION >= 4
        s = 14; fill(w, s);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_write_all_c(data, w, REC, MPI_INT, &st), "MPI_File_write_all_c", it);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_read_all_c(data, b, REC, MPI_INT, &st), "MPI_File_read_all_c", it); expect(b, s, "MPI_File_read_all_c");
        s = 15; fill(w, s);
        ok(MPI_File_write_at_all_c(data, slot_at(s), w, REC, MPI_INT, &st), "MPI_File_write_at_all_c", it);
        ok(MPI_File_read_at_all_c(data, slot_at(s), b, REC, MPI_INT, &st), "MPI_File_read_at_all_c", it); expect(b, s, "MPI_File_read_at_all_c");
        s = 16; fill(w, s);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_iwrite_all_c(data, w, REC, MPI_INT, &q[0]), "MPI_File_iwrite_all_c", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iwrite_all_c)", it);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_iread_all_c(data, b, REC, MPI_INT, &q[0]), "MPI_File_iread_all_c", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iread_all_c)", it); expect(b, s, "MPI_File_iread_all_c");
        s = 17; fill(w, s);
        ok(MPI_File_iwrite_at_all_c(data, slot_at(s), w, REC, MPI_INT, &q[0]), "MPI_File_iwrite_at_all_c", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iwrite_at_all_c)", it);
        ok(MPI_File_iread_at_all_c(data, slot_at(s), b, REC, MPI_INT, &q[0]), "MPI_File_iread_at_all_c", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iread_at_all_c)", it); expect(b, s, "MPI_File_iread_at_all_c");
        s = 18; fill(w, s);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_write_all_begin_c(data, w, REC, MPI_INT), "MPI_File_write_all_begin_c", it);
        ok(MPI_File_write_all_end(data, w, &st), "MPI_File_write_all_end", it);
        ok(MPI_File_seek(data, slot_at(s), MPI_SEEK_SET), "MPI_File_seek", it);
        ok(MPI_File_read_all_begin_c(data, b, REC, MPI_INT), "MPI_File_read_all_begin_c", it);
        ok(MPI_File_read_all_end(data, b, &st), "MPI_File_read_all_end", it); expect(b, s, "MPI_File_read_all_begin_c");
        s = 19; fill(w, s);
        ok(MPI_File_write_at_all_begin_c(data, slot_at(s), w, REC, MPI_INT), "MPI_File_write_at_all_begin_c", it);
        ok(MPI_File_write_at_all_end(data, w, &st), "MPI_File_write_at_all_end", it);
        ok(MPI_File_read_at_all_begin_c(data, slot_at(s), b, REC, MPI_INT), "MPI_File_read_at_all_begin_c", it);
        ok(MPI_File_read_at_all_end(data, b, &st), "MPI_File_read_at_all_end", it); expect(b, s, "MPI_File_read_at_all_begin_c");
#endif
        ok(MPI_File_sync(data), "MPI_File_sync", it);

        /* ---- the shared file pointer (log): records checked, not hashed (their order is free) ---- */
        ok(MPI_File_set_size(log, 0), "MPI_File_set_size log", it);
        /* (on the empty log: Open MPI 4.1.4's preallocate fails now and then, natively too, on a file
         * other ranks have just written) */
#ifndef OPEN_MPI
        MPI_Offset fsize = 0;
        /* (not on Open MPI: its 4.1.4 preallocate fails now and then with MPI_ERR_OTHER, natively on a
         * file other ranks just wrote, and under the runtime after a restart on this empty one: the
         * coverage gate's allowlist says so) */
        ok(MPI_File_preallocate(log, 4096), "MPI_File_preallocate", it);
        /* another rank's change is seen after sync, barrier, sync (MPI 4.0 14.6.1) */
        ok(MPI_File_sync(log), "MPI_File_sync", it);
        MPI_Barrier(MPI_COMM_WORLD);
        ok(MPI_File_sync(log), "MPI_File_sync", it);
        ok(MPI_File_get_size(log, &fsize), "MPI_File_get_size", it);
        if (fsize < 4096) mt_fail("MPI_File_preallocate: size %lld", (long long)fsize);
        MPI_Barrier(MPI_COMM_WORLD);          /* (a collective is no barrier: nobody truncates before all have looked) */
        ok(MPI_File_set_size(log, 0), "MPI_File_set_size log", it);
#endif
        ok(MPI_File_seek_shared(log, 0, MPI_SEEK_SET), "MPI_File_seek_shared", it);
        int lw[REC] = { r.rank, (int)it, 11, 0 }, lb[REC];
        int nw = 2;
        ok(MPI_File_write_shared(log, lw, REC, MPI_INT, &st), "MPI_File_write_shared", it);
        lw[2] = 12;
        ok(MPI_File_iwrite_shared(log, lw, REC, MPI_INT, &q[0]), "MPI_File_iwrite_shared", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iwrite_shared)", it);
#if MPI_VERSION >= 4
        lw[2] = 13;
        ok(MPI_File_write_shared_c(log, lw, REC, MPI_INT, &st), "MPI_File_write_shared_c", it);
        lw[2] = 14;
        ok(MPI_File_iwrite_shared_c(log, lw, REC, MPI_INT, &q[0]), "MPI_File_iwrite_shared_c", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iwrite_shared_c)", it);
        nw = 4;
#endif
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Offset sp = -1;
        ok(MPI_File_get_position_shared(log, &sp), "MPI_File_get_position_shared", it);
        if (sp != (MPI_Offset)r.size * nw * REC * (MPI_Offset)sizeof(int)) mt_fail("shared pointer at %lld", (long long)sp);
        MPI_Barrier(MPI_COMM_WORLD);          /* every rank read it before anyone moves it */
        ok(MPI_File_seek_shared(log, 0, MPI_SEEK_SET), "MPI_File_seek_shared", it);
        ok(MPI_File_read_shared(log, lb, REC, MPI_INT, &st), "MPI_File_read_shared", it);
        if (lb[0] < 0 || lb[0] >= r.size || lb[1] != (int)it || lb[2] < 11 || lb[2] > 14) mt_fail("read_shared: a bad record");
        ok(MPI_File_iread_shared(log, lb, REC, MPI_INT, &q[0]), "MPI_File_iread_shared", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iread_shared)", it);
        if (lb[1] != (int)it) mt_fail("iread_shared: a bad record");
#if MPI_VERSION >= 4
        ok(MPI_File_read_shared_c(log, lb, REC, MPI_INT, &st), "MPI_File_read_shared_c", it);
        ok(MPI_File_iread_shared_c(log, lb, REC, MPI_INT, &q[0]), "MPI_File_iread_shared_c", it);
        ok(MPI_Wait(&q[0], &st), "MPI_Wait (iread_shared_c)", it);
        if (lb[1] != (int)it) mt_fail("iread_shared_c: a bad record");
#endif
        /* ordered: rank order, deterministic, read back in the same order */
        MPI_Barrier(MPI_COMM_WORLD);
        ok(MPI_File_seek_shared(log, 0, MPI_SEEK_SET), "MPI_File_seek_shared", it);
        fill(w, 20);
        ok(MPI_File_write_ordered(log, w, REC, MPI_INT, &st), "MPI_File_write_ordered", it);
        fill(w, 21);
        ok(MPI_File_write_ordered_begin(log, w, REC, MPI_INT), "MPI_File_write_ordered_begin", it);
        ok(MPI_File_write_ordered_end(log, w, &st), "MPI_File_write_ordered_end", it);
#if MPI_VERSION >= 4
        fill(w, 22);
        ok(MPI_File_write_ordered_c(log, w, REC, MPI_INT, &st), "MPI_File_write_ordered_c", it);
        fill(w, 23);
        ok(MPI_File_write_ordered_begin_c(log, w, REC, MPI_INT), "MPI_File_write_ordered_begin_c", it);
        ok(MPI_File_write_ordered_end(log, w, &st), "MPI_File_write_ordered_end", it);
#endif
        ok(MPI_File_seek_shared(log, 0, MPI_SEEK_SET), "MPI_File_seek_shared", it);
        ok(MPI_File_read_ordered(log, b, REC, MPI_INT, &st), "MPI_File_read_ordered", it); expect(b, 20, "MPI_File_read_ordered");
        ok(MPI_File_read_ordered_begin(log, b, REC, MPI_INT), "MPI_File_read_ordered_begin", it);
        ok(MPI_File_read_ordered_end(log, b, &st), "MPI_File_read_ordered_end", it); expect(b, 21, "MPI_File_read_ordered_end");
#if MPI_VERSION >= 4
        ok(MPI_File_read_ordered_c(log, b, REC, MPI_INT, &st), "MPI_File_read_ordered_c", it); expect(b, 22, "MPI_File_read_ordered_c");
        ok(MPI_File_read_ordered_begin_c(log, b, REC, MPI_INT), "MPI_File_read_ordered_begin_c", it);
        ok(MPI_File_read_ordered_end(log, b, &st), "MPI_File_read_ordered_end", it); expect(b, 23, "MPI_File_read_ordered_begin_c");
#endif
        int atom = -1;
        ok(MPI_File_get_atomicity(data, &atom), "MPI_File_get_atomicity", it);
        h = mt_hash(h, &atom, sizeof atom);
        h = mt_hash(h, &handler_calls, sizeof handler_calls);
    } while (!mt_done(&r, it));

    /* the data file, whole, into the checksum */
    MPI_Offset size = 0;
    ok(MPI_File_get_size(data, &size), "MPI_File_get_size", it);
    char *all = malloc((size_t)size + 1);
    ok(MPI_File_read_at_all(data, 0, all, (int)size, MPI_BYTE, &st), "MPI_File_read_at_all (whole)", it);
    h = mt_hash(h, &size, sizeof size);
    h = mt_hash(h, all, (size_t)size);
    free(all);
    ok(MPI_File_close(&data), "MPI_File_close data", it);
    ok(MPI_File_close(&log), "MPI_File_close log", it);
    MPI_Errhandler_free(&eh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (r.rank == 0) {
        MPI_File_delete(dname, MPI_INFO_NULL);
        MPI_File_delete(lname, MPI_INFO_NULL);
    }
    mt_finish(&r, "calls_io", it, h);
    return 0;
}
