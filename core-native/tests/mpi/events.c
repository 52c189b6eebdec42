/* events - MPI 4.0's tool-interface events (MPI_T_event_*, MPI_T_source_*, MPI_T_category_get_num_events
 * and _get_events) across checkpoints.  MPICH 4.0 exports them, Open MPI 4.1 does not (registered for
 * MPICH only); MPICH 4.0.2 has no events and no sources, so what a program can rely on is that every
 * query answers as the library does: counts of 0, every index refused with MPI_T_ERR_INVALID_INDEX,
 * every name with MPI_T_ERR_INVALID_NAME, every category without events.
 *
 * Every iteration (so a restart falls between them, and the restarted library answers): the counts of
 * events and sources, an event's index by name, a category's events, a source's info and timestamp, an
 * event type's info, and a handle of an event type: the return codes and counts go into the checksum (the
 * same as a native run's).  Under the runtime only (natively these would act on a registration or an
 * instance that does not exist): the calls on event registrations and instances fail with
 * MPI_T_ERR_INVALID_HANDLE (the runtime hands out none: policy.tsv). */
#include "mpitest.h"

#if MPI_VERSION >= 4

static uint64_t h = MT_HASH0;
static void hash_i(int v) { h = mt_hash(h, &v, sizeof v); }

static void ok(int rc, const char *what, long it)
{
    if (rc != MPI_SUCCESS) mt_fail("events: %s failed (error %d) at iteration %ld", what, rc, it);
}

/* rc must be the library's refusal of an index (or name) */
static void refused(int rc, int want, const char *what, long it)
{
    if (rc != want) mt_fail("events: %s gave %d, want %d at iteration %ld", what, rc, want, it);
    hash_i(rc);
}

int main(int argc, char **argv)
{
    int prov;
    ok(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov), "MPI_T_init_thread", 0);
    struct mt_run run;
    mt_init(&run, &argc, &argv);
    int under = getenv("MANA_CKPT_DIR") != NULL;          /* under the runtime (mana_launch sets it) */
    int nev = -1, nsrc = -1, ncat = 0;
    ok(MPI_T_event_get_num(&nev), "MPI_T_event_get_num", 0);
    ok(MPI_T_source_get_num(&nsrc), "MPI_T_source_get_num", 0);
    ok(MPI_T_category_get_num(&ncat), "MPI_T_category_get_num", 0);
    if (nev != 0 || nsrc != 0)
        mt_fail("events: this MPICH has %d events and %d sources: the test expects MPICH 4.0.2's none", nev, nsrc);
    if (ncat < 1) mt_fail("events: no categories");
    for (long it = 1;; it++) {
        int n1 = -1, n2 = -1, idx = -1;
        ok(MPI_T_event_get_num(&n1), "MPI_T_event_get_num", it);
        ok(MPI_T_source_get_num(&n2), "MPI_T_source_get_num", it);
        if (n1 != nev || n2 != nsrc) mt_fail("events: %d events, %d sources at iteration %ld", n1, n2, it);
        hash_i(n1);
        hash_i(n2);
        refused(MPI_T_event_get_index("mpi_no_such_event", &idx), MPI_T_ERR_INVALID_NAME, "MPI_T_event_get_index", it);
        /* a category's events: none */
        int ci = (int)(it % ncat), ne = -1, evs[4];
        ok(MPI_T_category_get_num_events(ci, &ne), "MPI_T_category_get_num_events", it);
        if (ne != 0) mt_fail("events: category %d has %d events", ci, ne);
        ok(MPI_T_category_get_events(ci, 4, evs), "MPI_T_category_get_events", it);
        refused(MPI_T_category_get_num_events(ncat + 3, &ne), MPI_T_ERR_INVALID_INDEX,
                "MPI_T_category_get_num_events of no category", it);
        /* sources and event types: every index refused */
        int k = (int)(it % 3);
        MPI_Count ts = 0, tps = 0, mt = 0;
        char name[64], desc[64];
        int nl = sizeof name, dl = sizeof desc, verb, bind, nel = 4;
        MPI_T_source_order ord;
        MPI_Info info = MPI_INFO_NULL;
        MPI_Datatype dts[4];
        MPI_Aint disp[4];
        MPI_T_enum en;
        refused(MPI_T_source_get_timestamp(k, &ts), MPI_T_ERR_INVALID_INDEX, "MPI_T_source_get_timestamp", it);
        refused(MPI_T_source_get_info(k, name, &nl, desc, &dl, &ord, &tps, &mt, &info), MPI_T_ERR_INVALID_INDEX,
                "MPI_T_source_get_info", it);
        refused(MPI_T_event_get_info(k, name, &nl, &verb, dts, disp, &nel, &en, &info, desc, &dl, &bind),
                MPI_T_ERR_INVALID_INDEX, "MPI_T_event_get_info", it);
        MPI_T_event_registration reg;
        /* mana-lint: ignore MPI_T_event_handle_alloc (partial: the refusals are the test) */
        refused(MPI_T_event_handle_alloc(k, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX,
                "MPI_T_event_handle_alloc", it);
        if (under) {           /* no registration or instance exists: every call on one is refused */
            MPI_T_event_registration none = (MPI_T_event_registration)0;
            MPI_T_event_instance inst = (MPI_T_event_instance)0;
            MPI_Info used;
            int src, buf[4];
            int rcs[11] = {
                /* mana-lint: ignore MPI_T_event_handle_get_info (partial: the refusals are the test) */
                MPI_T_event_handle_get_info(none, &used),
                /* mana-lint: ignore MPI_T_event_handle_set_info (partial: the refusals are the test) */
                MPI_T_event_handle_set_info(none, MPI_INFO_NULL),
                /* mana-lint: ignore MPI_T_event_register_callback (partial: the refusals are the test) */
                MPI_T_event_register_callback(none, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, NULL),
                /* mana-lint: ignore MPI_T_event_callback_get_info (partial: the refusals are the test) */
                MPI_T_event_callback_get_info(none, MPI_T_CB_REQUIRE_NONE, &used),
                /* mana-lint: ignore MPI_T_event_callback_set_info (partial: the refusals are the test) */
                MPI_T_event_callback_set_info(none, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL),
                /* mana-lint: ignore MPI_T_event_set_dropped_handler (partial: the refusals are the test) */
                MPI_T_event_set_dropped_handler(none, NULL),
                /* mana-lint: ignore MPI_T_event_read (partial: the refusals are the test) */
                MPI_T_event_read(inst, 0, buf),
                /* mana-lint: ignore MPI_T_event_copy (partial: the refusals are the test) */
                MPI_T_event_copy(inst, buf),
                /* mana-lint: ignore MPI_T_event_get_timestamp (partial: the refusals are the test) */
                MPI_T_event_get_timestamp(inst, &ts),
                /* mana-lint: ignore MPI_T_event_get_source (partial: the refusals are the test) */
                MPI_T_event_get_source(inst, &src),
                /* mana-lint: ignore MPI_T_event_handle_free (partial: the refusals are the test) */
                MPI_T_event_handle_free(none, NULL, NULL),
            };
            for (int i = 0; i < 11; i++)
                if (rcs[i] != MPI_T_ERR_INVALID_HANDLE)
                    mt_fail("events: call %d on no registration or instance gave %d, want MPI_T_ERR_INVALID_HANDLE", i, rcs[i]);
        }
        if (mt_done(&run, it)) {
            ok(MPI_T_finalize(), "MPI_T_finalize", it);
            mt_finish(&run, "events", it, h);
            break;
        }
    }
    return 0;
}

#else
int main(void)
{
    fprintf(stderr, "events: needs MPI 4.0's tool-interface events (MPICH 4.0 has them)\n");
    return 77;
}
#endif
