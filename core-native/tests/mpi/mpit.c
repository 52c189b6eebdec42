/* mpit - the MPI tool interface across checkpoints: its initialization, the variable and category
 * queries, enum handles and control-variable handles, made before the first iteration and used in
 * every one (so a restart falls between their uses).
 *
 * Before the first iteration: MPI_T_init_thread, before MPI_Init (as a tool does: MPI_Init must
 * still succeed, and MPI_Initialized say false until it); the counts of control variables, performance
 * variables and categories; a control variable found by name (MPICH: MPIR_CVAR_BCAST_MIN_PROCS, Open
 * MPI: coll_tuned_allreduce_algorithm_tree_fanout: thresholds no collective of this program depends
 * on), its handle allocated and a new value written (its start-up value + 3); a second one (MPICH:
 * MPIR_CVAR_BCAST_SHORT_MSG_SIZE, Open MPI: coll_tuned_allreduce_algorithm_chain_fanout) written
 * through a handle freed at once (the library keeps the value); on Open MPI the enum of
 * coll_tuned_allreduce_algorithm (MPICH 4.0.2 has no control variable with an enum).  Every iteration:
 *   - the counts again (the same as at the start), MPI_T_cvar_get_index and MPI_T_pvar_get_index of
 *     names found at the start, the info of a few control and performance variables and categories
 *     (each name must give back its index), a category's members;
 *   - the written variable read through the handle made before the first iteration: it must still
 *     hold the value written (after a restart, the runtime wrote it again), and through a handle made
 *     and freed now; the second one too, through a handle made and freed now;
 *   - the enum's info and items through the handle got before the first iteration;
 *   - MPI_T_init_thread and MPI_T_finalize once more (nested in the first).
 * The values read and the enum's names and values go into the checksum (the same as a native run's);
 * which variable has which index is the library's business and is not compared with a native run
 * (Open MPI numbers them otherwise when MPI_T_init_thread comes first, natively, than under the
 * runtime, whose library is initialized before the program runs). */
#include "mpitest.h"

static void ok(int rc, const char *what, long it)
{
    if (rc != MPI_SUCCESS) mt_fail("mpit: %s failed (error %d) at iteration %ld", what, rc, it);
}

static uint64_t h = MT_HASH0;
static void hash_str(const char *s) { h = mt_hash(h, s, strlen(s)); }
static void hash_int(int v) { h = mt_hash(h, &v, sizeof v); }

/* Info of control variable i: its name in name, its enum in *en; its name must give back its index.
 * Open MPI refuses some indices (variables no longer there).  Nothing of it is hashed: which variable
 * has which index is the library's business (Open MPI numbers them otherwise when MPI_T_init_thread
 * comes before MPI_Init, as here natively, than under the runtime, whose library is initialized first). */
static void cvar_info(int i, char *name, MPI_T_enum *en, int *bind, long it)
{
    char desc[1024];
    int nl = 256, dl = sizeof desc, verb, scope;
    MPI_Datatype dt;
    *en = MPI_T_ENUM_NULL;
    int rc = MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, en, desc, &dl, bind, &scope);
    if (rc != MPI_SUCCESS) { *en = MPI_T_ENUM_NULL; return; }
    int back = -1, tsize = 0;
    ok(MPI_T_cvar_get_index(name, &back), "MPI_T_cvar_get_index", it);
    if (back != i) mt_fail("mpit: control variable %d (%s) has index %d by name at iteration %ld", i, name, back, it);
    ok(MPI_Type_size(dt, &tsize), "MPI_Type_size of a control variable's datatype", it);  /* the program's handle */
}

int main(int argc, char **argv)
{
    /* the tool interface first, as a tool does: MPI_Init must still work after it */
    int prov = -1, inited = -1;
    ok(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov), "MPI_T_init_thread", 0);
    MPI_Initialized(&inited);
    if (inited) mt_fail("mpit: MPI_Initialized says true after MPI_T_init_thread, before MPI_Init");
    struct mt_run run;
    mt_init(&run, &argc, &argv);          /* fails the test when MPI_Init fails */
    MPI_Initialized(&inited);
    if (!inited) mt_fail("mpit: MPI_Initialized says false after MPI_Init");
    int ncvar = 0, npvar = 0, ncat = 0;
    ok(MPI_T_cvar_get_num(&ncvar), "MPI_T_cvar_get_num", 0);
    ok(MPI_T_pvar_get_num(&npvar), "MPI_T_pvar_get_num", 0);
    ok(MPI_T_category_get_num(&ncat), "MPI_T_category_get_num", 0);
    if (ncvar < 1) mt_fail("mpit: this MPI has no control variables");
#ifdef OPEN_MPI
    const char *wname = "coll_tuned_allreduce_algorithm_tree_fanout";
#else
    const char *wname = "MPIR_CVAR_BCAST_MIN_PROCS";
#endif
    int wi = -1;
    ok(MPI_T_cvar_get_index(wname, &wi), "MPI_T_cvar_get_index", 0);
    MPI_T_cvar_handle wh;
    int cnt = 0, v0 = 0, want;
    ok(MPI_T_cvar_handle_alloc(wi, NULL, &wh, &cnt), "MPI_T_cvar_handle_alloc", 0);
    if (cnt != 1) mt_fail("mpit: %s has %d elements", wname, cnt);
    ok(MPI_T_cvar_read(wh, &v0), "MPI_T_cvar_read", 0);
    want = v0 + 3;
    ok(MPI_T_cvar_write(wh, &want), "MPI_T_cvar_write", 0);
    /* a second one written through a handle freed at once: the library keeps the value */
#ifdef OPEN_MPI
    const char *fname = "coll_tuned_allreduce_algorithm_chain_fanout";
#else
    const char *fname = "MPIR_CVAR_BCAST_SHORT_MSG_SIZE";
#endif
    int fi = -1, f0 = 0, fwant;
    MPI_T_cvar_handle fh;
    ok(MPI_T_cvar_get_index(fname, &fi), "MPI_T_cvar_get_index", 0);
    ok(MPI_T_cvar_handle_alloc(fi, NULL, &fh, &cnt), "MPI_T_cvar_handle_alloc", 0);
    ok(MPI_T_cvar_read(fh, &f0), "MPI_T_cvar_read", 0);
    fwant = f0 + 3;
    ok(MPI_T_cvar_write(fh, &fwant), "MPI_T_cvar_write", 0);
    ok(MPI_T_cvar_handle_free(&fh), "MPI_T_cvar_handle_free", 0);
    /* a control variable with an enum (Open MPI; MPICH 4.0.2 has none), its enum's handle kept for
     * every iteration */
    MPI_T_enum en = MPI_T_ENUM_NULL;
    char name[256];
#ifdef OPEN_MPI
    int ei = -1, ebind;
    ok(MPI_T_cvar_get_index("coll_tuned_allreduce_algorithm", &ei), "MPI_T_cvar_get_index (enum)", 0);
    cvar_info(ei, name, &en, &ebind, 0);
    if (en == MPI_T_ENUM_NULL) mt_fail("mpit: coll_tuned_allreduce_algorithm has no enum");
#endif
    /* a performance variable's name, for MPI_T_pvar_get_index */
    char pname[256] = "";
    int pclass = 0;
    if (npvar > 0) {
        char desc[1024];
        int nl = sizeof pname, dl = sizeof desc, verb, bind, ro, cont, at;
        MPI_Datatype dt;
        MPI_T_enum pen;
        ok(MPI_T_pvar_get_info(0, pname, &nl, &verb, &pclass, &dt, &pen, desc, &dl, &bind, &ro, &cont, &at),
           "MPI_T_pvar_get_info", 0);
    }

    for (long it = 1;; it++) {
        int n1, n2, n3;
        ok(MPI_T_cvar_get_num(&n1), "MPI_T_cvar_get_num", it);
        ok(MPI_T_pvar_get_num(&n2), "MPI_T_pvar_get_num", it);
        ok(MPI_T_category_get_num(&n3), "MPI_T_category_get_num", it);
        if (n1 != ncvar || n2 != npvar || n3 != ncat)
            mt_fail("mpit: counts %d %d %d, want %d %d %d at iteration %ld", n1, n2, n3, ncvar, npvar, ncat, it);
        int idx = -1;
        ok(MPI_T_cvar_get_index(wname, &idx), "MPI_T_cvar_get_index", it);
        if (idx != wi) mt_fail("mpit: %s is index %d, was %d at iteration %ld", wname, idx, wi, it);
        if (npvar > 0) {
            ok(MPI_T_pvar_get_index(pname, pclass, &idx), "MPI_T_pvar_get_index", it);
            if (idx != 0) mt_fail("mpit: performance variable %s is index %d, want 0 at iteration %ld", pname, idx, it);
        }
        for (int k = 0; k < 3; k++) {                   /* a few variables' info, another set each time */
            MPI_T_enum e2;
            int bind;
            cvar_info((int)((it * 7 + k * 131) % ncvar), name, &e2, &bind, it);
        }
        if (npvar > 0) {
            char pn[256], desc[1024];
            int nl = sizeof pn, dl = sizeof desc, verb, cls, bind, ro, cont, at;
            MPI_Datatype dt;
            MPI_T_enum pen;
            int rc = MPI_T_pvar_get_info((int)(it % npvar), pn, &nl, &verb, &cls, &dt, &pen, desc, &dl, &bind, &ro,
                                         &cont, &at);
            if (rc == MPI_SUCCESS) {
                int back = -1;
                ok(MPI_T_pvar_get_index(pn, cls, &back), "MPI_T_pvar_get_index", it);
                if (back != (int)(it % npvar)) mt_fail("mpit: performance variable %s has index %d by name", pn, back);
            }
        }
        if (ncat > 0) {
            char cn[256], desc[1024];
            int nl = sizeof cn, dl = sizeof desc, nc, np, nsub, ci = (int)(it % ncat), cidx = -1;
            int rc = MPI_T_category_get_info(ci, cn, &nl, desc, &dl, &nc, &np, &nsub);
            if (rc != MPI_SUCCESS) goto no_category;     /* Open MPI refuses some indices, natively too */
            ok(MPI_T_category_get_index(cn, &cidx), "MPI_T_category_get_index", it);
            if (cidx != ci) mt_fail("mpit: category %s is index %d, want %d at iteration %ld", cn, cidx, ci, it);
            int members[64];
            if (nc > 0) ok(MPI_T_category_get_cvars(ci, nc < 64 ? nc : 64, members), "MPI_T_category_get_cvars", it);
            if (np > 0) ok(MPI_T_category_get_pvars(ci, np < 64 ? np : 64, members), "MPI_T_category_get_pvars", it);
            if (nsub > 0) ok(MPI_T_category_get_categories(ci, nsub < 64 ? nsub : 64, members), "MPI_T_category_get_categories", it);
        }
    no_category:
        if (ncat > 0) {
            int stamp;
            ok(MPI_T_category_changed(&stamp), "MPI_T_category_changed", it);
        }
        /* the written value, through the old handle and a new one */
        int v = -1;
        ok(MPI_T_cvar_read(wh, &v), "MPI_T_cvar_read", it);
        if (v != want) mt_fail("mpit: %s reads %d, written %d at iteration %ld", wname, v, want, it);
        MPI_T_cvar_handle nh;
        ok(MPI_T_cvar_handle_alloc(wi, NULL, &nh, &cnt), "MPI_T_cvar_handle_alloc", it);
        v = -1;
        ok(MPI_T_cvar_read(nh, &v), "MPI_T_cvar_read", it);
        if (v != want) mt_fail("mpit: %s reads %d through a new handle, written %d at iteration %ld", wname, v, want, it);
        ok(MPI_T_cvar_handle_free(&nh), "MPI_T_cvar_handle_free", it);
        hash_int(v);
        ok(MPI_T_cvar_handle_alloc(fi, NULL, &nh, &cnt), "MPI_T_cvar_handle_alloc", it);
        v = -1;
        ok(MPI_T_cvar_read(nh, &v), "MPI_T_cvar_read", it);
        if (v != fwant) mt_fail("mpit: %s reads %d, written %d through a freed handle at iteration %ld", fname, v, fwant, it);
        ok(MPI_T_cvar_handle_free(&nh), "MPI_T_cvar_handle_free", it);
        hash_int(v);
        /* the enum got before the first iteration */
        if (en != MPI_T_ENUM_NULL) {
            int num = 0, nl = sizeof name;
            ok(MPI_T_enum_get_info(en, &num, name, &nl), "MPI_T_enum_get_info", it);
            hash_str(name);
            for (int k = 0; k < num && k < 8; k++) {
                int value;
                nl = sizeof name;
                ok(MPI_T_enum_get_item(en, k, &value, name, &nl), "MPI_T_enum_get_item", it);
                hash_str(name);
                hash_int(value);
            }
        }
        ok(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov), "MPI_T_init_thread (nested)", it);
        ok(MPI_T_finalize(), "MPI_T_finalize (nested)", it);
        if (mt_done(&run, it)) {
            ok(MPI_T_cvar_write(wh, &v0), "MPI_T_cvar_write (back)", it);
            ok(MPI_T_cvar_handle_alloc(fi, NULL, &fh, &cnt), "MPI_T_cvar_handle_alloc", it);
            ok(MPI_T_cvar_write(fh, &f0), "MPI_T_cvar_write (back)", it);
            ok(MPI_T_cvar_handle_free(&fh), "MPI_T_cvar_handle_free", it);
            ok(MPI_T_cvar_handle_free(&wh), "MPI_T_cvar_handle_free", it);
            ok(MPI_T_finalize(), "MPI_T_finalize", it);
            mt_finish(&run, "mpit", it, h);
            break;
        }
    }
    return 0;
}
