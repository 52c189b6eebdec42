/* calls_env - the environment calls no other checkpointed program makes, each called every iteration (so
 * checkpoints fall between them) and each result checked:
 *   state      MPI_Initialized, MPI_Finalized, MPI_Is_thread_main, MPI_Get_version against the header's
 *              MPI_VERSION, MPI_Get_library_version (the MPI the header names), MPI_Get_processor_name
 *              (this host's name), MPI_Pcontrol;
 *   clocks     MPI_Wtick, and MPI_Wtime across local work and from one iteration to the next: the
 *              standard fixes its origin for the life of the process, so a restart must not move it back;
 *   handlers   MPI_Win_create_errhandler, MPI_File_create_errhandler (made and freed; no window or file);
 *   keyvals    MPI_Win_create_keyval, MPI_Win_free_keyval;
 *   info       (MPI 4.0 only) MPI_Info_get_string (the length asked first, then the value) and
 *              MPI_Info_create_env.
 * The checksum covers what does not depend on the host or the time. */
#include "mpitest.h"

static void win_handler(MPI_Win *win, int *code, ...) { (void)win; (void)code; mt_fail("the window error handler ran"); }
static void file_handler(MPI_File *f, int *code, ...) { (void)f; (void)code; mt_fail("the file error handler ran"); }

int main(int argc, char **argv)
{
    int argc0 = argc;
    char **argv0 = argv;
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
#if defined(OPEN_MPI)
    const char *lib = "Open MPI";
#elif defined(MPICH_VERSION)
    const char *lib = "MPICH";
#else
    const char *lib = "";
#endif
    double last = MPI_Wtime();
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        int flag = -1, fin = -1, mainth = -1, ver = -1, sub = -1, len = -1;
        MPI_Initialized(&flag);
        MPI_Finalized(&fin);
        MPI_Is_thread_main(&mainth);
        if (flag != 1 || fin != 0 || mainth != 1) mt_fail("Initialized %d, Finalized %d, Is_thread_main %d", flag, fin, mainth);
        MPI_Get_version(&ver, &sub);
        if (ver != MPI_VERSION || sub != MPI_SUBVERSION) mt_fail("Get_version: %d.%d, the header says %d.%d", ver, sub, MPI_VERSION, MPI_SUBVERSION);
        char lv[MPI_MAX_LIBRARY_VERSION_STRING];
        MPI_Get_library_version(lv, &len);
        /* (Open MPI 4.1 counts the terminating null, MPICH does not) */
        if (len <= 0 || len > MPI_MAX_LIBRARY_VERSION_STRING || ((size_t)len != strlen(lv) && (size_t)len != strlen(lv) + 1) ||
            !strstr(lv, lib))
            mt_fail("Get_library_version: %d '%.60s'", len, lv);
        char pn[MPI_MAX_PROCESSOR_NAME];
        MPI_Get_processor_name(pn, &len);
        if (len <= 0 || (size_t)len != strlen(pn) || strcmp(pn, host) != 0)
            mt_fail("Get_processor_name: '%s' (%d), the host is '%s'", pn, len, host);
        if (MPI_Pcontrol((int)(it % 3)) != MPI_SUCCESS) mt_fail("Pcontrol failed");
        h = mt_hash(h, &ver, sizeof ver);
        h = mt_hash(h, &sub, sizeof sub);

        /* the clock: its resolution, its progress over local work, never backwards */
        double tick = MPI_Wtick(), t0 = MPI_Wtime();
        if (!(tick > 0 && tick <= 1.0)) mt_fail("Wtick: %g", tick);
        usleep(1000);
        double t1 = MPI_Wtime();
        if (t0 < last || t1 - t0 < 0.0009) mt_fail("Wtime: %.6f then %.6f then %.6f (went back or stood still)", last, t0, t1);
        last = t1;

        /* error handlers for windows and files: made and freed */
        MPI_Errhandler weh = MPI_ERRHANDLER_NULL, feh = MPI_ERRHANDLER_NULL;
        MPI_Win_create_errhandler(win_handler, &weh);
        MPI_File_create_errhandler(file_handler, &feh);
        if (weh == MPI_ERRHANDLER_NULL || feh == MPI_ERRHANDLER_NULL || weh == feh) mt_fail("Win/File_create_errhandler");
        MPI_Errhandler_free(&weh);
        MPI_Errhandler_free(&feh);
        if (weh != MPI_ERRHANDLER_NULL || feh != MPI_ERRHANDLER_NULL) mt_fail("Errhandler_free did not null the handles");

        /* window keyvals: made and freed */
        int wk = MPI_KEYVAL_INVALID, wk2 = MPI_KEYVAL_INVALID;
        MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wk, NULL);
        MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &wk2, &h);
        if (wk == MPI_KEYVAL_INVALID || wk2 == MPI_KEYVAL_INVALID || wk == wk2) mt_fail("Win_create_keyval: %d %d", wk, wk2);
        MPI_Win_free_keyval(&wk);
        MPI_Win_free_keyval(&wk2);
        if (wk != MPI_KEYVAL_INVALID || wk2 != MPI_KEYVAL_INVALID) mt_fail("Win_free_keyval: %d %d", wk, wk2);

#if MPI_VERSION >= 4
        /* MPI_Info_get_string: the length first (buflen 0), then the value, then a value cut short */
        MPI_Info info;
        MPI_Info_create(&info);
        char val[64], want[64];
        snprintf(want, sizeof want, "value-%ld-of-rank-%d", it, r.rank);
        MPI_Info_set(info, "mana_calls_key", want);
        int buflen = 0;
        flag = 0;
        MPI_Info_get_string(info, "mana_calls_key", &buflen, val, &flag);
        if (!flag || buflen != (int)strlen(want) + 1) mt_fail("Info_get_string: flag %d length %d, want %d", flag, buflen, (int)strlen(want) + 1);
        buflen = sizeof val;
        MPI_Info_get_string(info, "mana_calls_key", &buflen, val, &flag);
        if (!flag || strcmp(val, want) != 0 || buflen != (int)strlen(want) + 1) mt_fail("Info_get_string: '%s' (%d)", val, buflen);
        buflen = 6;
        MPI_Info_get_string(info, "mana_calls_key", &buflen, val, &flag);
        if (!flag || strcmp(val, "value") != 0 || buflen != (int)strlen(want) + 1) mt_fail("Info_get_string, cut short: '%s' (%d)", val, buflen);
        buflen = sizeof val;
        MPI_Info_get_string(info, "mana_no_such_key", &buflen, val, &flag);
        if (flag) mt_fail("Info_get_string: found a key never set");
        MPI_Info_free(&info);
        h = mt_hash(h, want, strlen(want));

        /* MPI_Info_create_env: an info object of the environment; whatever it holds reads back whole */
        MPI_Info env;
        MPI_Info_create_env(argc0, argv0, &env);
        int nk = -1;
        MPI_Info_get_nkeys(env, &nk);
        if (nk < 0) mt_fail("Info_create_env: %d keys", nk);
        for (int k = 0; k < nk; k++) {
            char key[MPI_MAX_INFO_KEY + 1];
            MPI_Info_get_nthkey(env, k, key);
            buflen = 0;
            MPI_Info_get_string(env, key, &buflen, val, &flag);
            if (!flag || buflen <= 0) mt_fail("Info_create_env: key '%s' reads back %d %d", key, flag, buflen);
        }
        MPI_Info_free(&env);
#else
        (void)argc0;
        (void)argv0;
#endif
    } while (!mt_done(&r, it));
    mt_finish(&r, "calls_env", it, h);
    return 0;
}
