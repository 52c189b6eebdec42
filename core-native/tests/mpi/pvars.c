/* pvars - MPI_T performance variables across checkpoints: sessions and handles made before the first
 * iteration and used in every one (so a restart falls between their uses), values that must continue
 * across a restart exactly as if there had been none.
 *
 * Open MPI 4.1 (its job started with OMPI_MCA_pml_monitoring_enable=1, which tests/mpi/CMakeLists.txt
 * sets for this program's cases, natively and under the runtime alike): the monitoring components'
 * variables, bound to MPI_COMM_WORLD, count this rank's collectives as their root:
 *   coll_monitoring_o2a_count  (COUNTER)    one-to-all collectives (MPI_Bcast);
 *   coll_monitoring_o2a_size   (AGGREGATE)  their bytes (to each other rank);
 *   coll_monitoring_a2o_count  (COUNTER)    all-to-one collectives (MPI_Reduce);
 *   coll_monitoring_a2a_count  (COUNTER)    all-to-all ones (MPI_Allreduce: mpitest.h's one an iteration);
 * so every value read is known exactly: rank 0 broadcasts 1 + it % 3 times and reduces once each
 * iteration, and every read must give what the program did since the handle was started (or reset),
 * restarts or none.  Before the first iteration:
 *   session 1  an o2a_count, o2a_size, a2o_count and a2a_count handle, started; a continuous one
 *              (pml_ob1_unexpected_msgq_length on MPI_COMM_WORLD, SIZE), only read (its value is the
 *              library's state now: not compared.  Open MPI 4.1.4's mpool_hugepage_bytes_allocated,
 *              bound to no object, fails to read with 3 ranks natively: not used);
 *   session 2  an o2a_count handle reset every 5th iteration (it counts from the reset: after a restart
 *              too); MPI_T_pvar_readreset and MPI_T_pvar_write on it fail (read-only), as natively;
 *   session 3  an o2a_count and an a2o_count handle, started and stopped with MPI_T_PVAR_ALL_HANDLES
 *              (stopped and started again every 10th iteration with nothing in between); a reset with
 *              MPI_T_PVAR_ALL_HANDLES leaves them (read-only) as they are.
 * Every iteration also makes a session of its own, a handle, starts and reads it, frees them.  (Nothing
 * is stopped before the end: Open MPI's monitoring stops counting for every handle when one is stopped.)
 * MPICH 4.0.2 (built without performance variables: it has none): a session made before the first
 * iteration, MPI_T_pvar_start/stop/reset with MPI_T_PVAR_ALL_HANDLES on it every iteration (after a
 * restart on the session the runtime made again) and a session of the iteration's own.  Under the runtime
 * only (MPICH 4.0.2 itself dereferences NULL in MPI_T_pvar_get_info and _handle_alloc of any index, having
 * no variables; the runtime checks the index first): the info and a handle of a variable that does not
 * exist are refused with MPI_T_ERR_INVALID_INDEX, and the calls on a handle (read, write, readreset,
 * start, stop, reset, free) with an invalid one fail.  The values read and the return codes go into the
 * checksum (the same as a native run's). */
#include "mpitest.h"

static uint64_t h = MT_HASH0;
static void hash_u(unsigned long long v) { h = mt_hash(h, &v, sizeof v); }

static void ok(int rc, const char *what, long it)
{
    if (rc != MPI_SUCCESS) mt_fail("pvars: %s failed (error %d) at iteration %ld", what, rc, it);
}

#ifdef OPEN_MPI
/* A handle of the named variable (its class) on MPI_COMM_WORLD (or no object) in session s. */
static MPI_T_pvar_handle handle(MPI_T_pvar_session s, const char *name, int cls, int world, int *cnt)
{
    int idx = -1;
    if (MPI_T_pvar_get_index(name, cls, &idx) != MPI_SUCCESS)
        mt_fail("pvars: no performance variable %s (start the job with OMPI_MCA_pml_monitoring_enable=1)", name);
    static MPI_Comm c;                  /* Open MPI keeps the pointer and reads the communicator through it */
    c = MPI_COMM_WORLD;
    MPI_T_pvar_handle hd;
    ok(MPI_T_pvar_handle_alloc(s, idx, world ? &c : NULL, &hd, cnt), name, 0);
    return hd;
}

static unsigned long long read_ull(MPI_T_pvar_session s, MPI_T_pvar_handle hd, const char *what, long it)
{
    unsigned long long v = 0;
    ok(MPI_T_pvar_read(s, hd, &v), what, it);
    return v;
}

static void expect(unsigned long long got, unsigned long long want, const char *what, long it)
{
    if (got != want) mt_fail("pvars: %s reads %llu, want %llu at iteration %ld", what, got, want, it);
    hash_u(got);
}

int main(int argc, char **argv)
{
    int prov;
    ok(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov), "MPI_T_init_thread", 0);
    struct mt_run run;
    mt_init(&run, &argc, &argv);
    int root = run.rank == 0, cnt;
    MPI_T_pvar_session s1, s2, s3;
    ok(MPI_T_pvar_session_create(&s1), "MPI_T_pvar_session_create", 0);
    ok(MPI_T_pvar_session_create(&s2), "MPI_T_pvar_session_create", 0);
    ok(MPI_T_pvar_session_create(&s3), "MPI_T_pvar_session_create", 0);
    MPI_T_pvar_handle o2a = handle(s1, "coll_monitoring_o2a_count", MPI_T_PVAR_CLASS_COUNTER, 1, &cnt);
    MPI_T_pvar_handle o2s = handle(s1, "coll_monitoring_o2a_size", MPI_T_PVAR_CLASS_AGGREGATE, 1, &cnt);
    MPI_T_pvar_handle a2o = handle(s1, "coll_monitoring_a2o_count", MPI_T_PVAR_CLASS_COUNTER, 1, &cnt);
    MPI_T_pvar_handle a2a = handle(s1, "coll_monitoring_a2a_count", MPI_T_PVAR_CLASS_COUNTER, 1, &cnt);
    MPI_T_pvar_handle qlen = handle(s1, "pml_ob1_unexpected_msgq_length", MPI_T_PVAR_CLASS_SIZE, 1, &cnt);
    if (cnt < 1 || cnt > 64) mt_fail("pvars: pml_ob1_unexpected_msgq_length has %d elements", cnt);   /* one a peer */
    MPI_T_pvar_handle rst = handle(s2, "coll_monitoring_o2a_count", MPI_T_PVAR_CLASS_COUNTER, 1, &cnt);
    MPI_T_pvar_handle all1 = handle(s3, "coll_monitoring_o2a_count", MPI_T_PVAR_CLASS_COUNTER, 1, &cnt);
    MPI_T_pvar_handle all2 = handle(s3, "coll_monitoring_a2o_count", MPI_T_PVAR_CLASS_COUNTER, 1, &cnt);
    MPI_T_pvar_handle hs[] = { o2a, o2s, a2o, a2a };
    for (int i = 0; i < 4; i++) ok(MPI_T_pvar_start(s1, hs[i]), "MPI_T_pvar_start", 0);
    ok(MPI_T_pvar_start(s2, rst), "MPI_T_pvar_start", 0);
    ok(MPI_T_pvar_start(s3, MPI_T_PVAR_ALL_HANDLES), "MPI_T_pvar_start (all handles)", 0);
    /* what the program did since the starts: broadcasts and their bytes, reduces, allreduces (rank 0
     * counts the rooted ones, every rank the allreduces) */
    unsigned long long nb = 0, bytes = 0, nred = 0, nall = 0, nb_rst = 0;
    int buf[8] = { 0 };
    for (long it = 1;; it++) {
        /* this iteration's collectives, and a session of its own around the broadcasts */
        MPI_T_pvar_session si;
        ok(MPI_T_pvar_session_create(&si), "MPI_T_pvar_session_create", it);
        MPI_T_pvar_handle hi = handle(si, "coll_monitoring_o2a_count", MPI_T_PVAR_CLASS_COUNTER, 1, &cnt);
        ok(MPI_T_pvar_start(si, hi), "MPI_T_pvar_start", it);
        int k = 1 + (int)(it % 3), len = 1 + (int)(it % 5);
        for (int j = 0; j < k; j++) {
            buf[0] = (int)it + j;
            MPI_Bcast(buf, len, MPI_INT, 0, MPI_COMM_WORLD);
        }
        expect(read_ull(si, hi, "an iteration's own handle", it), root ? (unsigned long long)k : 0,
               "coll_monitoring_o2a_count (this iteration's session)", it);
        ok(MPI_T_pvar_handle_free(si, &hi), "MPI_T_pvar_handle_free", it);
        ok(MPI_T_pvar_session_free(&si), "MPI_T_pvar_session_free", it);
        int sum = 0;
        MPI_Reduce(&buf[0], &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        nb += (unsigned long long)k;
        nb_rst += (unsigned long long)k;
        bytes += (unsigned long long)k * (unsigned long long)len * sizeof(int) * (unsigned long long)(run.size - 1);
        nred++;
        /* every value, as counted since the start */
        expect(read_ull(s1, o2a, "o2a_count", it), root ? nb : 0, "coll_monitoring_o2a_count", it);
        expect(read_ull(s1, o2s, "o2a_size", it), root ? bytes : 0, "coll_monitoring_o2a_size", it);
        expect(read_ull(s1, a2o, "a2o_count", it), root ? nred : 0, "coll_monitoring_a2o_count", it);
        expect(read_ull(s1, a2a, "a2a_count", it), nall, "coll_monitoring_a2a_count", it);
        expect(read_ull(s2, rst, "o2a_count reset", it), root ? nb_rst : 0,
               "coll_monitoring_o2a_count reset every 5th iteration", it);
        expect(read_ull(s3, all1, "o2a_count (all handles)", it), root ? nb : 0,
               "coll_monitoring_o2a_count started with MPI_T_PVAR_ALL_HANDLES", it);
        expect(read_ull(s3, all2, "a2o_count (all handles)", it), root ? nred : 0,
               "coll_monitoring_a2o_count started with MPI_T_PVAR_ALL_HANDLES", it);
        /* the continuous ones: read (the library's state now) */
        unsigned q[64];
        ok(MPI_T_pvar_read(s1, qlen, q), "MPI_T_pvar_read pml_ob1_unexpected_msgq_length", it);
        /* a reset every 5th iteration; readreset and write fail on read-only variables, as natively */
        if (it % 5 == 0) { ok(MPI_T_pvar_reset(s2, rst), "MPI_T_pvar_reset", it); nb_rst = 0; }
        unsigned long long v = 0;
        hash_u((unsigned long long)(MPI_T_pvar_readreset(s2, rst, &v) != MPI_SUCCESS));
        hash_u((unsigned long long)(MPI_T_pvar_write(s2, rst, &v) != MPI_SUCCESS));
        /* all of session 3's: a reset leaves read-only ones; a stop and a start change nothing here */
        ok(MPI_T_pvar_reset(s3, MPI_T_PVAR_ALL_HANDLES), "MPI_T_pvar_reset (all handles)", it);
        if (it % 10 == 0) {
            ok(MPI_T_pvar_stop(s3, MPI_T_PVAR_ALL_HANDLES), "MPI_T_pvar_stop (all handles)", it);
            ok(MPI_T_pvar_start(s3, MPI_T_PVAR_ALL_HANDLES), "MPI_T_pvar_start (all handles)", it);
        }
        nall++;                                   /* mt_done's MPI_Allreduce */
        if (mt_done(&run, it)) {
            ok(MPI_T_pvar_stop(s3, MPI_T_PVAR_ALL_HANDLES), "MPI_T_pvar_stop (all handles)", it);
            ok(MPI_T_pvar_handle_free(s1, &o2a), "MPI_T_pvar_handle_free", it);
            ok(MPI_T_pvar_session_free(&s1), "MPI_T_pvar_session_free", it);
            ok(MPI_T_pvar_session_free(&s2), "MPI_T_pvar_session_free", it);
            ok(MPI_T_pvar_session_free(&s3), "MPI_T_pvar_session_free", it);
            ok(MPI_T_finalize(), "MPI_T_finalize", it);
            mt_finish(&run, "pvars", it, h);
            break;
        }
    }
    return 0;
}

#else
/* MPICH: sessions and MPI_T_PVAR_ALL_HANDLES across restarts; a handle the library refuses. */
int main(int argc, char **argv)
{
    int prov;
    ok(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov), "MPI_T_init_thread", 0);
    struct mt_run run;
    mt_init(&run, &argc, &argv);
    int npvar = -1;
    ok(MPI_T_pvar_get_num(&npvar), "MPI_T_pvar_get_num", 0);
    if (npvar != 0) mt_fail("pvars: this MPICH has %d performance variables: the test expects MPICH 4.0.2's none", npvar);
    int under = getenv("MANA_CKPT_DIR") != NULL;          /* under the runtime (mana_launch sets it) */
    MPI_T_pvar_session s1;
    ok(MPI_T_pvar_session_create(&s1), "MPI_T_pvar_session_create", 0);
    for (long it = 1;; it++) {
        ok(MPI_T_pvar_start(s1, MPI_T_PVAR_ALL_HANDLES), "MPI_T_pvar_start (all handles)", it);
        ok(MPI_T_pvar_reset(s1, MPI_T_PVAR_ALL_HANDLES), "MPI_T_pvar_reset (all handles)", it);
        ok(MPI_T_pvar_stop(s1, MPI_T_PVAR_ALL_HANDLES), "MPI_T_pvar_stop (all handles)", it);
        MPI_T_pvar_session si;
        ok(MPI_T_pvar_session_create(&si), "MPI_T_pvar_session_create", it);
        if (under) {            /* MPICH 4.0.2 itself dereferences NULL on these (see above): not natively */
            char name[64], desc[64];
            int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, at;
            MPI_Datatype dt;
            MPI_T_enum en;
            int rc = MPI_T_pvar_get_info((int)(it % 3), name, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro,
                                         &cont, &at);
            MPI_T_pvar_handle hd = MPI_T_PVAR_HANDLE_NULL;
            int cnt = -1, rca = MPI_T_pvar_handle_alloc(si, (int)(it % 3), NULL, &hd, &cnt);
            if (rc != MPI_T_ERR_INVALID_INDEX || rca != MPI_T_ERR_INVALID_INDEX)
                mt_fail("pvars: performance variable %ld of none: info error %d, handle error %d, want %d at iteration %ld",
                        it % 3, rc, rca, MPI_T_ERR_INVALID_INDEX, it);
            unsigned long long v = 0;
            if (MPI_T_pvar_read(si, hd, &v) == MPI_SUCCESS || MPI_T_pvar_write(si, hd, &v) == MPI_SUCCESS ||
                MPI_T_pvar_readreset(si, hd, &v) == MPI_SUCCESS || MPI_T_pvar_start(si, hd) == MPI_SUCCESS ||
                MPI_T_pvar_stop(si, hd) == MPI_SUCCESS || MPI_T_pvar_reset(si, hd) == MPI_SUCCESS ||
                MPI_T_pvar_handle_free(si, &hd) == MPI_SUCCESS)
                mt_fail("pvars: a call on an invalid performance variable handle succeeded at iteration %ld", it);
        }
        ok(MPI_T_pvar_session_free(&si), "MPI_T_pvar_session_free", it);
        if (mt_done(&run, it)) {
            ok(MPI_T_pvar_session_free(&s1), "MPI_T_pvar_session_free", it);
            ok(MPI_T_finalize(), "MPI_T_finalize", it);
            mt_finish(&run, "pvars", it, h);
            break;
        }
    }
    return 0;
}
#endif
