/*
 * errh.c - error handlers and added error classes, codes and strings.
 *
 * A user error handler is a table entry (K_ERRH, recipe R_ERRH_USER) holding the program's function.
 * In the lower half, every communicator with a user handler gets one real error handler whose
 * function (note_error, called by the real MPI on its own TLS) only notes the communicator and the
 * code.  lower_leave (mpi_int.h) sees the note, gives the lower half back, and calls
 * mana_errh_leave, which runs the program's handler on the program's TLS with the program's handle,
 * before the wrapper returns the code: to the program it is as if MPI had called it.  That real
 * handler is made again after a restart (mana_errh_replay, before any communicator is replayed).
 *
 * MPI_Add_error_class/code/string are recipes (K_ERRCODE), replayed in order, so a restarted
 * lower half hands out the same codes; the replay checks it.
 */
#include "mpi_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EH_COMM = 1, EH_WIN, EH_FILE };


volatile int mana_errh_pending;
static uint64_t pend_comm;          /* real communicator */
static int pend_code;
static uint64_t real_user_eh;       /* the real error handler of note_error (0: not made yet) */

/* Called by the real MPI, on the lower half's TLS: touch nothing but these globals. */
static void note_error(MPI_Comm *c, int *code, ...)
{
    pend_comm = HBITS(*c);
    pend_code = *code;
    mana_errh_pending = 1;
}

static int make_real_eh(void)
{
    if (real_user_eh) return MPI_SUCCESS;
    MPI_Errhandler eh;
    int rc;
    LOWER(rc = real.Comm_create_errhandler(note_error, &eh));
    if (rc == MPI_SUCCESS) real_user_eh = HBITS(eh);
    return rc;
}

static struct vobj *user_eh(uint64_t h)
{
    struct vobj *o = vobj_of(h);
    return o && o->kind == K_ERRH && o->recipe == R_ERRH_USER ? o : NULL;
}

/* Run the program's handler of a communicator (upper TLS, lower half not held). */
static void run_user(MPI_Comm vc, struct vobj *c, int code)
{
    struct vobj *e = c ? user_eh(c->errh) : NULL;
    if (!e) return;
    MPI_Comm arg = vc;
    int carg = code;
    ((MPI_Comm_errhandler_function *)(uintptr_t)e->a[1])(&arg, &carg);
}

void mana_errh_leave(uint64_t up)
{
    /* The program's handle now (the real one means nothing after a restart, and lower_release may
     * let a deferred checkpoint in). */
    MPI_Comm vc = HMAKE(MPI_Comm, vfind(K_COMM, pend_comm));
    int code = pend_code;
    mana_errh_pending = 0;
    lower_release(up);
    run_user(vc, comm_obj(vc), code);
}

void mana_errh_replay(void)
{
    uint32_t used = mana_vtab_used();
    real_user_eh = 0;
    int any = 0;
    for (uint32_t i = 1; i <= used; i++) if (vtab[i].kind == K_ERRH && vtab[i].recipe == R_ERRH_USER) any = 1;
    if (!any || make_real_eh() != MPI_SUCCESS) return;
    for (uint32_t i = 1; i <= used; i++)
        if (vtab[i].kind == K_ERRH && vtab[i].recipe == R_ERRH_USER) vtab[i].real = real_user_eh;
}

static int create(int kind, void (*fn)(void), MPI_Errhandler *out)
{
    MANA_CHECK_INIT();
    int rc = make_real_eh();
    if (rc != MPI_SUCCESS) return rc;
    struct vobj *o = vnew(K_ERRH, real_user_eh);
    o->recipe = R_ERRH_USER;
    o->a[0] = kind;
    o->a[1] = (int64_t)(uintptr_t)fn;
    *out = V(MPI_Errhandler, o);
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh)
{ return create(EH_COMM, (void (*)(void))fn, eh); }
ALIAS(Comm_create_errhandler)
/* A window's handler is kept by win.c, a file's by io.c; each is run by mana_errh_win or
 * mana_errh_file below (the real windows and files keep MPI_ERRORS_RETURN). */
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *eh)
{ return create(EH_WIN, (void (*)(void))fn, eh); }
ALIAS(Win_create_errhandler)
int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *eh)
{ return create(EH_FILE, (void (*)(void))fn, eh); }
ALIAS(File_create_errhandler)

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
    MANA_CHECK_INIT();
    struct vobj *c = comm_obj(comm), *e = vobj_of(HBITS(eh));
    if (!c) return MPI_ERR_COMM;
    if (e && (e->kind != K_ERRH || e->a[0] != EH_COMM)) return MPI_ERR_ARG;
    int rc;
    LOWER(rc = real.Comm_set_errhandler(R(comm), R(eh)));
    if (rc == MPI_SUCCESS) c->errh = HBITS(eh);
    return rc;
}
ALIAS(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *eh)
{
    MANA_CHECK_INIT();
    struct vobj *c = comm_obj(comm);
    if (!c) return MPI_ERR_COMM;
    if (c->errh) { *eh = HMAKE(MPI_Errhandler, c->errh); return MPI_SUCCESS; }
    MPI_Errhandler r;
    int rc;
    LOWER(rc = real.Comm_get_errhandler(R(comm), &r));
    if (rc == MPI_SUCCESS) *eh = HMAKE(MPI_Errhandler, vfind(K_ERRH, HBITS(r)));
    return rc;
}
ALIAS(Comm_get_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int code)
{
    MANA_CHECK_INIT();
    struct vobj *c = comm_obj(comm);
    if (!c) return MPI_ERR_COMM;
    if (user_eh(c->errh)) { run_user(comm, c, code); return MPI_SUCCESS; }
    int rc;
    LOWER(rc = real.Comm_call_errhandler(R(comm), code));
    return rc;
}
ALIAS(Comm_call_errhandler)

/* ---- files (io.c keeps each file's handler; the real files keep MPI_ERRORS_RETURN) ---- */

static int eh_ok(uint64_t eh, int kind)
{
    struct vobj *e = user_eh(eh);
    if (e) return e->a[0] == kind;
    return eh == HBITS(MPI_ERRORS_RETURN) || eh == HBITS(MPI_ERRORS_ARE_FATAL)
#ifdef MPI_ERRORS_ABORT
           || eh == HBITS(MPI_ERRORS_ABORT)
#endif
        ;
}
int mana_errh_file_ok(uint64_t eh) { return eh_ok(eh, EH_FILE); }
int mana_errh_win_ok(uint64_t eh) { return eh_ok(eh, EH_WIN); }

/* MPI_ERRORS_ARE_FATAL (or MPI_ERRORS_ABORT) on a file or window: what the real library would have
 * said, then the end. */
__attribute__((noreturn)) static void fatal(const char *what, const char *call, int code)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    LOWER(if (real.Error_string(code, msg, &len) != MPI_SUCCESS) len = 0);
    msg[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1] = 0;
    if (call && call[0] == 'P' && strncmp(call, "PMPI_", 5) == 0) call++;   /* the wrapper's name is PMPI_X */
    mana_say("MANA: %s%s%s failed and its error handler is MPI_ERRORS_ARE_FATAL: %s (error %d)", what,
             call ? ", " : "", call ? call : "", len ? msg : "unknown error", code);
    LOWER(real.Abort(R(MPI_COMM_WORLD), code));
    _exit(code ? code : 1);
}

int mana_errh_file(uint64_t eh, MPI_File fh, int code, const char *call)
{
    struct vobj *e = user_eh(eh);
    if (e) {
        MPI_File arg = fh;
        int carg = code;
        ((MPI_File_errhandler_function *)(uintptr_t)e->a[1])(&arg, &carg);
        return code;
    }
    if (eh == HBITS(MPI_ERRORS_RETURN)) return code;
    fatal("an MPI-IO call on a file", call, code);
}

int mana_errh_win(uint64_t eh, MPI_Win win, int code, const char *call)
{
    struct vobj *e = user_eh(eh);
    if (e) {
        MPI_Win arg = win;
        int carg = code;
        ((MPI_Win_errhandler_function *)(uintptr_t)e->a[1])(&arg, &carg);
        return code;
    }
    if (eh == HBITS(MPI_ERRORS_RETURN)) return code;
    fatal("a one-sided call on a window", call, code);
}

int PMPI_Errhandler_free(MPI_Errhandler *eh)
{
    MANA_CHECK_INIT();
    /* A user handler stays in the table while communicators may still use it (its real one is
     * shared); a predefined one is never freed. */
    if (*eh == MPI_ERRHANDLER_NULL) return MPI_ERR_ARG;
    *eh = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
ALIAS(Errhandler_free)

/* ---- added error classes, codes and strings ---- */

static struct vobj *err_recipe(int recipe, int64_t a0, int64_t a1)
{
    struct vobj *o = vnew(K_ERRCODE, 0);
    o->recipe = (uint16_t)recipe;
    o->a[0] = a0;
    o->a[1] = a1;
    return o;
}

int PMPI_Add_error_class(int *cls)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Add_error_class(cls));
    if (rc == MPI_SUCCESS) err_recipe(R_ERR_CLASS, *cls, 0);
    return rc;
}
ALIAS(Add_error_class)

int PMPI_Add_error_code(int cls, int *code)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Add_error_code(cls, code));
    if (rc == MPI_SUCCESS) err_recipe(R_ERR_CODE, *code, cls);
    return rc;
}
ALIAS(Add_error_code)

int PMPI_Add_error_string(int code, const char *s)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.Add_error_string(code, s));
    if (rc == MPI_SUCCESS) {
        struct vobj *o = err_recipe(R_ERR_STRING, code, 0);
        o->arr = strdup(s);
        o->arr_len = strlen(s) + 1;
    }
    return rc;
}
ALIAS(Add_error_string)

/* Replay of one K_ERRCODE recipe: the same call, which must give the same code as before. */
int mana_errcode_replay(struct vobj *o)
{
    int rc, got = 0;
    switch (o->recipe) {
    case R_ERR_CLASS: LOWER(rc = real.Add_error_class(&got)); break;
    case R_ERR_CODE: LOWER(rc = real.Add_error_code((int)o->a[1], &got)); break;
    case R_ERR_STRING: LOWER(rc = real.Add_error_string((int)o->a[0], o->arr)); return rc;
    default: return MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS && got != (int)o->a[0]) {
        mana_say("MANA: restart: an added MPI error %s is %d now, was %d", o->recipe == R_ERR_CLASS ? "class" : "code",
                 got, (int)o->a[0]);
        return MPI_ERR_INTERN;
    }
    return rc;
}
