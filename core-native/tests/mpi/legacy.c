/* legacy - the MPI-1 functions MPI-3 removed, which both MPIs still export and older codes still call,
 * across checkpoints: MPI_Address, MPI_Type_extent, MPI_Type_lb, MPI_Type_ub, MPI_Type_hvector,
 * MPI_Type_hindexed, MPI_Type_struct, MPI_Errhandler_create, MPI_Errhandler_set, MPI_Errhandler_get.
 *
 * Before the first iteration: a struct type of a record (an int, a double, a hindexed part) built with
 * MPI_Address and MPI_Type_struct, an MPI_Type_hvector of two of them, an error handler made with
 * MPI_Errhandler_create and set on a duplicate of MPI_COMM_WORLD with MPI_Errhandler_set.  They are
 * used every iteration (so a restart falls between their uses), and every iteration also makes and
 * frees its own:
 *   - a ring exchange of two records with the hvector type (the types made before the first iteration
 *     must work after a restart: the runtime made them again);
 *   - the extent, lower and upper bound of every type against MPI_Type_get_extent's (and the values a
 *     record's layout gives);
 *   - MPI_Address of the record's fields against MPI_Get_address;
 *   - MPI_Errhandler_get on the duplicate gives the handler set; MPI_Comm_call_errhandler calls it
 *     (it counts, and notes the error class);
 *   - a fresh MPI_Type_hindexed / _hvector / _struct, committed, used once in the exchange, freed.
 * Everything received and the handler's counts go into the checksum. */
/* Open MPI's mpi.h declares the removed functions only when asked. */
#define OMPI_OMIT_MPI1_COMPAT_DECLS 0
#include "mpitest.h"

struct rec { int i; double d; short pad[3]; int tail[4]; };

static int handled, handled_class;

static void on_error(MPI_Comm *c, int *code, ...)
{
    (void)c;
    handled++;
    MPI_Error_class(*code, &handled_class);
}

static void ok(int rc, const char *what, long it)
{
    if (rc != MPI_SUCCESS) mt_fail("legacy: %s failed (error %d) at iteration %ld", what, rc, it);
}

/* The record's type: i, d and tail[1..2] (a hindexed part), from MPI_Address displacements. */
static MPI_Datatype rec_type(long it)
{
    struct rec r;
    MPI_Aint base, a[3], g;
    ok(MPI_Address(&r, &base), "MPI_Address", it);
    ok(MPI_Address(&r.i, &a[0]), "MPI_Address", it);
    ok(MPI_Address(&r.d, &a[1]), "MPI_Address", it);
    ok(MPI_Address(&r.tail[1], &a[2]), "MPI_Address", it);
    ok(MPI_Get_address(&r.d, &g), "MPI_Get_address", it);
    if (g != a[1]) mt_fail("legacy: MPI_Address gives %ld, MPI_Get_address %ld at iteration %ld", (long)a[1], (long)g, it);
    int bl2[2] = { 1, 1 };
    MPI_Aint d2[2] = { 0, (MPI_Aint)sizeof(int) };
    MPI_Datatype tailpart;
    ok(MPI_Type_hindexed(2, bl2, d2, MPI_INT, &tailpart), "MPI_Type_hindexed", it);
    int bl[3] = { 1, 1, 1 };
    MPI_Aint disp[3] = { a[0] - base, a[1] - base, a[2] - base };
    MPI_Datatype types[3] = { MPI_INT, MPI_DOUBLE, tailpart }, t;
    ok(MPI_Type_struct(3, bl, disp, types, &t), "MPI_Type_struct", it);
    ok(MPI_Type_free(&tailpart), "MPI_Type_free", it);
    return t;
}

/* extent, lb and ub of t against MPI_Type_get_extent; want_extent: what the layout gives (0: any) */
static void check_bounds(MPI_Datatype t, MPI_Aint want_lb, MPI_Aint want_extent, const char *what, long it)
{
    MPI_Aint ext = -1, lb = -1, ub = -1, glb = -2, gext = -2;
    ok(MPI_Type_extent(t, &ext), "MPI_Type_extent", it);
    ok(MPI_Type_lb(t, &lb), "MPI_Type_lb", it);
    ok(MPI_Type_ub(t, &ub), "MPI_Type_ub", it);
    ok(MPI_Type_get_extent(t, &glb, &gext), "MPI_Type_get_extent", it);
    if (ext != gext || lb != glb || ub != glb + gext)
        mt_fail("legacy: %s: extent %ld lb %ld ub %ld, MPI_Type_get_extent says lb %ld extent %ld at iteration %ld",
                what, (long)ext, (long)lb, (long)ub, (long)glb, (long)gext, it);
    if (lb != want_lb || (want_extent && ext != want_extent))
        mt_fail("legacy: %s: lb %ld extent %ld, want %ld %ld at iteration %ld", what, (long)lb, (long)ext,
                (long)want_lb, (long)want_extent, it);
}

static uint64_t h = MT_HASH0;

/* Two records to the right neighbour, two from the left, as one element of pair. */
static void exchange(MPI_Datatype pair, int rank, int size, long it, const char *what)
{
    struct rec out[2], in[2];
    memset(out, 0, sizeof out);
    memset(in, 0, sizeof in);
    for (int k = 0; k < 2; k++) {
        out[k].i = (int)(rank * 1000 + it * 10 + k);
        out[k].d = rank + it * 0.5 + k;
        for (int j = 0; j < 4; j++) out[k].tail[j] = (int)(it * 100 + j + k);
    }
    MPI_Status st;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    ok(MPI_Sendrecv(out, 1, pair, right, 7, in, 1, pair, left, 7, MPI_COMM_WORLD, &st), what, it);
    for (int k = 0; k < 2; k++) {
        if (in[k].i != (int)(left * 1000 + it * 10 + k) || in[k].tail[0] != 0 || in[k].tail[3] != 0 ||
            in[k].tail[1] != (int)(it * 100 + 1 + k) || in[k].tail[2] != (int)(it * 100 + 2 + k))
            mt_fail("legacy: %s: record %d from rank %d is wrong at iteration %ld", what, k, left, it);
        h = mt_hash(h, &in[k].i, sizeof in[k].i);
        h = mt_hash(h, &in[k].d, sizeof in[k].d);
        h = mt_hash(h, &in[k].tail, sizeof in[k].tail);
    }
}

int main(int argc, char **argv)
{
    struct mt_run run;
    mt_init(&run, &argc, &argv);
    int rank = run.rank, size = run.size;
    /* before the first iteration: the record type, a pair of records, the error handler */
    MPI_Datatype rec = rec_type(0), pair;
    ok(MPI_Type_hvector(2, 1, (MPI_Aint)sizeof(struct rec), rec, &pair), "MPI_Type_hvector", 0);
    ok(MPI_Type_commit(&pair), "MPI_Type_commit", 0);
    MPI_Comm dup;
    ok(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup", 0);
    MPI_Errhandler eh, got;
    ok(MPI_Errhandler_create(on_error, &eh), "MPI_Errhandler_create", 0);
    ok(MPI_Errhandler_set(dup, eh), "MPI_Errhandler_set", 0);
    struct rec r0;
    MPI_Aint base, dd, tl;
    MPI_Address(&r0, &base);
    MPI_Address(&r0.d, &dd);
    MPI_Address(&r0.tail[3], &tl);

    for (long it = 1;; it++) {
        exchange(pair, rank, size, it, "MPI_Sendrecv (the pair made before the first iteration)");
        check_bounds(rec, 0, 0, "the record type", it);
        check_bounds(pair, 0, 0, "the pair type", it);
        MPI_Aint ub = -1;
        ok(MPI_Type_ub(rec, &ub), "MPI_Type_ub", it);
        if (ub < tl - base) mt_fail("legacy: the record type's upper bound %ld is below its last field's end %ld",
                                    (long)ub, (long)(tl - base));
        MPI_Aint a = -1;
        ok(MPI_Address(&r0.d, &a), "MPI_Address", it);
        if (a != dd) mt_fail("legacy: MPI_Address of the same field gives %ld, was %ld at iteration %ld", (long)a, (long)dd, it);
        /* the error handler set before the first iteration */
        ok(MPI_Errhandler_get(dup, &got), "MPI_Errhandler_get", it);
        if (got != eh) mt_fail("legacy: MPI_Errhandler_get gives another handler than the one set at iteration %ld", it);
        ok(MPI_Errhandler_free(&got), "MPI_Errhandler_free (of MPI_Errhandler_get's)", it);
        int before = handled, cls = MPI_ERR_TAG;
        ok(MPI_Comm_call_errhandler(dup, cls), "MPI_Comm_call_errhandler", it);
        if (handled != before + 1 || handled_class != cls)
            mt_fail("legacy: the handler was called %d times (class %d) for an error of class %d at iteration %ld",
                    handled - before, handled_class, cls, it);
        h = mt_hash(h, &handled, sizeof handled);
        h = mt_hash(h, &cls, sizeof cls);
        /* fresh types of this iteration */
        MPI_Datatype r2 = rec_type(it), p2, hv;
        ok(MPI_Type_hvector(2, 1, (MPI_Aint)sizeof(struct rec), r2, &p2), "MPI_Type_hvector", it);
        ok(MPI_Type_commit(&p2), "MPI_Type_commit", it);
        exchange(p2, rank, size, it, "MPI_Sendrecv (a pair made this iteration)");
        ok(MPI_Type_hvector(3, 2, 16, MPI_INT, &hv), "MPI_Type_hvector", it);
        check_bounds(hv, 0, 2 * 16 + 2 * (MPI_Aint)sizeof(int), "a 3 x 2 ints hvector of stride 16", it);
        ok(MPI_Type_free(&hv), "MPI_Type_free", it);
        ok(MPI_Type_free(&p2), "MPI_Type_free", it);
        ok(MPI_Type_free(&r2), "MPI_Type_free", it);
        if (mt_done(&run, it)) {
            ok(MPI_Errhandler_free(&eh), "MPI_Errhandler_free", it);
            ok(MPI_Comm_free(&dup), "MPI_Comm_free", it);
            ok(MPI_Type_free(&pair), "MPI_Type_free", it);
            ok(MPI_Type_free(&rec), "MPI_Type_free", it);
            mt_finish(&run, "legacy", it, h);
            break;
        }
    }
    return 0;
}
