/*
 * datarep.c - user-defined data representations for MPI-IO (MPI_Register_datarep, _c on MPICH).
 *
 * A registration lives in the real MPI (the lower half), which no image holds, and cannot be undone:
 * so every registration call is kept here (name, the program's functions and extra state, which form)
 * in call order, and a restart makes each again (mana_datarep_restart) before the replay reopens the
 * files and mana_io_restart puts their views back.  A call is kept unless it failed as a duplicate
 * (MPI_ERR_DUP_DATAREP): the others change the real library's state or fail the same way again, and
 * making them again in the same order leaves the new lower half as the old one was.  (Checked
 * natively: MPICH 4.0.2 registers a representation without conversion functions and refuses one with
 * them, keeping neither name in that case; Open MPI 4.1 refuses every registration in ompio yet keeps
 * the name of one without conversion functions, so that a second registration of it is a duplicate.)
 *
 * The real library calls the functions inside a real MPI call, on the lower TLS: it gets trampolines,
 * as user reduction ops do (objects.c), whose extra state is the kept record; a trampoline switches
 * to the calling thread's upper TLS, gives the program's function the program's datatype handle and
 * its own extra state, and switches back.  Like a user op's, such a function must not call MPI (the
 * thread already holds the lower half).  Neither MPI calls them today: neither lets a view use a user
 * representation (MPI_File_set_view refuses it), so the functions are kept for the day one does.
 */
#include "mpi_int.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct datarep {
    struct datarep *next;
    char name[MPI_MAX_DATAREP_STRING];
    void (*read_fn)(void), (*write_fn)(void);   /* MPI_Datarep_conversion_function(_c), or NULL */
    MPI_Datarep_extent_function *extent_fn;
    void *extra;                                 /* the program's extra state */
    int large;                                   /* MPI_Register_datarep_c: MPI_Count conversion counts */
    int ok;                                      /* the program's call succeeded */
};
static struct datarep *reps, **reps_tail = &reps;

/* ---- trampolines: on the upper TLS, with the program's datatype and extra state ---- */

static int conv_call(struct datarep *d, int write, void *userbuf, MPI_Datatype dt, MPI_Count count,
                     void *filebuf, MPI_Offset pos)
{
    uint64_t low;
    __asm__ volatile("mov %%fs:0x10, %0" : "=r"(low));
    mana_set_fs(mana_up_fs);
    MPI_Datatype v = HMAKE(MPI_Datatype, vfind(K_TYPE, HBITS(dt)));
    void (*fn)(void) = write ? d->write_fn : d->read_fn;
    int rc;
#if MPI_VERSION >= 4
    if (d->large)
        rc = ((MPI_Datarep_conversion_function_c *)fn)(userbuf, v, count, filebuf, pos, d->extra);
    else
#endif
        rc = ((MPI_Datarep_conversion_function *)fn)(userbuf, v, (int)count, filebuf, pos, d->extra);
    mana_set_fs(low);
    return rc;
}

static int tr_read(void *u, MPI_Datatype dt, int n, void *f, MPI_Offset pos, void *x) { return conv_call(x, 0, u, dt, n, f, pos); }
static int tr_write(void *u, MPI_Datatype dt, int n, void *f, MPI_Offset pos, void *x) { return conv_call(x, 1, u, dt, n, f, pos); }
#if MPI_VERSION >= 4
static int tr_read_c(void *u, MPI_Datatype dt, MPI_Count n, void *f, MPI_Offset pos, void *x) { return conv_call(x, 0, u, dt, n, f, pos); }
static int tr_write_c(void *u, MPI_Datatype dt, MPI_Count n, void *f, MPI_Offset pos, void *x) { return conv_call(x, 1, u, dt, n, f, pos); }
#endif

static int tr_extent(MPI_Datatype dt, MPI_Aint *extent, void *x)
{
    struct datarep *d = x;
    uint64_t low;
    __asm__ volatile("mov %%fs:0x10, %0" : "=r"(low));
    mana_set_fs(mana_up_fs);
    MPI_Datatype v = HMAKE(MPI_Datatype, vfind(K_TYPE, HBITS(dt)));
    int rc = d->extent_fn(v, extent, d->extra);
    mana_set_fs(low);
    return rc;
}

/* ---- registration ---- */

/* The real registration of d (inside an excursion): trampolines for the functions it has. */
static int register_in_lower(struct datarep *d)
{
#if MPI_VERSION >= 4
    if (d->large)
        return real.Register_datarep_c(d->name, d->read_fn ? tr_read_c : MPI_CONVERSION_FN_NULL_C,
                                       d->write_fn ? tr_write_c : MPI_CONVERSION_FN_NULL_C,
                                       d->extent_fn ? tr_extent : NULL, d);
#endif
    return real.Register_datarep(d->name, d->read_fn ? tr_read : MPI_CONVERSION_FN_NULL,
                                 d->write_fn ? tr_write : MPI_CONVERSION_FN_NULL, d->extent_fn ? tr_extent : NULL, d);
}

/* Register, and keep the call in the same excursion (a checkpoint sees it made and kept, or neither). */
static int do_register(const char *name, void (*rfn)(void), void (*wfn)(void), MPI_Datarep_extent_function *efn,
                       void *extra, int large)
{
    MANA_CHECK_INIT();
    if (!name || strlen(name) >= MPI_MAX_DATAREP_STRING) return MPI_ERR_ARG;
    struct datarep *d = calloc(1, sizeof *d);
    if (!d) return MPI_ERR_NO_MEM;
    strcpy(d->name, name);
    d->read_fn = rfn;
    d->write_fn = wfn;
    d->extent_fn = efn;
    d->extra = extra;
    d->large = large;
    int rc, cls = MPI_SUCCESS;
    LOWER(rc = register_in_lower(d);
          if (rc != MPI_SUCCESS) real.Error_class(rc, &cls);
          d->ok = rc == MPI_SUCCESS;
          if (rc == MPI_SUCCESS || cls != MPI_ERR_DUP_DATAREP) { *reps_tail = d; reps_tail = &d->next; });
    if (rc != MPI_SUCCESS && cls == MPI_ERR_DUP_DATAREP) free(d);
    return rc;
}

int PMPI_Register_datarep(const char *name, MPI_Datarep_conversion_function *rfn, MPI_Datarep_conversion_function *wfn,
                          MPI_Datarep_extent_function *efn, void *extra)
{ return do_register(name, (void (*)(void))rfn, (void (*)(void))wfn, efn, extra, 0); }
ALIAS(Register_datarep)

#if MPI_VERSION >= 4
int PMPI_Register_datarep_c(const char *name, MPI_Datarep_conversion_function_c *rfn,
                            MPI_Datarep_conversion_function_c *wfn, MPI_Datarep_extent_function *efn, void *extra)
{ return do_register(name, (void (*)(void))rfn, (void (*)(void))wfn, efn, extra, 1); }
ALIAS(Register_datarep_c)
#endif

/* Restart, before the replay: every kept registration again, in order.  One that succeeded before
 * must succeed again; the others are made for their effect on the library's names only. */
int mana_datarep_restart(char *err, size_t errlen)
{
    for (struct datarep *d = reps; d; d = d->next) {
        int rc;
        LOWER(rc = register_in_lower(d));
        if (d->ok && rc != MPI_SUCCESS) {
            snprintf(err, errlen, "the MPI library refused the data representation \"%s\" again (error %d)", d->name, rc);
            return -1;
        }
    }
    return 0;
}
