/*
 * io.c - MPI-IO under checkpoint-restart: open files as objects with a recipe, their state saved at
 * the checkpoint and put back at the restart.
 *
 * A file is a table entry (K_FILE, recipe R_FILE_OPEN) whose arr is a struct mana_file: the name as
 * the program gave it, its absolute path, the access mode, our copy of the hints, the view (with
 * references on its derived datatypes, so a program that frees them keeps them alive for us), the
 * atomicity, the error handler, and the file's device and inode.  The program's MPI_File is the
 * entry's address, for both MPIs (both define MPI_File as a pointer); FR() (mpi_int.h) reads the real
 * one from it.
 *
 * Collective file calls pass the file's own sequence gate, exactly as collectives on a communicator do
 * (core.c: a file is a "live communicator" for the collective drain), so a checkpoint never finds
 * one rank inside MPI_File_write_all waiting for a rank that stopped outside it.  Nonblocking file
 * requests (kind RQ_FILE) are completed by the point-to-point drain's last step, like nonblocking
 * collectives.  Split collectives do their whole work in the _begin call (MPI allows it) and keep
 * the status for the _end call, so no half-done operation ever spans a checkpoint.
 *
 * At the checkpoint (mana_io_drain) each open file's individual and (if the program used it) shared
 * pointer are read.  At the restart, the replay reopens each file in creation order on its
 * communicator, without MPI_MODE_CREATE and MPI_MODE_EXCL (the file exists: it is the program's data,
 * never created, truncated or deleted by us), after checking that the path still names the same file;
 * then mana_io_restart puts back the view, the atomicity and both pointers.  File contents are the
 * user's: the process checkpointer never saves or restores them, since the descriptors the MPI library
 * opens are marked as the lower half's (lower-half/lh_track.c).
 *
 * Errors on files go to the file's error handler, kept here: the real files keep the real default
 * (MPI_ERRORS_RETURN) and mana_file_err runs the program's choice (errh.c).
 */
#include "mpi_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


enum { SPLIT_NONE = 0, SPLIT_READ_ALL, SPLIT_READ_AT_ALL, SPLIT_READ_ORDERED, SPLIT_WRITE_ALL, SPLIT_WRITE_AT_ALL,
       SPLIT_WRITE_ORDERED };

struct mana_file {
    char     name[PATH_MAX];      /* as the program gave it (a ROMIO prefix such as "ufs:" included) */
    char     path[PATH_MAX];      /* absolute, without the prefix: for the identity check */
    int      amode;
    int      atomic;
    MPI_Info hints;               /* ours (upper half): open's, set_info's and set_view's hints */
    uint64_t errh;                /* the file's error handler (virtual handle bits) */
    /* the view */
    MPI_Offset disp;
    uint64_t etype, filetype;     /* virtual handles */
    struct vobj *etype_o, *filetype_o;  /* their entries when derived (a reference each), else NULL */
    char     datarep[MPI_MAX_DATAREP_STRING];
    int      view_set;
    /* a split collective begun and not yet ended, and the status its _end gives */
    int      split;
    int      split_rc;
    MPI_Status split_st;
    /* at the checkpoint */
    MPI_Offset pos, pos_shared;
    /* identity: the file a restart must find under the path */
    uint64_t dev, ino;
    /* Under MPI_THREAD_MULTIPLE: a dup of the file's communicator, ours, on which the members vote for the
     * turn of the file's collective calls and its close (ctor_turn.c); MPI_COMM_NULL otherwise */
    MPI_Comm vote;
};

/* MPI_FILE_NULL's error handler: the one new files get, and the one errors without a file go to. */
static uint64_t file_null_errh;

/* MPI_FILE_NULL's handler: MPI_ERRORS_RETURN until the program sets another. */
static uint64_t null_errh(void)
{
    if (!file_null_errh) file_null_errh = HBITS(MPI_ERRORS_RETURN);
    return file_null_errh;
}

static struct mana_file *mf_of(struct vobj *f) { return f->arr; }

struct vobj *mana_file_obj(MPI_File fh)
{
    uint64_t h = (uint64_t)(uintptr_t)fh, lo = (uint64_t)(uintptr_t)vtab;
    if (!fh || h < lo || h >= lo + (uint64_t)vtab_usable * sizeof(struct vobj) || (h - lo) % sizeof(struct vobj)) return NULL;
    struct vobj *f = (struct vobj *)(uintptr_t)h;
    return f->kind == K_FILE && (f->flags & VF_FOPEN) ? f : NULL;
}

int mana_file_err_in(struct vobj *f, MPI_File fh, int rc, const char *call)
{
    if (rc == MPI_SUCCESS) return rc;
    return mana_errh_file(f ? mf_of(f)->errh : null_errh(), fh, rc, call);
}

/* The file behind a handle, or the error handler's answer to a bad one. */
#define FILE_OR_ERR(fh, f) \
    struct vobj *f = mana_file_obj(fh); \
    if (!f) return mana_file_err(NULL, fh, MPI_ERR_FILE)

/* The turn of a call that waits for the file's whole group holding the lower half (its collective calls
 * and MPI_File_close) under MPI_THREAD_MULTIPLE: two threads doing so on two files in opposite orders on
 * two ranks deadlocked (test file_mt).  0: none taken. */
uint64_t mana_file_turn(struct vobj *f)
{
    if (!__builtin_expect(mana_thread_multiple, 0) || mf_of(f)->vote == MPI_COMM_NULL) return 0;
    return mana_ctor_turn_take(comm_obj(mf_of(f)->vote));
}

/* A ROMIO file-system prefix ("ufs:", "nfs:", "lustre:" ...): the path follows it. */
static const char *strip_prefix(const char *name)
{
    static const char *const fs[] = { "ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "panfs:", "xfs:", "testfs:",
                                      "daos:", "beegfs:", "quobyte:", "ime:" };
    for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
        if (strncmp(name, fs[i], strlen(fs[i])) == 0) return name + strlen(fs[i]);
    return name;
}

static void note_identity(struct mana_file *mf)
{
    struct stat st;
    if (stat(mf->path, &st) == 0) { mf->dev = st.st_dev; mf->ino = st.st_ino; }
}

/* A datatype of a view: its entry when derived (one more reference), NULL when predefined. */
static struct vobj *view_type_ref(MPI_Datatype t)
{
    struct vobj *o = vobj_of(HBITS(t));
    if (o && o->kind == K_TYPE) { vref(o); return o; }
    return NULL;
}

/* Everything the entry holds besides itself (the entry's arr goes with vrelease). */
static void file_drop(struct vobj *f)
{
    struct mana_file *mf = mf_of(f);
    vunref(mf->etype_o);
    vunref(mf->filetype_o);
    mf->etype_o = mf->filetype_o = NULL;
    if (mf->hints != MPI_INFO_NULL) PMPI_Info_free(&mf->hints);
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    MANA_CHECK_INIT();
    struct vobj *c = comm_obj(comm);
    if (!c) return mana_file_err(NULL, MPI_FILE_NULL, MPI_ERR_COMM);
    if (!filename || strlen(filename) >= PATH_MAX) return mana_file_err(NULL, MPI_FILE_NULL, MPI_ERR_BAD_FILE);
    struct mana_file *mf = calloc(1, sizeof *mf);
    if (!mf) return mana_file_err(NULL, MPI_FILE_NULL, MPI_ERR_NO_MEM);
    strcpy(mf->name, filename);
    const char *p = strip_prefix(filename);
    if (p[0] == '/' || !getcwd(mf->path, sizeof mf->path) || strlen(mf->path) + strlen(p) + 2 > sizeof mf->path)
        snprintf(mf->path, sizeof mf->path, "%s", p);
    else
        strcat(strcat(mf->path, "/"), p);
    mf->amode = amode;
    mf->hints = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL && mana_info_dup(info, &mf->hints) != MPI_SUCCESS) mf->hints = MPI_INFO_NULL;
    mf->errh = null_errh();
    mf->etype = mf->filetype = HBITS(MPI_BYTE);
    strcpy(mf->datarep, "native");
    mf->vote = MPI_COMM_NULL;

    /* The entry exists before the call and is marked open inside the excursion that opens the real
     * file: a checkpoint comes before (no file: the replay skips it, the program opens it after) or
     * after (an open file with everything the replay needs), never between.  Under MPI_THREAD_MULTIPLE
     * the open waits for its turn on the communicator first (ctor_turn.c), before the entry is made: its
     * creation order is the replay's, the same on every member only in turn order (as for windows). */
    uint64_t turn = __builtin_expect(mana_thread_multiple, 0) ? mana_ctor_turn_take(c) : 0;
    struct vobj *f = vnew(K_FILE, 0);
    f->recipe = R_FILE_OPEN;
    f->arr = mf;
    f->arr_len = sizeof *mf;
    mana_record_parent(f, c);
    c->flags |= VF_FILE_PARENT;
    MPI_Info ri;
    MPI_File rf = MPI_FILE_NULL;
    int rc;
    COLL_LOWER(c, ri = mana_info_real_lower(info);
               rc = real.File_open(R(comm), filename, amode, ri, &rf);
               if (rc == MPI_SUCCESS) {
                   f->real = (uint64_t)(uintptr_t)rf;
                   f->gid = mana_gid_combine(c->gid, c->seq);   /* the same on every member */
                   f->flags |= VF_FOPEN;
               }
               mana_info_real_free_lower(ri));
    mana_ctor_turn_give(turn);
    if (rc != MPI_SUCCESS) {
        file_drop(f);
        vrelease(f);
        *fh = MPI_FILE_NULL;
        return mana_file_err(NULL, MPI_FILE_NULL, rc);
    }
    note_identity(mf);
    *fh = (MPI_File)(uintptr_t)f;
    /* The file's collective calls and its close wait for the group too, but the program may run its own
     * collectives on the communicator meanwhile: their turns are voted on a dup of ours (a communicator
     * like any other: counted by the drains, made again by the replay), as a window's are (win.c). */
    if (__builtin_expect(mana_thread_multiple, 0) && PMPI_Comm_dup(comm, &mf->vote) != MPI_SUCCESS)
        mf->vote = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
ALIAS(File_open)

int PMPI_File_close(MPI_File *fh)
{
    MANA_CHECK_INIT();
    FILE_OR_ERR(*fh, f);
    MPI_File rf;
    int rc;
    /* closed for the checkpoint in the same excursion that closes it for MPI; the real handle read
     * past the gate (a checkpoint may come while this thread waits there, and replace it) */
    MPI_Comm vote = mf_of(f)->vote;
    uint64_t turn = mana_file_turn(f);
    COLL_LOWER(f, rf = FR(*fh); rc = real.File_close(&rf); if (rc == MPI_SUCCESS) f->flags &= ~VF_FOPEN);
    mana_ctor_turn_give(turn);
    if (rc != MPI_SUCCESS) return mana_file_err(f, *fh, rc);
    if (vote != MPI_COMM_NULL) PMPI_Comm_free(&vote);
    file_drop(f);
    vrelease(f);
    *fh = MPI_FILE_NULL;
    return MPI_SUCCESS;
}
ALIAS(File_close)

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    MANA_CHECK_INIT();
    MPI_Info ri;
    int rc;
    /* one excursion: a checkpoint between two would leave ri the old lower half's */
    LOWER(ri = mana_info_real_lower(info); rc = real.File_delete(filename, ri); mana_info_real_free_lower(ri));
    return mana_file_err(NULL, MPI_FILE_NULL, rc);
}
ALIAS(File_delete)

/* Our hints gain INFO's (set_info, set_view). */
static void hints_merge(struct mana_file *mf, MPI_Info info)
{
    int n = 0;
    if (info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS || n == 0) return;
    if (mf->hints == MPI_INFO_NULL && PMPI_Info_create(&mf->hints) != MPI_SUCCESS) { mf->hints = MPI_INFO_NULL; return; }
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        if (PMPI_Info_get_nthkey(info, i, key) == MPI_SUCCESS &&
            PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS && flag)
            PMPI_Info_set(mf->hints, key, val);
    }
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep,
                       MPI_Info info)
{
    MANA_CHECK_INIT();
    FILE_OR_ERR(fh, f);
    struct mana_file *mf = mf_of(f);
    if (!datarep || strlen(datarep) >= sizeof mf->datarep) return mana_file_err(f, fh, MPI_ERR_UNSUPPORTED_DATAREP);
    /* references first: the view may outlive the program's handles */
    struct vobj *et = view_type_ref(etype), *ft = view_type_ref(filetype);
    struct vobj *old_et = mf->etype_o, *old_ft = mf->filetype_o;
    MPI_Info ri;
    int rc;
    /* recorded in the excursion that sets it (a checkpoint sees the old view with the old MPI state,
     * or the new with the new); the copy is a loop, not a libc call, on the lower TLS */
    FILE_COLL_LOWER(f, ri = mana_info_real_lower(info);
               rc = real.File_set_view(FR(fh), disp, R(etype), R(filetype), datarep, ri);
               if (rc == MPI_SUCCESS) {
                   mf->disp = disp;
                   mf->etype = HBITS(etype);
                   mf->filetype = HBITS(filetype);
                   mf->etype_o = et;
                   mf->filetype_o = ft;
                   size_t k = 0;
                   for (; datarep[k]; k++) mf->datarep[k] = datarep[k];
                   mf->datarep[k] = 0;
                   mf->view_set = 1;
               }
               mana_info_real_free_lower(ri));
    if (rc != MPI_SUCCESS) {
        vunref(et);
        vunref(ft);
        return mana_file_err(f, fh, rc);
    }
    vunref(old_et);
    vunref(old_ft);
    hints_merge(mf, info);
    return MPI_SUCCESS;
}
ALIAS(File_set_view)

/* A view's datatype as MPI_File_get_view gives it: predefined as is, derived as a new one the program frees. */
static int view_type_out(uint64_t h, MPI_Datatype *out)
{
    MPI_Datatype t = HMAKE(MPI_Datatype, h);
    struct vobj *o = vobj_of(h);
    if (!o || o->kind != K_TYPE) { *out = t; return MPI_SUCCESS; }
    return PMPI_Type_dup(t, out);
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep)
{
    MANA_CHECK_INIT();
    FILE_OR_ERR(fh, f);
    const struct mana_file *mf = mf_of(f);
    int rc = view_type_out(mf->etype, etype);
    if (rc == MPI_SUCCESS) rc = view_type_out(mf->filetype, filetype);
    if (rc != MPI_SUCCESS) return mana_file_err(f, fh, rc);
    *disp = mf->disp;
    strcpy(datarep, mf->datarep);
    return MPI_SUCCESS;
}
ALIAS(File_get_view)

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    MANA_CHECK_INIT();
    FILE_OR_ERR(fh, f);
    int rc;
    FILE_COLL_LOWER(f, rc = real.File_set_atomicity(FR(fh), flag); if (rc == MPI_SUCCESS) mf_of(f)->atomic = flag != 0);
    return mana_file_err(f, fh, rc);
}
ALIAS(File_set_atomicity)

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    MANA_CHECK_INIT();
    FILE_OR_ERR(fh, f);
    MPI_Info ri;
    int rc;
    FILE_COLL_LOWER(f, ri = mana_info_real_lower(info); rc = real.File_set_info(FR(fh), ri); mana_info_real_free_lower(ri));
    if (rc == MPI_SUCCESS) hints_merge(mf_of(f), info);
    return mana_file_err(f, fh, rc);
}
ALIAS(File_set_info)

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    MANA_CHECK_INIT();
    FILE_OR_ERR(fh, f);
    MPI_Info ri;
    int rc;
    LOWER(rc = real.File_get_info(FR(fh), &ri));
    if (rc != MPI_SUCCESS) return mana_file_err(f, fh, rc);
    rc = mana_info_from_real(ri, info_used);
    LOWER(real.Info_free(&ri));
    return mana_file_err(f, fh, rc);
}
ALIAS(File_get_info)

/* The mode the program opened it with (a restart opens it again without CREATE and EXCL). */
int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    MANA_CHECK_INIT();
    FILE_OR_ERR(fh, f);
    *amode = mf_of(f)->amode;
    return MPI_SUCCESS;
}
ALIAS(File_get_amode)

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    MANA_CHECK_INIT();
    FILE_OR_ERR(fh, f);
    MPI_Group g;
    int rc;
    GROUP_LOWER(rc, rc = real.File_get_group(FR(fh), &g), g, group);
    return rc != MPI_SUCCESS ? mana_file_err(f, fh, rc) : rc;
}
ALIAS(File_get_group)

/* ---- error handlers ---- */

int PMPI_File_set_errhandler(MPI_File fh, MPI_Errhandler eh)
{
    MANA_CHECK_INIT();
    if (!mana_errh_file_ok(HBITS(eh))) return mana_file_err(mana_file_obj(fh), fh, MPI_ERR_ARG);
    if (fh == MPI_FILE_NULL) { file_null_errh = HBITS(eh); return MPI_SUCCESS; }
    FILE_OR_ERR(fh, f);
    mf_of(f)->errh = HBITS(eh);
    return MPI_SUCCESS;
}
ALIAS(File_set_errhandler)

int PMPI_File_get_errhandler(MPI_File fh, MPI_Errhandler *eh)
{
    MANA_CHECK_INIT();
    if (fh == MPI_FILE_NULL) { *eh = HMAKE(MPI_Errhandler, null_errh()); return MPI_SUCCESS; }
    FILE_OR_ERR(fh, f);
    *eh = HMAKE(MPI_Errhandler, mf_of(f)->errh);
    return MPI_SUCCESS;
}
ALIAS(File_get_errhandler)

int PMPI_File_call_errhandler(MPI_File fh, int code)
{
    MANA_CHECK_INIT();
    struct vobj *f = mana_file_obj(fh);
    if (!f && fh != MPI_FILE_NULL) return MPI_ERR_FILE;
    mana_file_err(f, fh, code);
    return MPI_SUCCESS;
}
ALIAS(File_call_errhandler)

/* ---- Fortran handles: the entry's table index above MANA_F_BASE, the same after a restart ---- */

MPI_Fint PMPI_File_c2f(MPI_File fh)
{
    struct vobj *f = mana_file_obj(fh);
    return f ? (MPI_Fint)(MANA_F_BASE + f->idx) : 0;
}
ALIAS(File_c2f)

MPI_File PMPI_File_f2c(MPI_Fint i)
{
    if (i <= MANA_F_BASE || (uint32_t)(i - MANA_F_BASE) >= vtab_usable) return MPI_FILE_NULL;
    MPI_File fh = (MPI_File)(uintptr_t)&vtab[i - MANA_F_BASE];
    return mana_file_obj(fh) ? fh : MPI_FILE_NULL;
}
ALIAS(File_f2c)

/* ---- split collectives: all the work in _begin (through the file's gate), the status kept for _end ---- */

static int split_begin(MPI_File fh, int kind, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype type)
{
    MANA_CHECK_INIT();
    FILE_OR_ERR(fh, f);
    struct mana_file *mf = mf_of(f);
    /* one split collective at a time per file (MPI 4.0 14.4.5) */
    if (mf->split) return mana_file_err(f, fh, MPI_ERR_OTHER);
    if (kind == SPLIT_READ_ORDERED || kind == SPLIT_WRITE_ORDERED) f->flags |= VF_FSHARED;
    MPI_Status st;
    int rc;
    mana_cnt n = (mana_cnt)count;      /* REAL_C: the _c functions where the library has them */
    MPI_File rf;
    MPI_Datatype rt;
    /* real handles read past the gate: a checkpoint may come while this thread waits there */
    FILE_COLL_LOWER(f, rf = FR(fh); rt = R(type); switch (kind) {
        case SPLIT_READ_ALL: rc = REAL_C(File_read_all)(rf, buf, n, rt, &st); break;
        case SPLIT_READ_AT_ALL: rc = REAL_C(File_read_at_all)(rf, off, buf, n, rt, &st); break;
        case SPLIT_READ_ORDERED: rc = REAL_C(File_read_ordered)(rf, buf, n, rt, &st); break;
        case SPLIT_WRITE_ALL: rc = REAL_C(File_write_all)(rf, buf, n, rt, &st); break;
        case SPLIT_WRITE_AT_ALL: rc = REAL_C(File_write_at_all)(rf, off, buf, n, rt, &st); break;
        default: rc = REAL_C(File_write_ordered)(rf, buf, n, rt, &st); break;
        });
    /* (after the excursion: no MPI state here, only what _end will say, and this thread's stack is in
     * the image should a checkpoint come first) */
    mf->split = kind;
    mf->split_rc = rc;
    mf->split_st = st;
    return MPI_SUCCESS;
}

static int split_end(MPI_File fh, int kind, MPI_Status *status)
{
    MANA_CHECK_INIT();
    FILE_OR_ERR(fh, f);
    struct mana_file *mf = mf_of(f);
    if (mf->split != kind) return mana_file_err(f, fh, MPI_ERR_OTHER);
    mf->split = SPLIT_NONE;
    if (mf->split_rc != MPI_SUCCESS) return mana_file_err(f, fh, mf->split_rc);
    status_give(status, &mf->split_st);
    return MPI_SUCCESS;
}

int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_READ_ALL, 0, buf, count, type); }
ALIAS(File_read_all_begin)
int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_READ_AT_ALL, off, buf, count, type); }
ALIAS(File_read_at_all_begin)
int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_READ_ORDERED, 0, buf, count, type); }
ALIAS(File_read_ordered_begin)
int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_WRITE_ALL, 0, (void *)buf, count, type); }
ALIAS(File_write_all_begin)
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_WRITE_AT_ALL, off, (void *)buf, count, type); }
ALIAS(File_write_at_all_begin)
int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_WRITE_ORDERED, 0, (void *)buf, count, type); }
ALIAS(File_write_ordered_begin)
#if MPI_VERSION >= 4
int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_READ_ALL, 0, buf, count, type); }
ALIAS(File_read_all_begin_c)
int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_READ_AT_ALL, off, buf, count, type); }
ALIAS(File_read_at_all_begin_c)
int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_READ_ORDERED, 0, buf, count, type); }
ALIAS(File_read_ordered_begin_c)
int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_WRITE_ALL, 0, (void *)buf, count, type); }
ALIAS(File_write_all_begin_c)
int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset off, const void *buf, MPI_Count count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_WRITE_AT_ALL, off, (void *)buf, count, type); }
ALIAS(File_write_at_all_begin_c)
int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type)
{ return split_begin(fh, SPLIT_WRITE_ORDERED, 0, (void *)buf, count, type); }
ALIAS(File_write_ordered_begin_c)
#endif
int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{ (void)buf; return split_end(fh, SPLIT_READ_ALL, status); }
ALIAS(File_read_all_end)
int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{ (void)buf; return split_end(fh, SPLIT_READ_AT_ALL, status); }
ALIAS(File_read_at_all_end)
int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{ (void)buf; return split_end(fh, SPLIT_READ_ORDERED, status); }
ALIAS(File_read_ordered_end)
int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{ (void)buf; return split_end(fh, SPLIT_WRITE_ALL, status); }
ALIAS(File_write_all_end)
int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{ (void)buf; return split_end(fh, SPLIT_WRITE_AT_ALL, status); }
ALIAS(File_write_at_all_end)
int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{ (void)buf; return split_end(fh, SPLIT_WRITE_ORDERED, status); }
ALIAS(File_write_ordered_end)

/* ---- checkpoint and restart ---- */

/* The files, open ones only, in the order the program opened them. */
static struct vobj **open_files(uint32_t *n)
{
    uint32_t used = mana_vtab_used(), k = 0;
    struct vobj **l = malloc(((size_t)used + 1) * sizeof *l);
    if (!l) return NULL;
    for (uint32_t i = 1; i <= used; i++)
        if (vtab[i].kind == K_FILE && (vtab[i].flags & VF_FOPEN)) l[k++] = &vtab[i];
    for (uint32_t i = 1; i < k; i++)            /* insertion sort by creation order: few files */
        for (uint32_t j = i; j > 0 && l[j - 1]->order > l[j]->order; j--) {
            struct vobj *t = l[j]; l[j] = l[j - 1]; l[j - 1] = t;
        }
    *n = k;
    return l;
}

/* Called by the drain once every request completed and no program thread runs: the pointers.  (No
 * malloc here: a stopped program thread may hold the allocator's lock.) */
int mana_io_drain(char *err, size_t errlen)
{
    uint32_t used = mana_vtab_used();
    int rc = MPI_SUCCESS;
    for (uint32_t i = 1; i <= used && rc == MPI_SUCCESS; i++) {
        struct vobj *f = &vtab[i];
        if (f->kind != K_FILE || !(f->flags & VF_FOPEN)) continue;
        struct mana_file *mf = mf_of(f);
        MPI_File rf = (MPI_File)(uintptr_t)f->real;
        mf->pos = mf->pos_shared = 0;
        /* (a sequential file has no individual pointer; the shared one is read only where the program
         * used it: ROMIO makes a file for it on first use) */
        if (!(mf->amode & MPI_MODE_SEQUENTIAL)) LOWER(rc = real.File_get_position(rf, &mf->pos));
        if (rc == MPI_SUCCESS && (f->flags & VF_FSHARED)) LOWER(rc = real.File_get_position_shared(rf, &mf->pos_shared));
        if (rc != MPI_SUCCESS) snprintf(err, errlen, "MPI-IO: cannot read the file pointers of %s (MPI error %d)", mf->name, rc);
    }
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* The image's MPI_OBJECTS records of the open files (after mana_io_drain; no malloc, as there). */
int mana_io_objects(void *ctx, void *(*put)(void *ctx, const void *data, size_t len))
{
    uint32_t used = mana_vtab_used();
    int n = 0;
    for (uint32_t i = 1; i <= used; i++) {
        struct vobj *f = &vtab[i];
        if (f->kind != K_FILE || !(f->flags & VF_FOPEN)) continue;
        const struct mana_file *mf = mf_of(f);
        struct mana_img_mpi_object o;
        memset(&o, 0, sizeof o);
        o.kind = MANA_MPI_OBJ_FILE;
        o.flags = ((f->flags & VF_FSHARED) ? MANA_MPI_OBJF_SHARED_FP : 0) | (mf->atomic ? MANA_MPI_OBJF_ATOMIC : 0) |
                  (mf->view_set ? MANA_MPI_OBJF_VIEW : 0);
        o.amode = mf->amode;
        o.comm_size = f->parent[0] ? (int32_t)f->parent[0]->a[7] : 0;
        o.position = mf->pos;
        o.shared_position = mf->pos_shared;
        o.disp = mf->disp;
        o.dev = mf->dev;
        o.ino = mf->ino;
        o.name_len = (uint32_t)strlen(mf->name);
        if (!put(ctx, &o, sizeof o) || !put(ctx, mf->name, o.name_len)) return -1;
        n++;
    }
    return n;
}

/* Replay of R_FILE_OPEN: the same file, opened again on the replayed communicator (pc: real). */
int mana_file_replay(struct vobj *f, MPI_Comm pc)
{
    if (!(f->flags & VF_FOPEN)) return MPI_SUCCESS;     /* closed, or not yet open at the checkpoint */
    struct mana_file *mf = mf_of(f);
    struct stat st;
    if (stat(mf->path, &st) != 0) {
        mana_say("MANA: restart: MPI-IO file %s was open at the checkpoint and cannot be found now (%s); it is "
                 "the program's data, so the restart does not create it", mf->path, strerror(errno));
        return MPI_ERR_NO_SUCH_FILE;
    }
    if (mf->ino && (st.st_ino != mf->ino || st.st_dev != mf->dev)) {
        /* (asked in the restart's environment, which the lower half read: ours is the checkpoint's) */
        if (!(lower.lh->restart_flags & MANA_RESTART_F_IO_REPLACED)) {
            mana_say("MANA: restart: MPI-IO file %s is not the file that was open at the checkpoint (device %llu "
                     "inode %llu then, device %llu inode %llu now): it was replaced or copied. Restart with "
                     "MANA_IO_REPLACED=1 to use it anyway", mf->path, (unsigned long long)mf->dev,
                     (unsigned long long)mf->ino, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
            return MPI_ERR_FILE;
        }
        mf->dev = st.st_dev;
        mf->ino = st.st_ino;
    }
    MPI_Info ri = mana_info_real(mf->hints);
    MPI_File rf = MPI_FILE_NULL;
    int rc;
    /* the file exists: CREATE|EXCL would fail and CREATE alone is not needed; DELETE_ON_CLOSE stays */
    int amode = mf->amode & ~(MPI_MODE_CREATE | MPI_MODE_EXCL);
    LOWER(rc = real.File_open(pc, mf->name, amode, ri, &rf));
    mana_info_real_free(ri);
    if (rc != MPI_SUCCESS) {
        mana_say("MANA: restart: cannot open MPI-IO file %s again (MPI error %d)", mf->name, rc);
        return rc;
    }
    f->real = (uint64_t)(uintptr_t)rf;
    return MPI_SUCCESS;
}

/* After the replay (every datatype exists again): views, atomicity and pointers, file by file in the
 * order they were opened (collective calls: every member goes through the same files in the same order). */
int mana_io_restart(char *err, size_t errlen)
{
    uint32_t n;
    struct vobj **l = open_files(&n);
    if (!l) { snprintf(err, errlen, "out of memory"); return -1; }
    int rc = MPI_SUCCESS;
    const char *what = "";
    for (uint32_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        struct vobj *f = l[i];
        struct mana_file *mf = mf_of(f);
        MPI_File rf = (MPI_File)(uintptr_t)f->real;
        if (mf->view_set) {
            MPI_Info ri = mana_info_real(mf->hints);
            what = "view";
            LOWER(rc = real.File_set_view(rf, mf->disp, HMAKE(MPI_Datatype, v2r(mf->etype)),
                                          HMAKE(MPI_Datatype, v2r(mf->filetype)), mf->datarep, ri));
            mana_info_real_free(ri);
        }
        if (rc == MPI_SUCCESS && mf->atomic) { what = "atomicity"; LOWER(rc = real.File_set_atomicity(rf, 1)); }
        if (rc == MPI_SUCCESS && !(mf->amode & MPI_MODE_SEQUENTIAL)) {
            what = "individual file pointer";
            LOWER(rc = real.File_seek(rf, mf->pos, MPI_SEEK_SET));
        }
        if (rc == MPI_SUCCESS) {
            /* The shared pointer: a collective seek, made by every member when any of them used it (the
             * members agree over the file's communicator, kept for this by the replay). */
            struct vobj *c = f->parent[0];
            int64_t mine[2] = { (f->flags & VF_FSHARED) ? 1 : 0, mf->pos_shared }, all[2] = { 0, 0 };
            what = "shared file pointer";
            LOWER(rc = real.Allreduce(mine, all, 2, R(MPI_INT64_T), R(MPI_MAX), HMAKE(MPI_Comm, c->real)));
            if (rc == MPI_SUCCESS && all[0]) {
                f->flags |= VF_FSHARED;
                LOWER(rc = real.File_seek_shared(rf, (MPI_Offset)all[1], MPI_SEEK_SET));
            }
        }
        if (rc != MPI_SUCCESS) snprintf(err, errlen, "MPI-IO: cannot restore the %s of %s (MPI error %d)", what, mf->name, rc);
    }
    free(l);
    /* the freed communicators files were opened on: replay.c kept them for the agreement above */
    uint32_t used = mana_vtab_used();
    for (uint32_t i = 1; i <= used; i++) {
        struct vobj *o = &vtab[i];
        if (o->kind != K_COMM || !(o->flags & VF_ZOMBIE) || !(o->flags & VF_FILE_PARENT) || !o->real) continue;
        MPI_Comm c = HMAKE(MPI_Comm, o->real);
        LOWER(real.Comm_free(&c));
        o->real = 0;
    }
    return rc == MPI_SUCCESS ? 0 : -1;
}
