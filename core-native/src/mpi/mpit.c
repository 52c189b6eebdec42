/*
 * mpit.c - the MPI tool interface (MPI_T_*): initialization, the variable and category queries, enum
 * and control-variable handles, performance-variable sessions and handles, events, with restart
 * semantics.
 *
 * The tool interface lives in the real library (the lower half), which a restart replaces: indices,
 * names and categories are the same in the new one (the same library, started the same way), but
 * every handle it handed out is gone, and every control variable the program wrote has its start-up
 * value again.  So:
 *   init/finalize  counted here; a restart initializes the new library's tool interface as many times
 *                  as the program had it initialized (mana_mpit_restart);
 *   queries        by index or name, passed through (generated); cvar/pvar_get_info give the program's
 *                  datatype handle and a virtual enum handle;
 *   MPI_T_enum     a record here (which variable's enum): the real enum is looked up again by that
 *                  variable's index after a restart, before its first use;
 *   cvar handles   a record (index, the program's handle of the bound object), whose real handle is
 *                  allocated again on the replayed object at its first use after a restart; and a log
 *                  of the last value the program wrote to each (variable, object), handles freed or
 *                  not, which the restart writes again in order, so the library behaves as the
 *                  program set it.
 *   pvars          sessions and handles are records, made again at restart, values continuing across
 *                  it by the variable's class: see "performance variables" below;
 *   events         queries passed through; handles and callbacks not carried across a restart: see
 *                  "events" below.
 * Records are upper-half memory (saved with the program); their real handles are written in the
 * excursion of the real call that made them.
 */
#include "mpi_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_inits;                     /* MPI_T_init_thread calls not yet finalized */
static int t_level = MPI_THREAD_SINGLE; /* the level the program asked for (its last call) */
static uint32_t t_gen = 1;              /* bumped at every restart: records with another are stale */

struct tenum { struct tenum *next; int pvar; int index; MPI_T_enum real; uint32_t gen; };  /* pvar: 0 control
                                       * variable's enum, 1 performance variable's, 2 event type's */
static struct tenum *enums;

struct tcvar {
    struct tcvar *next;
    int index, bind, count;
    uint64_t obj;                       /* the program's handle of the bound object (0: none) */
    MPI_T_cvar_handle real;
    uint32_t gen;
    size_t size;                        /* bytes of its value: count * the datatype's size */
};
static struct tcvar *cvars;

/* The values the program wrote, one per (variable, object), in the order of their last writes: the
 * library keeps a written value after the handle is freed, so the log outlives the handles. */
struct twrite { struct twrite *next; int index, bind; uint64_t obj; size_t size; unsigned char value[]; };
static struct twrite *writes, **writes_tail = &writes;

int PMPI_T_init_thread(int required, int *provided)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.T_init_thread(required, provided); if (rc == MPI_SUCCESS) { t_inits++; t_level = required; });
    return rc;
}
ALIAS(T_init_thread)

int PMPI_T_finalize(void)
{
    MANA_CHECK_INIT();
    int rc;
    LOWER(rc = real.T_finalize(); if (rc == MPI_SUCCESS && t_inits > 0) t_inits--);
    return rc;
}
ALIAS(T_finalize)

/* ---- enums ---- */

/* The program's handle of the enum of control (pvar 0), performance (1) variable or event type (2) index. */
static MPI_T_enum venum(int pvar, int index, MPI_T_enum real_enum)
{
    if (real_enum == MPI_T_ENUM_NULL) return MPI_T_ENUM_NULL;
    for (struct tenum *e = enums; e; e = e->next)
        if (e->pvar == pvar && e->index == index) { e->real = real_enum; e->gen = t_gen; return (MPI_T_enum)e; }
    struct tenum *e = malloc(sizeof *e);
    if (!e) return MPI_T_ENUM_NULL;
    *e = (struct tenum){ enums, pvar, index, real_enum, t_gen };
    enums = e;
    return (MPI_T_enum)e;
}

/* The real enum behind the program's handle (looked up again after a restart); NULL: invalid. */
static MPI_T_enum renum(MPI_T_enum h)
{
    struct tenum *e = NULL;
    for (struct tenum *x = enums; x && !e; x = x->next) if ((MPI_T_enum)x == h) e = x;
    if (!e) return MPI_T_ENUM_NULL;
    if (e->gen != t_gen) {
        int nl = 0, dl = 0, verb, bind, scope, cls, ro, cont, at, rc;
        MPI_Datatype dt;
        MPI_T_enum re = MPI_T_ENUM_NULL;
        if (e->pvar == 1) LOWER(rc = real.T_pvar_get_info(e->index, NULL, &nl, &verb, &cls, &dt, &re, NULL, &dl, &bind, &ro, &cont, &at));
#if MPI_VERSION >= 4
        else if (e->pvar == 2) {        /* an event type's (no elements asked: no arrays) */
            int ne = 0;
            LOWER(rc = real.T_event_get_info(e->index, NULL, &nl, &verb, NULL, NULL, &ne, &re, NULL, NULL, &dl, &bind));
        }
#endif
        else LOWER(rc = real.T_cvar_get_info(e->index, NULL, &nl, &verb, &dt, &re, NULL, &dl, &bind, &scope));
        if (rc != MPI_SUCCESS) return MPI_T_ENUM_NULL;
        e->real = re;
        e->gen = t_gen;
    }
    return e->real;
}

static MPI_Datatype vtype(MPI_Datatype real_type)
{
    uint64_t v = vfind(K_TYPE, HBITS(real_type));
    return v ? HMAKE(MPI_Datatype, v) : MPI_DATATYPE_NULL;
}

int PMPI_T_cvar_get_info(int index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
    MANA_CHECK_INIT();
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    MPI_T_enum re = MPI_T_ENUM_NULL;
    int rc;
    LOWER(rc = real.T_cvar_get_info(index, name, name_len, verbosity, &dt, &re, desc, desc_len, bind, scope));
    if (rc != MPI_SUCCESS) return rc;
    if (datatype) *datatype = vtype(dt);
    if (enumtype) *enumtype = venum(0, index, re);
    return MPI_SUCCESS;
}
ALIAS(T_cvar_get_info)

/* MPI_T_ERR_INVALID_INDEX for an index that is no performance variable's.  (MPICH 4.0.2, which has none,
 * dereferences NULL in MPI_T_pvar_get_info and _handle_alloc of any index: asked first, it cannot.) */
static int pvar_index_ok(int index)
{
    int n = 0, rc;
    LOWER(rc = real.T_pvar_get_num(&n));
    if (rc != MPI_SUCCESS) return rc;
    return index >= 0 && index < n ? MPI_SUCCESS : MPI_T_ERR_INVALID_INDEX;
}

int PMPI_T_pvar_get_info(int index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                         int *readonly, int *continuous, int *atomic)
{
    MANA_CHECK_INIT();
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    MPI_T_enum re = MPI_T_ENUM_NULL;
    int rc = pvar_index_ok(index);
    if (rc != MPI_SUCCESS) return rc;
    LOWER(rc = real.T_pvar_get_info(index, name, name_len, verbosity, var_class, &dt, &re, desc, desc_len, bind,
                                    readonly, continuous, atomic));
    if (rc != MPI_SUCCESS) return rc;
    if (datatype) *datatype = vtype(dt);
    if (enumtype) *enumtype = venum(1, index, re);
    return MPI_SUCCESS;
}
ALIAS(T_pvar_get_info)

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    MANA_CHECK_INIT();
    MPI_T_enum re = renum(enumtype);
    if (re == MPI_T_ENUM_NULL) return MPI_T_ERR_INVALID_HANDLE;
    int rc;
    LOWER(rc = real.T_enum_get_info(re, num, name, name_len));
    return rc;
}
ALIAS(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    MANA_CHECK_INIT();
    MPI_T_enum re = renum(enumtype);
    if (re == MPI_T_ENUM_NULL) return MPI_T_ERR_INVALID_HANDLE;
    int rc;
    LOWER(rc = real.T_enum_get_item(re, index, value, name, name_len));
    return rc;
}
ALIAS(T_enum_get_item)

/* ---- control-variable handles ---- */

/* The real object handle a variable bound to `bind` is allocated on: the program's handle obj translated
 * now into *robj, and the pointer the real call takes (NULL: no object).  -1: an object kept in the
 * upper half only (MPI_Info). */
static int obj_arg(int bind, uint64_t obj, uint64_t *robj, void **objp)
{
    *robj = 0;
    *objp = NULL;
    switch (bind) {
    case MPI_T_BIND_NO_OBJECT: return 0;
    case MPI_T_BIND_MPI_COMM: case MPI_T_BIND_MPI_DATATYPE: case MPI_T_BIND_MPI_ERRHANDLER:
    case MPI_T_BIND_MPI_GROUP: case MPI_T_BIND_MPI_OP: case MPI_T_BIND_MPI_REQUEST: case MPI_T_BIND_MPI_WIN:
    case MPI_T_BIND_MPI_MESSAGE:
        *robj = v2r(obj);
        break;
    case MPI_T_BIND_MPI_FILE:
        *robj = (uint64_t)(uintptr_t)FR((MPI_File)(uintptr_t)obj);
        break;
    default:
        return -1;
    }
    *objp = robj;
    return 0;
}

/* The program's handle of the object obj_handle points to, for a variable bound to `bind` (0: none). */
static uint64_t obj_of(int bind, const void *obj_handle)
{
    if (bind == MPI_T_BIND_NO_OBJECT || !obj_handle) return 0;
    if (bind == MPI_T_BIND_MPI_FILE) return (uint64_t)(uintptr_t)*(const MPI_File *)obj_handle;
    return HBITS(*(const MPI_Comm *)obj_handle);        /* every other handle is as wide as a communicator's */
}

/* A real handle of control variable index on the bound object. */
static int alloc_real(int index, int bind, uint64_t obj, MPI_T_cvar_handle *real_h, int *count)
{
    uint64_t robj;
    void *objp;
    if (obj_arg(bind, obj, &robj, &objp) != 0) return MPI_T_ERR_INVALID_HANDLE;   /* MPI_Info */
    int rc;
    LOWER(rc = real.T_cvar_handle_alloc(index, objp, real_h, count));
    return rc;
}

/* Allocate c's real handle (again). */
static int cvar_alloc_real(struct tcvar *c)
{
    int count = 0;
    int rc = alloc_real(c->index, c->bind, c->obj, &c->real, &count);
    if (rc == MPI_SUCCESS) { c->count = count; c->gen = t_gen; }
    return rc;
}

/* Log the value written through c (replacing the last one of the same variable and object). */
static void log_write(const struct tcvar *c, const void *buf)
{
    if (!c->size) return;
    struct twrite **pp = &writes;
    while (*pp && !((*pp)->index == c->index && (*pp)->obj == c->obj)) pp = &(*pp)->next;
    if (*pp) {
        struct twrite *old = *pp;
        *pp = old->next;
        if (writes_tail == &old->next) writes_tail = pp;
        free(old);
    }
    struct twrite *w = malloc(sizeof *w + c->size);
    if (!w) return;
    w->next = NULL;
    w->index = c->index;
    w->bind = c->bind;
    w->obj = c->obj;
    w->size = c->size;
    memcpy(w->value, buf, c->size);
    *writes_tail = w;
    writes_tail = &w->next;
}

/* The record behind the program's handle, its real handle made again after a restart; NULL: invalid. */
static struct tcvar *cvar_of(MPI_T_cvar_handle h)
{
    struct tcvar *c = NULL;
    for (struct tcvar *x = cvars; x && !c; x = x->next) if ((MPI_T_cvar_handle)x == h) c = x;
    if (c && c->gen != t_gen && cvar_alloc_real(c) != MPI_SUCCESS) return NULL;
    return c;
}

/* The bytes of a value of variable index with `count` elements (0: unknown). */
static size_t cvar_size(int index, int count)
{
    int nl = 0, dl = 0, verb, bind, scope, rc, tsize = 0;
    MPI_Datatype dt;
    MPI_T_enum re;
    LOWER(rc = real.T_cvar_get_info(index, NULL, &nl, &verb, &dt, &re, NULL, &dl, &bind, &scope);
          if (rc == MPI_SUCCESS) rc = real.Type_size(dt, &tsize));
    return rc == MPI_SUCCESS && tsize > 0 && count > 0 ? (size_t)tsize * (size_t)count : 0;
}

int PMPI_T_cvar_handle_alloc(int index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
    MANA_CHECK_INIT();
    int nl = 0, dl = 0, verb, bind = MPI_T_BIND_NO_OBJECT, scope, rc;
    MPI_Datatype dt;
    MPI_T_enum re;
    LOWER(rc = real.T_cvar_get_info(index, NULL, &nl, &verb, &dt, &re, NULL, &dl, &bind, &scope));
    if (rc != MPI_SUCCESS) return rc;
    struct tcvar *c = calloc(1, sizeof *c);
    if (!c) return MPI_ERR_NO_MEM;
    c->index = index;
    c->bind = bind;
    c->obj = obj_of(bind, obj_handle);
    if ((rc = cvar_alloc_real(c)) != MPI_SUCCESS) { free(c); return rc; }
    c->size = cvar_size(index, c->count);
    c->next = cvars;
    cvars = c;
    *handle = (MPI_T_cvar_handle)c;
    if (count) *count = c->count;
    return MPI_SUCCESS;
}
ALIAS(T_cvar_handle_alloc)

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    MANA_CHECK_INIT();
    struct tcvar **pp = &cvars;
    while (*pp && (MPI_T_cvar_handle)*pp != *handle) pp = &(*pp)->next;
    struct tcvar *c = *pp;
    if (!c) return MPI_T_ERR_INVALID_HANDLE;
    int rc = MPI_SUCCESS;
    if (c->gen == t_gen) LOWER(rc = real.T_cvar_handle_free(&c->real));
    if (rc != MPI_SUCCESS) return rc;
    *pp = c->next;
    free(c);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
ALIAS(T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    MANA_CHECK_INIT();
    struct tcvar *c = cvar_of(handle);
    if (!c) return MPI_T_ERR_INVALID_HANDLE;
    int rc;
    LOWER(rc = real.T_cvar_read(c->real, buf));
    return rc;
}
ALIAS(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    MANA_CHECK_INIT();
    struct tcvar *c = cvar_of(handle);
    if (!c) return MPI_T_ERR_INVALID_HANDLE;
    int rc;
    LOWER(rc = real.T_cvar_write(c->real, buf));
    if (rc == MPI_SUCCESS) log_write(c, buf);
    return rc;
}
ALIAS(T_cvar_write)

/* ---- performance variables ----
 * A session and a handle are records here (the program's handles are their addresses).  Their real
 * ones are made in the real library when the program makes them, and again at every restart (eagerly:
 * a started variable must count from the restart on, not from its next use).  The value a handle reads
 * continues across a restart: the checkpoint's drain reads every handle (while the old library still
 * runs) into `saved`; the restart makes that the handle's `base`, and every read after it gives the new
 * library's value combined with the base, by the variable's class:
 *   COUNTER, AGGREGATE, TIMER   base + new (the new library counts from zero: what happened since);
 *   HIGHWATERMARK, LOWWATERMARK max / min of base and new;
 *   STATE, LEVEL, SIZE, PERCENTAGE, GENERIC  the new library's value alone: these describe the library
 *                               as it is now (a queue's length, a state, a resource's size), not a
 *                               history, and a sum with the old library's would be a value that never was.
 * A reset (MPI_T_pvar_reset, _readreset) or a write sets the base to zero (none), as the real library
 * sets its own value.
 * The runtime's own calls are not the program's: the drain and the restart make a few collectives on
 * MPI_COMM_WORLD (win.c's any_windows), which a variable bound to it counts.  So the drain reads the
 * values as it starts, before any of its own calls (program threads make none from then on: mana_gate),
 * and whatever a summing variable counts from there until the program runs again (at the resume of a
 * checkpoint that goes on, at the end of a restart) is taken off its base.  A watermark cannot be taken
 * back: one the runtime's calls moved stays moved.  Values combine for MPI_T's integer and floating datatypes (MPI_INT, MPI_UNSIGNED,
 * MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_COUNT, MPI_DOUBLE); MPI_CHAR values are the new library's. */

struct tsess { struct tsess *next; MPI_T_pvar_session real; uint32_t gen; };
static struct tsess *sessions;

enum pkind { PK_NONE, PK_INT, PK_UNSIGNED, PK_ULONG, PK_ULLONG, PK_COUNT, PK_DOUBLE };

struct tpvar {
    struct tpvar *next;
    struct tsess *s;
    int index, bind, cls, count, cont, ro;
    enum pkind kind;
    int started;                        /* a non-continuous variable the program started (and not stopped) */
    uint64_t obj;                       /* the program's handle of the bound object (0: none) */
    uint64_t robj;                      /* its real handle: Open MPI keeps the pointer it is given to it
                                         * and reads the object through it at every read */
    MPI_T_pvar_handle real;
    uint32_t gen;                       /* t_gen when real was made (another: lost at a restart) */
    size_t size;                        /* bytes of the value: count * the datatype's size */
    int has_base, has_saved;            /* base: zeros when has_base is 0 */
    unsigned char *base, *saved, *mark; /* size bytes each; mark: the library's own value at the drain */
};
static struct tpvar *pvars;

#ifndef OPEN_MPI
/* MPICH's MPI_T_PVAR_ALL_HANDLES is a constant pointer the library exports: the program's is this one (any
 * distinct address; the stub would leave it zero, MPI_T_PVAR_HANDLE_NULL's value).  The real library's is
 * never needed: a call on all of a session's handles is made here one handle at a time. */
static char all_handles_sentinel;
MANA_ABI struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES = (struct MPIR_T_pvar_handle_s *)&all_handles_sentinel;
#endif

static struct tsess *sess_of(MPI_T_pvar_session h)
{
    for (struct tsess *x = sessions; x; x = x->next) if ((MPI_T_pvar_session)x == h) return x;
    return NULL;
}

/* The handle's record, if it is one of session s's. */
static struct tpvar *pvar_of(struct tsess *s, MPI_T_pvar_handle h)
{
    for (struct tpvar *x = pvars; x; x = x->next) if ((MPI_T_pvar_handle)x == h && x->s == s) return x;
    return NULL;
}

/* Which of MPI_T's datatypes dt (the program's handle) is. */
static enum pkind pkind_of(MPI_Datatype dt)
{
    if (dt == MPI_INT) return PK_INT;
    if (dt == MPI_UNSIGNED) return PK_UNSIGNED;
    if (dt == MPI_UNSIGNED_LONG) return PK_ULONG;
    if (dt == MPI_UNSIGNED_LONG_LONG) return PK_ULLONG;
    if (dt == MPI_COUNT) return PK_COUNT;
    if (dt == MPI_DOUBLE) return PK_DOUBLE;
    return PK_NONE;
}

static size_t pkind_size(enum pkind k)
{
    switch (k) {
    case PK_INT: return sizeof(int);
    case PK_UNSIGNED: return sizeof(unsigned);
    case PK_ULONG: return sizeof(unsigned long);
    case PK_ULLONG: return sizeof(unsigned long long);
    case PK_COUNT: return sizeof(MPI_Count);
    case PK_DOUBLE: return sizeof(double);
    default: return 0;
    }
}

/* op: 0 sum, 1 max, 2 min, 3 difference of a and b into a, for one element of kind k (unsigned kinds
 * wrap: a difference added back later gives the right sum). */
#define COMBINE(T) do { T x, y; memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y); \
        x = op == 0 ? (T)(x + y) : op == 1 ? (x > y ? x : y) : op == 2 ? (x < y ? x : y) : (T)(x - y); \
        memcpy(a, &x, sizeof x); } while (0)
static void combine1(enum pkind k, int op, unsigned char *a, const unsigned char *b)
{
    switch (k) {
    case PK_INT: COMBINE(int); break;
    case PK_UNSIGNED: COMBINE(unsigned); break;
    case PK_ULONG: COMBINE(unsigned long); break;
    case PK_ULLONG: COMBINE(unsigned long long); break;
    case PK_COUNT: COMBINE(MPI_Count); break;
    case PK_DOUBLE: COMBINE(double); break;
    default: break;
    }
}
#undef COMBINE

/* How p's values combine with its base: 0 sum, 1 max, 2 min; -1 not at all (the library's state now). */
static int combine_op(const struct tpvar *p)
{
    if (p->kind == PK_NONE) return -1;
    switch (p->cls) {
    case MPI_T_PVAR_CLASS_COUNTER: case MPI_T_PVAR_CLASS_AGGREGATE: case MPI_T_PVAR_CLASS_TIMER: return 0;
    case MPI_T_PVAR_CLASS_HIGHWATERMARK: return 1;
    case MPI_T_PVAR_CLASS_LOWWATERMARK: return 2;
    default: return -1;
    }
}

/* a = a op b, element by element, for p's values. */
static void combine(const struct tpvar *p, int op, void *a, const void *b)
{
    size_t es = pkind_size(p->kind);
    for (int i = 0; i < p->count; i++)
        combine1(p->kind, op, (unsigned char *)a + i * es, (const unsigned char *)b + i * es);
}

/* The value the program reads: the new library's (in buf) with the handle's base, by its class. */
static void with_base(const struct tpvar *p, void *buf)
{
    int op = combine_op(p);
    if (p->has_base && op >= 0) combine(p, op, buf, p->base);
}

/* No base: the value is the library's own again. */
static void drop_base(struct tpvar *p)
{
    p->has_base = 0;
    if (p->size) memset(p->base, 0, p->size);
}

/* p's real handle in its session's real session (again, after a restart); started again if it was. */
static int pvar_alloc_real(struct tpvar *p)
{
    void *objp;
    if (obj_arg(p->bind, p->obj, &p->robj, &objp) != 0) return MPI_T_ERR_INVALID_HANDLE;   /* MPI_Info */
    int rc, count = 0;
    LOWER(rc = real.T_pvar_handle_alloc(p->s->real, p->index, objp, &p->real, &count);
          if (rc == MPI_SUCCESS && p->started && !p->cont) rc = real.T_pvar_start(p->s->real, p->real));
    if (rc == MPI_SUCCESS) { p->count = count; p->gen = t_gen; }
    return rc;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    MANA_CHECK_INIT();
    struct tsess *s = calloc(1, sizeof *s);
    if (!s) return MPI_ERR_NO_MEM;
    int rc;
    LOWER(rc = real.T_pvar_session_create(&s->real));
    if (rc != MPI_SUCCESS) { free(s); return rc; }
    s->gen = t_gen;
    s->next = sessions;
    sessions = s;
    *session = (MPI_T_pvar_session)s;
    return MPI_SUCCESS;
}
ALIAS(T_pvar_session_create)

static void pvar_unlink(struct tpvar *p)
{
    for (struct tpvar **pp = &pvars; *pp; pp = &(*pp)->next)
        if (*pp == p) { *pp = p->next; break; }
    free(p->base);
    free(p->saved);
    free(p->mark);
    free(p);
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    MANA_CHECK_INIT();
    struct tsess *s = sess_of(*session);
    if (!s) return MPI_T_ERR_INVALID_SESSION;
    int rc = MPI_SUCCESS;
    if (s->gen == t_gen) LOWER(rc = real.T_pvar_session_free(&s->real));
    if (rc != MPI_SUCCESS) return rc;
    /* the session's handles go with it, as in the real library */
    for (struct tpvar *p = pvars, *n; p; p = n) { n = p->next; if (p->s == s) pvar_unlink(p); }
    for (struct tsess **pp = &sessions; *pp; pp = &(*pp)->next)
        if (*pp == s) { *pp = s->next; break; }
    free(s);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
ALIAS(T_pvar_session_free)

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int index, void *obj_handle, MPI_T_pvar_handle *handle,
                             int *count)
{
    MANA_CHECK_INIT();
    struct tsess *s = sess_of(session);
    if (!s) return MPI_T_ERR_INVALID_SESSION;
    int nl = 0, dl = 0, verb, cls = 0, bind = MPI_T_BIND_NO_OBJECT, ro = 0, cont = 0, at, rc = pvar_index_ok(index);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    MPI_T_enum re;
    LOWER(rc = real.T_pvar_get_info(index, NULL, &nl, &verb, &cls, &dt, &re, NULL, &dl, &bind, &ro, &cont, &at));
    if (rc != MPI_SUCCESS) return rc;
    struct tpvar *p = calloc(1, sizeof *p);
    if (!p) return MPI_ERR_NO_MEM;
    *p = (struct tpvar){ .s = s, .index = index, .bind = bind, .cls = cls, .cont = cont, .ro = ro,
                         .kind = pkind_of(vtype(dt)), .obj = obj_of(bind, obj_handle) };
    if ((rc = pvar_alloc_real(p)) != MPI_SUCCESS) { free(p); return rc; }
    p->size = pkind_size(p->kind) * (size_t)(p->count > 0 ? p->count : 0);
    if (p->size) {
        p->base = calloc(1, p->size);
        p->saved = calloc(1, p->size);
        p->mark = calloc(1, p->size);
        if (!p->base || !p->saved || !p->mark) {
            LOWER(real.T_pvar_handle_free(s->real, &p->real));
            free(p->base);
            free(p->saved);
            free(p->mark);
            free(p);
            return MPI_ERR_NO_MEM;
        }
    }
    p->next = pvars;
    pvars = p;
    *handle = (MPI_T_pvar_handle)p;
    if (count) *count = p->count;
    return MPI_SUCCESS;
}
ALIAS(T_pvar_handle_alloc)

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    MANA_CHECK_INIT();
    struct tsess *s = sess_of(session);
    if (!s) return MPI_T_ERR_INVALID_SESSION;
    struct tpvar *p = pvar_of(s, *handle);
    if (!p) return MPI_T_ERR_INVALID_HANDLE;
    int rc = MPI_SUCCESS;
    if (p->gen == t_gen) LOWER(rc = real.T_pvar_handle_free(s->real, &p->real));
    if (rc != MPI_SUCCESS) return rc;
    pvar_unlink(p);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
ALIAS(T_pvar_handle_free)

/* The session and handle of a call on one handle or on all of a session's (*p NULL then); an error code,
 * as the real library gives it, for an unknown one. */
static int lookup(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int all_ok, struct tsess **s,
                  struct tpvar **p)
{
    *s = sess_of(session);
    *p = NULL;
    if (!*s) return MPI_T_ERR_INVALID_SESSION;
    if (all_ok && handle == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;
    *p = pvar_of(*s, handle);
    if (!*p || (*p)->gen != t_gen) return MPI_T_ERR_INVALID_HANDLE;
    return MPI_SUCCESS;
}

/* start (1) or stop (0) one handle, or every one of a session's that can be (not continuous), as the
 * standard defines MPI_T_PVAR_ALL_HANDLES; the records follow the real library's answers. */
static int start_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int start)
{
    MANA_CHECK_INIT();
    struct tsess *s;
    struct tpvar *p;
    int rc = lookup(session, handle, 1, &s, &p);
    if (rc != MPI_SUCCESS) return rc;
    for (struct tpvar *x = pvars; x && rc == MPI_SUCCESS; x = x->next) {
        if (x->s != s || (p && x != p) || (!p && (x->cont || x->gen != t_gen))) continue;
        LOWER(rc = start ? real.T_pvar_start(s->real, x->real) : real.T_pvar_stop(s->real, x->real));
        if (rc == MPI_SUCCESS && !x->cont) x->started = start;
    }
    return rc;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) { return start_stop(session, handle, 1); }
ALIAS(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) { return start_stop(session, handle, 0); }
ALIAS(T_pvar_stop)

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    MANA_CHECK_INIT();
    struct tsess *s;
    struct tpvar *p;
    int rc = lookup(session, handle, 0, &s, &p);
    if (rc != MPI_SUCCESS) return rc;
    LOWER(rc = real.T_pvar_read(s->real, p->real, buf));
    if (rc == MPI_SUCCESS) with_base(p, buf);
    return rc;
}
ALIAS(T_pvar_read)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    MANA_CHECK_INIT();
    struct tsess *s;
    struct tpvar *p;
    int rc = lookup(session, handle, 0, &s, &p);
    if (rc != MPI_SUCCESS) return rc;
    LOWER(rc = real.T_pvar_write(s->real, p->real, buf));
    if (rc == MPI_SUCCESS) drop_base(p);        /* the value is what the program wrote */
    return rc;
}
ALIAS(T_pvar_write)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MANA_CHECK_INIT();
    struct tsess *s;
    struct tpvar *p;
    int rc = lookup(session, handle, 1, &s, &p);
    if (rc != MPI_SUCCESS) return rc;
    /* one handle, or every one of the session's the standard resets (not read-only) */
    for (struct tpvar *x = pvars; x && rc == MPI_SUCCESS; x = x->next) {
        if (x->s != s || (p && x != p) || (!p && (x->ro || x->gen != t_gen))) continue;
        LOWER(rc = real.T_pvar_reset(s->real, x->real));
        if (rc == MPI_SUCCESS) drop_base(x);
    }
    return rc;
}
ALIAS(T_pvar_reset)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    MANA_CHECK_INIT();
    struct tsess *s;
    struct tpvar *p;
    int rc = lookup(session, handle, 0, &s, &p);
    if (rc != MPI_SUCCESS) return rc;
    LOWER(rc = real.T_pvar_readreset(s->real, p->real, buf));
    if (rc != MPI_SUCCESS) return rc;
    with_base(p, buf);
    drop_base(p);
    return MPI_SUCCESS;
}
ALIAS(T_pvar_readreset)

/* The checkpoint's drain, as it starts (before any call of its own, with the program's threads kept out
 * of MPI), while the library that counted them still runs: every handle's value as the program would
 * read it now, which a restart from this checkpoint continues from, and the library's own (mark). */
void mana_mpit_drain(void)
{
    for (struct tpvar *p = pvars; p; p = p->next) {
        p->has_saved = 0;
        if (!p->size || p->gen != t_gen) continue;
        int rc;
        LOWER(rc = real.T_pvar_read(p->s->real, p->real, p->mark));
        if (rc != MPI_SUCCESS) continue;
        memcpy(p->saved, p->mark, p->size);
        with_base(p, p->saved);
        p->has_saved = 1;
    }
}

/* Whatever the summing variables counted since `from` (the library's value then, per handle; NULL:
 * zero) is the runtime's doing: off their bases.  Called before the program's threads run again. */
static void take_off_own(int from_mark)
{
    for (struct tpvar *p = pvars; p; p = p->next) {
        if (!p->size || p->gen != t_gen || combine_op(p) != 0 || (from_mark && !p->has_saved)) continue;
        unsigned char *now = malloc(p->size);
        int rc = MPI_ERR_NO_MEM;
        if (now) LOWER(rc = real.T_pvar_read(p->s->real, p->real, now));
        if (rc == MPI_SUCCESS) {
            if (from_mark) combine(p, 0, p->base, p->mark);   /* base += mark - now */
            combine(p, 3, p->base, now);
            p->has_base = 1;
        }
        free(now);
    }
}

/* The checkpoint is over and the program goes on in the same library: the drain's own calls are not its. */
void mana_mpit_resume(void) { take_off_own(1); }

/* The restart is over (every object, window and receive back): the new library's counts so far are the
 * restart's own calls. */
void mana_mpit_restart_done(void) { take_off_own(0); }

/* Restart: every session and handle made again in the new library (after the replay: their objects
 * are back), the started ones started, each handle's value continuing from the checkpoint's. */
static int mpit_pvar_restart(char *err, size_t errlen)
{
    for (struct tsess *s = sessions; s; s = s->next) {
        int rc;
        LOWER(rc = real.T_pvar_session_create(&s->real));
        if (rc != MPI_SUCCESS) {
            snprintf(err, errlen, "MPI_T_pvar_session_create failed in the restarted MPI library (error %d)", rc);
            return -1;
        }
        s->gen = t_gen;
    }
    for (struct tpvar *p = pvars; p; p = p->next) {
        int rc = pvar_alloc_real(p);
        if (rc != MPI_SUCCESS) {
            snprintf(err, errlen, "cannot allocate a handle of performance variable %d again after the restart "
                     "(error %d)", p->index, rc);
            return -1;
        }
        drop_base(p);
        if (p->size && p->has_saved) { memcpy(p->base, p->saved, p->size); p->has_base = 1; }
    }
    return 0;
}

/* ---- events (MPI 4.0; MPICH 4.0 exports them, Open MPI 4.1 does not) ----
 * The queries pass through (generated: MPI_T_event_get_num, _get_index, MPI_T_source_get_num,
 * _get_timestamp, MPI_T_category_get_num_events, _get_events), and the two that return objects are
 * here: a source's and an event type's info, their datatypes, enum and info translated.  Event handles
 * and callbacks are not carried across a restart: a callback runs inside the real library, on its
 * thread and TLS, when the library raises the event, and the restart's library would neither know the
 * registration nor have the events the old one raised.  So MPI_T_event_handle_alloc refuses an index
 * that is no event's with the library's own MPI_T_ERR_INVALID_INDEX (checked here first), and ends the
 * job, naming the call, for one that is; with no registration there is no handle or event instance for
 * the other calls, which answer MPI_T_ERR_INVALID_HANDLE.  MPICH 4.0.2 (the one MPI here that exports
 * them) has no events and no sources: every index is refused, by the library and here alike. */
#if MPI_VERSION >= 4

/* MPI_T_ERR_INVALID_INDEX unless index is one of count (of events: 1, sources: 0) the library has. */
static int event_index_ok(int events, int index)
{
    int n = 0, rc;
    LOWER(rc = events ? real.T_event_get_num(&n) : real.T_source_get_num(&n));
    if (rc != MPI_SUCCESS) return rc;
    return index >= 0 && index < n ? MPI_SUCCESS : MPI_T_ERR_INVALID_INDEX;
}

/* The program's info for the real one the library returned (the real one freed). */
static int info_out(MPI_Info ri, MPI_Info *info)
{
    if (!info) return MPI_SUCCESS;
    int rc = mana_info_from_real(ri, info);
    mana_info_real_free(ri);
    return rc;
}

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                           MPI_Info *info)
{
    MANA_CHECK_INIT();
    int rc = event_index_ok(0, source_index);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Info ri = MPI_INFO_NULL;
    LOWER(rc = real.T_source_get_info(source_index, name, name_len, desc, desc_len, ordering, ticks_per_second,
                                      max_ticks, info ? &ri : NULL));
    return rc == MPI_SUCCESS ? info_out(ri, info) : rc;
}
ALIAS(T_source_get_info)

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int *num_elements,
                          MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind)
{
    MANA_CHECK_INIT();
    int rc = event_index_ok(1, event_index);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Info ri = MPI_INFO_NULL;
    MPI_T_enum re = MPI_T_ENUM_NULL;
    LOWER(rc = real.T_event_get_info(event_index, name, name_len, verbosity, array_of_datatypes, array_of_displacements,
                                     num_elements, &re, info ? &ri : NULL, desc, desc_len, bind));
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; array_of_datatypes && num_elements && i < *num_elements; i++)
        array_of_datatypes[i] = vtype(array_of_datatypes[i]);
    if (enumtype) *enumtype = venum(2, event_index, re);
    return info_out(ri, info);
}
ALIAS(T_event_get_info)

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info, MPI_T_event_registration *reg)
{
    MANA_CHECK_INIT();
    (void)obj_handle; (void)info; (void)reg;
    int rc = event_index_ok(1, event_index);
    if (rc != MPI_SUCCESS) return rc;
    mana_unsupported("MPI_T_event_handle_alloc", "MPI_T event handles and callbacks are not carried across a "
                     "restart (the callbacks would run inside the MPI library, which a restart replaces)");
}
ALIAS(T_event_handle_alloc)

/* No registration or event instance exists under the runtime (see above). */
int PMPI_T_event_handle_free(MPI_T_event_registration reg, void *user_data, MPI_T_event_free_cb_function cb)
{ (void)reg; (void)user_data; (void)cb; return MPI_T_ERR_INVALID_HANDLE; }
ALIAS(T_event_handle_free)
int PMPI_T_event_handle_get_info(MPI_T_event_registration reg, MPI_Info *info_used)
{ (void)reg; (void)info_used; return MPI_T_ERR_INVALID_HANDLE; }
ALIAS(T_event_handle_get_info)
int PMPI_T_event_handle_set_info(MPI_T_event_registration reg, MPI_Info info)
{ (void)reg; (void)info; return MPI_T_ERR_INVALID_HANDLE; }
ALIAS(T_event_handle_set_info)
int PMPI_T_event_register_callback(MPI_T_event_registration reg, MPI_T_cb_safety safety, MPI_Info info,
                                   void *user_data, MPI_T_event_cb_function cb)
{ (void)reg; (void)safety; (void)info; (void)user_data; (void)cb; return MPI_T_ERR_INVALID_HANDLE; }
ALIAS(T_event_register_callback)
int PMPI_T_event_callback_get_info(MPI_T_event_registration reg, MPI_T_cb_safety safety, MPI_Info *info_used)
{ (void)reg; (void)safety; (void)info_used; return MPI_T_ERR_INVALID_HANDLE; }
ALIAS(T_event_callback_get_info)
int PMPI_T_event_callback_set_info(MPI_T_event_registration reg, MPI_T_cb_safety safety, MPI_Info info)
{ (void)reg; (void)safety; (void)info; return MPI_T_ERR_INVALID_HANDLE; }
ALIAS(T_event_callback_set_info)
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration reg, MPI_T_event_dropped_cb_function cb)
{ (void)reg; (void)cb; return MPI_T_ERR_INVALID_HANDLE; }
ALIAS(T_event_set_dropped_handler)
int PMPI_T_event_read(MPI_T_event_instance ev, int element_index, void *buffer)
{ (void)ev; (void)element_index; (void)buffer; return MPI_T_ERR_INVALID_HANDLE; }
ALIAS(T_event_read)
int PMPI_T_event_copy(MPI_T_event_instance ev, void *buffer)
{ (void)ev; (void)buffer; return MPI_T_ERR_INVALID_HANDLE; }
ALIAS(T_event_copy)
int PMPI_T_event_get_timestamp(MPI_T_event_instance ev, MPI_Count *ts)
{ (void)ev; (void)ts; return MPI_T_ERR_INVALID_HANDLE; }
ALIAS(T_event_get_timestamp)
int PMPI_T_event_get_source(MPI_T_event_instance ev, int *source_index)
{ (void)ev; (void)source_index; return MPI_T_ERR_INVALID_HANDLE; }
ALIAS(T_event_get_source)

#endif

/* Restart, after the replay (the bound objects exist again): the tool interface initialized as often
 * as the program had it, every value the program wrote written again, in the order it wrote them.  Handles and enums
 * are made again at their next use (t_gen). */
int mana_mpit_restart(char *err, size_t errlen)
{
    t_gen++;
    for (int i = 0; i < t_inits; i++) {
        int rc, prov = 0;
        LOWER(rc = real.T_init_thread(t_level, &prov));
        if (rc != MPI_SUCCESS) {
            snprintf(err, errlen, "MPI_T_init_thread failed in the restarted MPI library (error %d)", rc);
            return -1;
        }
    }
    for (struct twrite *w = writes; w; w = w->next) {
        MPI_T_cvar_handle rh;
        int count = 0, rc = alloc_real(w->index, w->bind, w->obj, &rh, &count);
        if (rc == MPI_SUCCESS) LOWER(rc = real.T_cvar_write(rh, w->value); real.T_cvar_handle_free(&rh));
        if (rc != MPI_SUCCESS) {
            snprintf(err, errlen, "cannot write control variable %d again after the restart (error %d)", w->index, rc);
            return -1;
        }
    }
    return mpit_pvar_restart(err, errlen);
}
