/*
 * mpit.c - the MPI tool interface (MPI_T_*): initialization, the variable and category queries, enum
 * and control-variable handles, with restart semantics.
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
 * Performance variables (sessions, handles, their values) and events are not supported: their values
 * are counted or raised inside the library, and a restart's new library would start them afresh.
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

struct tenum { struct tenum *next; int pvar; int index; MPI_T_enum real; uint32_t gen; };
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

/* The program's handle of the enum of (pvar ? performance : control) variable index. */
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
        if (e->pvar) LOWER(rc = real.T_pvar_get_info(e->index, NULL, &nl, &verb, &cls, &dt, &re, NULL, &dl, &bind, &ro, &cont, &at));
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

int PMPI_T_pvar_get_info(int index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                         int *readonly, int *continuous, int *atomic)
{
    MANA_CHECK_INIT();
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    MPI_T_enum re = MPI_T_ENUM_NULL;
    int rc;
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

/* A real handle of variable index on the bound object (the program's handle obj translated now). */
static int alloc_real(int index, int bind, uint64_t obj, MPI_T_cvar_handle *real_h, int *count)
{
    uint64_t robj = 0;
    void *objp = NULL;
    switch (bind) {
    case MPI_T_BIND_NO_OBJECT: break;
    case MPI_T_BIND_MPI_COMM: case MPI_T_BIND_MPI_DATATYPE: case MPI_T_BIND_MPI_ERRHANDLER:
    case MPI_T_BIND_MPI_GROUP: case MPI_T_BIND_MPI_OP: case MPI_T_BIND_MPI_REQUEST: case MPI_T_BIND_MPI_WIN:
    case MPI_T_BIND_MPI_MESSAGE:
        robj = v2r(obj);
        objp = &robj;
        break;
    case MPI_T_BIND_MPI_FILE:
        robj = (uint64_t)(uintptr_t)FR((MPI_File)(uintptr_t)obj);
        objp = &robj;
        break;
    default:
        return MPI_T_ERR_INVALID_HANDLE;       /* MPI_Info (kept in the upper half) */
    }
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
    if (bind == MPI_T_BIND_MPI_FILE && obj_handle) c->obj = (uint64_t)(uintptr_t)*(MPI_File *)obj_handle;
    else if (bind != MPI_T_BIND_NO_OBJECT && obj_handle) c->obj = HBITS(*(MPI_Comm *)obj_handle);
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
    return 0;
}
