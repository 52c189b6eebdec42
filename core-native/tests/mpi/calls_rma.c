/* calls_rma - every one-sided function the runtime wraps, called every iteration (so checkpoints fall
 * between any two of them) and each result checked.  rma_fence.c, rma_counter.c and rma_dyn.c are the
 * scenario tests; this one is the coverage.
 *
 * Every iteration makes three windows (MPI_Win_create on the program's memory, MPI_Win_allocate and
 * MPI_Win_create_dynamic with an attachment), queries and names them, sets and reads attributes, info
 * and error handlers, moves data with every communication call in fence and passive-target epochs
 * (Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap, the request forms and the
 * large-count twins), synchronizes with every flush, then frees all three.  A window that outlives the
 * iterations (MPI_Win_create, locked with lock_all across the whole run) carries the epoch through
 * every checkpoint. */
#include "mpitest.h"

#define N 16

static int handler_calls;
static void win_handler(MPI_Win *w, int *code, ...) { (void)w; (void)code; handler_calls++; }
static int deleted;
static int del_fn(MPI_Win w, int kv, void *val, void *extra) { (void)w; (void)kv; (void)val; (void)extra; deleted++; return MPI_SUCCESS; }

static long it;
static void ok(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int n = 0;
        MPI_Error_string(rc, s, &n);
        mt_fail("%s failed at iteration %ld: %s", what, it, s);
    }
}
static void want_l(long got, long want, const char *what)
{
    if (got != want) mt_fail("%s: %ld, want %ld, at iteration %ld", what, got, want, it);
}

int main(int argc, char **argv)
{
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;
    /* the long-lived window: a counter per rank, updated under one lock_all epoch for the whole run */
    long *cnt = calloc(1, sizeof *cnt);
    MPI_Win life;
    ok(MPI_Win_create(cnt, sizeof *cnt, sizeof *cnt, MPI_INFO_NULL, MPI_COMM_WORLD, &life), "MPI_Win_create life");
    ok(MPI_Win_lock_all(MPI_MODE_NOCHECK, life), "MPI_Win_lock_all life");
    MPI_Errhandler eh;
    ok(MPI_Win_create_errhandler(win_handler, &eh), "MPI_Win_create_errhandler");
    uint64_t h = MT_HASH0;
    long *mem = calloc(N, sizeof *mem), *dbuf = calloc(N, sizeof *dbuf);
    do {
        it++;
        long one = 1, got = -1;
        ok(MPI_Fetch_and_op(&one, &got, MPI_LONG, right, 0, MPI_SUM, life), "MPI_Fetch_and_op life");
        ok(MPI_Win_flush(right, life), "MPI_Win_flush life");
        want_l(got, it - 1, "life counter");

        /* ---- three windows ---- */
        for (int k = 0; k < N; k++) mem[k] = it * 100 + r.rank * 10 + k;
        MPI_Win wc, wa, wd;
        long *am = NULL;
        MPI_Info info;
        ok(MPI_Info_create(&info), "MPI_Info_create");
        ok(MPI_Info_set(info, "no_locks", "false"), "MPI_Info_set");
        ok(MPI_Win_create(mem, N * sizeof *mem, sizeof *mem, info, MPI_COMM_WORLD, &wc), "MPI_Win_create");
        ok(MPI_Win_allocate(N * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &am, &wa), "MPI_Win_allocate");
        ok(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wd), "MPI_Win_create_dynamic");
        ok(MPI_Win_attach(wd, dbuf, N * sizeof *dbuf), "MPI_Win_attach");
        MPI_Info_free(&info);
        for (int k = 0; k < N; k++) am[k] = -(it * 100 + r.rank * 10 + k);

        /* ---- attributes, names, group, info, error handlers ---- */
        void *vp;
        int flag = 0;
        ok(MPI_Win_get_attr(wc, MPI_WIN_BASE, &vp, &flag), "MPI_Win_get_attr base");
        if (!flag || vp != mem) mt_fail("MPI_WIN_BASE is not the program's memory at iteration %ld", it);
        MPI_Aint *sz;
        ok(MPI_Win_get_attr(wa, MPI_WIN_SIZE, &sz, &flag), "MPI_Win_get_attr size");
        want_l(flag ? (long)*sz : -1, N * (long)sizeof(long), "MPI_WIN_SIZE");
        int *du, *fl, *model;
        ok(MPI_Win_get_attr(wa, MPI_WIN_DISP_UNIT, &du, &flag), "MPI_Win_get_attr disp_unit");
        want_l(flag ? *du : -1, sizeof(long), "MPI_WIN_DISP_UNIT");
        ok(MPI_Win_get_attr(wd, MPI_WIN_CREATE_FLAVOR, &fl, &flag), "MPI_Win_get_attr flavor");
        want_l(flag ? *fl : -1, MPI_WIN_FLAVOR_DYNAMIC, "MPI_WIN_CREATE_FLAVOR");
        ok(MPI_Win_get_attr(wc, MPI_WIN_MODEL, &model, &flag), "MPI_Win_get_attr model");
        if (!flag || (*model != MPI_WIN_SEPARATE && *model != MPI_WIN_UNIFIED)) mt_fail("MPI_WIN_MODEL at iteration %ld", it);
        int kv;
        ok(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &kv, NULL), "MPI_Win_create_keyval");
        static int val = 42;
        int *pv;
        ok(MPI_Win_set_attr(wc, kv, &val), "MPI_Win_set_attr");
        ok(MPI_Win_get_attr(wc, kv, &pv, &flag), "MPI_Win_get_attr user");
        if (!flag || pv != &val) mt_fail("user attribute lost at iteration %ld", it);
        int before = deleted;
        ok(MPI_Win_delete_attr(wc, kv), "MPI_Win_delete_attr");
        want_l(deleted, before + 1, "delete callbacks");
        ok(MPI_Win_set_attr(wa, kv, &val), "MPI_Win_set_attr wa");     /* deleted by MPI_Win_free */
        ok(MPI_Win_free_keyval(&kv), "MPI_Win_free_keyval");
        char name[MPI_MAX_OBJECT_NAME];
        int len = 0;
        ok(MPI_Win_set_name(wc, "calls_rma window"), "MPI_Win_set_name");
        ok(MPI_Win_get_name(wc, name, &len), "MPI_Win_get_name");
        if (strcmp(name, "calls_rma window") != 0 || len != (int)strlen(name)) mt_fail("MPI_Win_get_name gave '%s'", name);
        MPI_Group g;
        int gs = 0;
        ok(MPI_Win_get_group(wa, &g), "MPI_Win_get_group");
        MPI_Group_size(g, &gs);
        want_l(gs, r.size, "window group size");
        MPI_Group_free(&g);
        MPI_Info used;
        MPI_Info si;
        MPI_Info_create(&si);
        MPI_Info_set(si, "accumulate_ordering", "none");
        ok(MPI_Win_set_info(wd, si), "MPI_Win_set_info");
        MPI_Info_free(&si);
        ok(MPI_Win_get_info(wc, &used), "MPI_Win_get_info");
        MPI_Info_free(&used);
        MPI_Errhandler e2;
        ok(MPI_Win_set_errhandler(wc, eh), "MPI_Win_set_errhandler");
        ok(MPI_Win_get_errhandler(wc, &e2), "MPI_Win_get_errhandler");
        if (e2 != eh) mt_fail("MPI_Win_get_errhandler gave another handler at iteration %ld", it);
        MPI_Errhandler_free(&e2);
        before = handler_calls;
        ok(MPI_Win_call_errhandler(wc, MPI_ERR_OTHER), "MPI_Win_call_errhandler");
        want_l(handler_calls, before + 1, "window error handler calls");
#ifdef OPEN_MPI
        MPI_Fint fw = MPI_Win_c2f(wc);
        if (MPI_Win_f2c(fw) != wc) mt_fail("MPI_Win_f2c(MPI_Win_c2f(w)) is another window");
#endif

        /* ---- active target: fence epochs on wc and wa ---- */
        long in[4] = { -1, -1, -1, -1 }, acc = it, gacc = -1, cas_old = -1, cmp, nv;
        ok(MPI_Win_fence(0, wc), "MPI_Win_fence open");
        ok(MPI_Win_fence(0, wa), "MPI_Win_fence wa open");
        ok(MPI_Get(&in[0], 1, MPI_LONG, right, 1, 1, MPI_LONG, wc), "MPI_Get");
        ok(MPI_Put(&acc, 1, MPI_LONG, right, 2, 1, MPI_LONG, wa), "MPI_Put");
        ok(MPI_Accumulate(&acc, 1, MPI_LONG, right, 3, 1, MPI_LONG, MPI_SUM, wc), "MPI_Accumulate");
        ok(MPI_Win_fence(0, wc), "MPI_Win_fence");
        ok(MPI_Win_fence(0, wa), "MPI_Win_fence wa");
        want_l(in[0], it * 100 + right * 10 + 1, "MPI_Get");
        want_l(am[2], it, "MPI_Put");
        want_l(mem[3], it * 100 + r.rank * 10 + 3 + it, "MPI_Accumulate");
        ok(MPI_Win_fence(MPI_MODE_NOSUCCEED, wc), "MPI_Win_fence close");
        ok(MPI_Win_fence(MPI_MODE_NOSUCCEED, wa), "MPI_Win_fence wa close");

        /* ---- passive target on wc: lock / unlock and every flush ---- */
        MPI_Barrier(MPI_COMM_WORLD);
        ok(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, wc), "MPI_Win_lock");  /* mana-lint: ignore MPI_Win_lock (no rank waits for an exclusive lock another holds) */
        ok(MPI_Get_accumulate(&acc, 1, MPI_LONG, &gacc, 1, MPI_LONG, right, 4, 1, MPI_LONG, MPI_SUM, wc), "MPI_Get_accumulate");
        ok(MPI_Win_flush_local(right, wc), "MPI_Win_flush_local");
        ok(MPI_Win_flush(right, wc), "MPI_Win_flush");
        want_l(gacc, it * 100 + right * 10 + 4, "MPI_Get_accumulate");
        cmp = it * 100 + right * 10 + 5;
        nv = -5;
        ok(MPI_Compare_and_swap(&nv, &cmp, &cas_old, MPI_LONG, right, 5, wc), "MPI_Compare_and_swap");
        ok(MPI_Win_unlock(right, wc), "MPI_Win_unlock");
        want_l(cas_old, cmp, "MPI_Compare_and_swap");
        MPI_Barrier(MPI_COMM_WORLD);
        want_l(mem[5], -5, "swapped");
        want_l(mem[4], it * 100 + r.rank * 10 + 4 + it, "accumulated");

        /* ---- passive target on wd (dynamic) and wa: lock_all, request forms, flush_all, sync ---- */
        MPI_Aint mine, there;
        MPI_Get_address(dbuf, &mine);
        MPI_Sendrecv(&mine, 1, MPI_AINT, left, 0, &there, 1, MPI_AINT, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ok(MPI_Win_lock_all(0, wd), "MPI_Win_lock_all");
        ok(MPI_Win_lock_all(0, wa), "MPI_Win_lock_all wa");
        MPI_Request q[4];
        long rput = it * 3, rget = -1, racc = 1, rgacc = -1;
        ok(MPI_Rput(&rput, 1, MPI_LONG, right, there, 1, MPI_LONG, wd, &q[0]), "MPI_Rput");
        ok(MPI_Rget(&rget, 1, MPI_LONG, right, 6, 1, MPI_LONG, wa, &q[1]), "MPI_Rget");
        ok(MPI_Raccumulate(&racc, 1, MPI_LONG, right, 7, 1, MPI_LONG, MPI_SUM, wa, &q[2]), "MPI_Raccumulate");
        ok(MPI_Waitall(3, q, MPI_STATUSES_IGNORE), "MPI_Waitall rma");
        ok(MPI_Win_flush_all(wa), "MPI_Win_flush_all");
        ok(MPI_Rget_accumulate(&racc, 1, MPI_LONG, &rgacc, 1, MPI_LONG, right, 7, 1, MPI_LONG, MPI_SUM, wa, &q[3]),
           "MPI_Rget_accumulate");
        ok(MPI_Wait(&q[3], MPI_STATUS_IGNORE), "MPI_Wait rget_accumulate");
        ok(MPI_Win_flush_local_all(wd), "MPI_Win_flush_local_all");
        ok(MPI_Win_flush_all(wd), "MPI_Win_flush_all wd");
        ok(MPI_Win_sync(wa), "MPI_Win_sync");
        want_l(rget, -(it * 100 + right * 10 + 6), "MPI_Rget");
        want_l(rgacc, -(it * 100 + right * 10 + 7) + 1, "MPI_Rget_accumulate");
#if MPI_VERSION >= 4
        long c_in = -1, c_out = it * 9, c_gacc = -1;
        MPI_Request cq[4];
        ok(MPI_Put_c(&c_out, 1, MPI_LONG, right, 8, 1, MPI_LONG, wa), "MPI_Put_c");
        ok(MPI_Win_flush(right, wa), "MPI_Win_flush wa");
        ok(MPI_Get_c(&c_in, 1, MPI_LONG, right, 8, 1, MPI_LONG, wa), "MPI_Get_c");
        ok(MPI_Accumulate_c(&one, 1, MPI_LONG, right, 9, 1, MPI_LONG, MPI_SUM, wa), "MPI_Accumulate_c");
        ok(MPI_Win_flush(right, wa), "MPI_Win_flush wa 2");
        ok(MPI_Get_accumulate_c(&one, 1, MPI_LONG, &c_gacc, 1, MPI_LONG, right, 9, 1, MPI_LONG, MPI_SUM, wa), "MPI_Get_accumulate_c");
        long c_r[4] = { it, -1, 1, -1 };
        ok(MPI_Rput_c(&c_r[0], 1, MPI_LONG, right, 10, 1, MPI_LONG, wa, &cq[0]), "MPI_Rput_c");
        ok(MPI_Rget_c(&c_r[1], 1, MPI_LONG, right, 11, 1, MPI_LONG, wa, &cq[1]), "MPI_Rget_c");
        ok(MPI_Raccumulate_c(&c_r[2], 1, MPI_LONG, right, 12, 1, MPI_LONG, MPI_SUM, wa, &cq[2]), "MPI_Raccumulate_c");
        ok(MPI_Rget_accumulate_c(&c_r[2], 1, MPI_LONG, &c_r[3], 1, MPI_LONG, right, 13, 1, MPI_LONG, MPI_SUM, wa, &cq[3]),
           "MPI_Rget_accumulate_c");
        ok(MPI_Waitall(4, cq, MPI_STATUSES_IGNORE), "MPI_Waitall _c");
        ok(MPI_Win_flush_all(wa), "MPI_Win_flush_all _c");
        want_l(c_in, it * 9, "MPI_Get_c");
        want_l(c_gacc, -(it * 100 + right * 10 + 9) + 1, "MPI_Get_accumulate_c");
        want_l(c_r[1], -(it * 100 + right * 10 + 11), "MPI_Rget_c");
        want_l(c_r[3], -(it * 100 + right * 10 + 13), "MPI_Rget_accumulate_c");
        h = mt_hash(h, c_r, sizeof c_r);
        /* the large-count constructors: a window on the program's memory and an allocated one */
        MPI_Win wcc, wac;
        long *acm = NULL, cval = -1;
        ok(MPI_Win_create_c(mem, N * sizeof *mem, (MPI_Aint)sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &wcc), "MPI_Win_create_c");
        ok(MPI_Win_allocate_c(N * sizeof(long), (MPI_Aint)sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &acm, &wac),
           "MPI_Win_allocate_c");
        acm[0] = it * 11 + r.rank;
        MPI_Barrier(MPI_COMM_WORLD);
        ok(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, wac), "MPI_Win_lock wac");  /* mana-lint: ignore MPI_Win_lock (no rank waits for an exclusive lock another holds) */
        ok(MPI_Get(&cval, 1, MPI_LONG, right, 0, 1, MPI_LONG, wac), "MPI_Get wac");
        ok(MPI_Win_unlock(right, wac), "MPI_Win_unlock wac");
        want_l(cval, it * 11 + right, "MPI_Win_allocate_c memory");
        ok(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, wcc), "MPI_Win_lock wcc");  /* mana-lint: ignore MPI_Win_lock (no rank waits for an exclusive lock another holds) */
        ok(MPI_Get(&cval, 1, MPI_LONG, right, 1, 1, MPI_LONG, wcc), "MPI_Get wcc");
        ok(MPI_Win_unlock(right, wcc), "MPI_Win_unlock wcc");
        want_l(cval, it * 100 + right * 10 + 1, "MPI_Win_create_c memory");
        MPI_Barrier(MPI_COMM_WORLD);
        ok(MPI_Win_free(&wac), "MPI_Win_free wac");
        ok(MPI_Win_free(&wcc), "MPI_Win_free wcc");
#endif
        ok(MPI_Win_unlock_all(wa), "MPI_Win_unlock_all wa");
        ok(MPI_Win_unlock_all(wd), "MPI_Win_unlock_all");
        MPI_Barrier(MPI_COMM_WORLD);
        want_l(dbuf[0], it * 3, "MPI_Rput");
        want_l(am[7], -(it * 100 + r.rank * 10 + 7) + 2, "MPI_Raccumulate + MPI_Rget_accumulate");
        h = mt_hash(h, mem, N * sizeof *mem);
        h = mt_hash(h, am, N * sizeof *am);
        h = mt_hash(h, dbuf, N * sizeof *dbuf);

        /* ---- free ---- */
        before = deleted;
        ok(MPI_Win_detach(wd, dbuf), "MPI_Win_detach");
        ok(MPI_Win_free(&wd), "MPI_Win_free dynamic");
        ok(MPI_Win_free(&wa), "MPI_Win_free allocated");
        want_l(deleted, before + 1, "delete callbacks on free");
        ok(MPI_Win_free(&wc), "MPI_Win_free");
        if (wc != MPI_WIN_NULL || wa != MPI_WIN_NULL || wd != MPI_WIN_NULL) mt_fail("MPI_Win_free left a handle");
    } while (!mt_done(&r, it));
    MPI_Barrier(MPI_COMM_WORLD);
    ok(MPI_Win_unlock_all(life), "MPI_Win_unlock_all life");
    MPI_Barrier(MPI_COMM_WORLD);
    want_l(*cnt, it, "life counter at the end");
    ok(MPI_Win_free(&life), "MPI_Win_free life");
    MPI_Errhandler_free(&eh);
    free(cnt);
    free(mem);
    free(dbuf);
    mt_finish(&r, "calls_rma", it, h);
    return 0;
}
