/*
 * win.c - one-sided communication (RMA windows) under checkpoint-restart.
 *
 * A window is a table entry (K_WIN, recipe R_WIN_CREATE) whose arr is a struct mana_win: the flavor,
 * base, size and displacement unit, our copy of the hints, the name, the error handler, the memory
 * attached to a dynamic window, and the synchronization state a restart must put back (a fence epoch
 * in use, the locks and lock_all this rank holds).  Every window's memory is the program's, in the
 * upper half, so it is in the image at the same address: MPI_Win_create takes the program's memory,
 * MPI_Win_allocate allocates it here (malloc, as MPI_Alloc_mem does, mem.c) and calls the real
 * MPI_Win_create on it, and a dynamic window's attachments are the program's memory.  The replay
 * (replay.c) makes each live window again on the same memory and attaches the same regions.
 *
 * Collective window calls (MPI_Win_fence, MPI_Win_set_info, MPI_Win_free) pass the window's own
 * sequence gate, exactly as collective file calls do (io.c): a live window is a "live communicator" of
 * the collective drain (core.c), so no rank is left inside a fence that a stopped partner never enters.
 *
 * At the checkpoint, once the point-to-point and MPI-IO drains are done (mana_win_drain), the
 * operations still outstanding are completed: on every window whose fence epoch is in use a real
 * MPI_Win_fence(0) (all members are in the drain and take the windows in creation order), and for
 * every lock this rank holds a real flush (flush_all under lock_all); then the request-based
 * operations (MPI_Rput...: RQ_RMA) complete, and a real barrier keeps every rank in the MPI library
 * (so its progress engine turns) until every rank is done: a target's progress is what completes an
 * origin's flush in implementations without asynchronous progress.  At the restart (mana_win_restart)
 * a real fence opens the epoch again on the windows that were in one, and the locks and lock_all this
 * rank held are taken again, so a program checkpointed between MPI_Win_lock_all and
 * MPI_Win_unlock_all goes on in its epoch.
 *
 * Shared-memory windows (MPI_Win_allocate_shared) are upper-half memory too: one file in /dev/shm per
 * window, made by rank 0 of the communicator, mapped MAP_SHARED by every member and unlinked once all
 * have mapped it; each member's real window is an MPI_Win_create over its own part, and
 * MPI_Win_shared_query answers from our table.  The image writer saves the mapping of the deleted file
 * as shared memory with its bytes (every rank the whole segment; the program is stopped everywhere
 * until every image is written, so the copies agree); the restart restores it as this process's own
 * shared memory, and the replay makes a new file, writes each member's part into it from its copy and
 * maps it over the same address on every member (see "shared-memory windows" below).
 *
 * Errors on windows go to the window's error handler, kept here (errh.c runs it): the real windows
 * keep MPI_ERRORS_RETURN.
 */
#include "mpi_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>


struct wlock { int rank, type; };

/* One kind of general active-target epoch of a window (exposure: MPI_Win_post; access: MPI_Win_start). */
struct pscw_epoch {
    int  open;                    /* the program's post/start returned, its wait/test/complete not yet */
    int  reopen;                  /* the checkpoint's drain closed it: resume or restart opens it again */
    int  over;                    /* an exposure epoch the drain ended whose origins had all completed:
                                   * the program's next wait or test ends it without the real library */
    int  n;                       /* its group, as world ranks (the program may free the group) */
    int *ranks;
    unsigned char *keep;          /* exposure: keep[i], origin ranks[i] still had its access epoch open
                                   * at the drain (so it opens it again and completes it later) */
};

/* A window's general active-target state.  count[r]: the epochs of this kind this rank opened that
 * named world rank r, since the window was made.  The k-th access epoch an origin starts towards a
 * target matches the k-th exposure epoch that target posts to it, so the counts of both sides of
 * every pair are equal exactly when every open epoch has its partner open (or done): the drain can
 * then close all of them. */
struct pscw {
    struct pscw_epoch expose, access;
    int       nworld;             /* 0 until the first post or start: then the count arrays exist */
    uint64_t *posts, *starts;     /* by world rank */
};
struct wattach { void *base; MPI_Aint size; };

/* A shared-memory window's segment: one mapping of one file per node, each member's part in it; or
 * (lower) the alias of the real library's segment ("windows on the real library's memory" below).
 * nul: the real MPI_Win_shared_query answered NULL for that part (Open MPI does for an empty part of
 * a noncontiguous layout), and so do we. */
struct shm_part { MPI_Aint off, size; int disp_unit, nul; };
struct shm_seg {
    char    *map;                 /* this process's mapping (NULL: not a shared-memory window); the same
                                   * address after a restart, since the program holds pointers into it */
    int      lower;               /* map is an alias of the real library's memory (lseg_*) */
    size_t   len;                 /* mapped bytes (whole pages) */
    int      n, me;               /* the communicator's size and this rank in it */
    struct shm_part *parts;       /* by rank in the communicator */
};

struct mana_win {
    int      flavor;              /* MPI_WIN_FLAVOR_CREATE, _ALLOCATE, _DYNAMIC or _SHARED */
    int      own_mem;             /* MPI_Win_allocate: base is ours, freed with the window */
    void    *base;
    MPI_Aint size;
    int      disp_unit;
    int      model;               /* MPI_WIN_SEPARATE or MPI_WIN_UNIFIED, as the real MPI said */
    MPI_Info hints;               /* ours (upper half): create's and set_info's */
    uint64_t errh;                /* the window's error handler (virtual handle bits) */
    char     name[MPI_MAX_OBJECT_NAME];
    /* synchronization state, changed in the excursion of the real call that changes it */
    int      fence_open;          /* the last fence did not say MPI_MODE_NOSUCCEED */
    int      lock_all;            /* MPI_Win_lock_all held */
    int      nlocks, caplocks;
    struct wlock *locks;          /* MPI_Win_lock held, by target */
    int      natt, capatt;
    struct wattach *att;          /* a dynamic window's attached memory */
    /* general active-target synchronization (post/start/complete/wait): the program's epochs */
    struct pscw pscw;
    struct shm_seg shm;           /* MPI_Win_allocate_shared; MPI_Win_allocate's alias (map, len, lower) */
    /* Under MPI_THREAD_MULTIPLE: a dup of the window's communicator, ours, on which the members vote for
     * the turn of a fence or the free (ctor_turn.c); MPI_COMM_NULL otherwise */
    MPI_Comm vote;
};

static struct mana_win *mw_of(struct vobj *w) { return w->arr; }

int mana_win_passive_open(const struct vobj *w)
{
    const struct mana_win *mw = w->arr;
    return mw && (__atomic_load_n(&mw->nlocks, __ATOMIC_RELAXED) > 0 || __atomic_load_n(&mw->lock_all, __ATOMIC_RELAXED));
}

struct vobj *mana_win_obj(MPI_Win win)
{
    struct vobj *w = vobj_of(HBITS(win));
    return w && w->kind == K_WIN && (w->flags & VF_WOPEN) ? w : NULL;
}

int mana_win_err_in(struct vobj *w, MPI_Win win, int rc, const char *call)
{
    if (rc == MPI_SUCCESS || !w) return rc;
    return mana_errh_win(mw_of(w)->errh, win, rc, call);
}

#define WIN_OR_ERR(win, w) \
    struct vobj *w = mana_win_obj(win); \
    if (!w) return mana_win_err(NULL, win, MPI_ERR_WIN)

/* Room for one more element of an array the next excursion may extend (no malloc on the lower TLS). */
static int reserve(void **arr, int n, int *cap, size_t elem)
{
    if (n < *cap) return 0;
    int c = *cap ? 2 * *cap : 4;
    void *p = realloc(*arr, (size_t)c * elem);
    if (!p) return -1;
    *arr = p;
    *cap = c;
    return 0;
}

/* Everything the entry holds besides itself (the entry's arr goes with vrelease). */
static void win_drop(struct vobj *w)
{
    struct mana_win *mw = mw_of(w);
    if (mw->hints != MPI_INFO_NULL) PMPI_Info_free(&mw->hints);
    free(mw->locks);
    free(mw->att);
    free(mw->pscw.expose.ranks);
    free(mw->pscw.access.ranks);
    free(mw->pscw.expose.keep);
    free(mw->pscw.access.keep);
    free(mw->pscw.posts);
    free(mw->pscw.starts);
    memset(&mw->pscw, 0, sizeof mw->pscw);
    if (mw->own_mem) free(mw->base);
    if (mw->shm.map && munmap(mw->shm.map, mw->shm.len) != 0 && mana_debug_on())
        mana_say("mana: munmap of a shared-memory window's segment failed");
    free(mw->shm.parts);
    memset(&mw->shm, 0, sizeof mw->shm);
    mw->locks = NULL;
    mw->att = NULL;
}

/* Inside an excursion: the real window's settings after it was made (creation or replay). */
static void real_setup(MPI_Win rw, struct mana_win *mw)
{
    real.Win_set_errhandler(rw, R(MPI_ERRORS_RETURN));
    int *model = NULL, flag = 0;
    if (real.Win_get_attr(rw, MPI_WIN_MODEL, &model, &flag) == MPI_SUCCESS && flag && model) mw->model = *model;
}

/* ---- shared-memory windows: the segment ----
 * MPI_Win_allocate_shared on communicator C: every member's (size, disp_unit, alloc_shared_noncontig)
 * gathered, the parts laid out in rank order (contiguous, as the standard's default says: part i+1
 * begins where part i ends; with alloc_shared_noncontig=true of rank 0 each part begins on a page),
 * one file of that size made by rank 0 in /dev/shm, mapped MAP_SHARED by every member (each at an
 * address of its own) and unlinked once every member has it mapped.  All of it runs in one excursion
 * of the window's creating call (raw system calls: the lower half's TLS is current), so a checkpoint
 * comes before the window exists or after it is complete, never between.  The same at the replay,
 * where each member first writes its own part of the copy its image restored into the new file, then
 * maps the file over that copy (MAP_FIXED, the same address). */

#define SHM_PAGE 4096UL
#define SHM_PATH 80

/* What rank 0 tells the others: its file's name, or why there is none; unlink_err (rank 0, not sent):
 * the errno of a failed unlink, for a warning once out of the excursion. */
struct shm_name { int err; char path[SHM_PATH]; int unlink_err; };

/* Why a segment could not be made (the same on every member after the last agreement). */
enum { SHM_OK, SHM_ENODE, SHM_ECREATE, SHM_EOPEN, SHM_EWRITE, SHM_EMAP, SHM_EMPI };

static const char *shm_why(int e)
{
    switch (e) {
    case SHM_ENODE:   return "the ranks of its communicator are not all on one node";
    case SHM_ECREATE: return "rank 0 cannot create the segment's file in /dev/shm";
    case SHM_EOPEN:   return "a rank cannot open the segment's file";
    case SHM_EWRITE:  return "a rank cannot write its part into the segment's file";
    case SHM_EMAP:    return "a rank cannot map the segment";
    default:          return "an MPI call failed";
    }
}

/* A name no other segment has: this process's id, a count, the clock (a restart's rank 0 may have the
 * pid a dead job's left-over file names).  Upper half (snprintf), before the excursion. */
static void shm_name_make(char *path)
{
    static unsigned count;
    struct timespec ts = { 0, 0 };
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) ts.tv_nsec = 0;
    snprintf(path, SHM_PATH, "/dev/shm/mana-shm-%d-%u-%lx", mana_getpid(), ++count, (unsigned long)ts.tv_nsec);
}

/* The parts from the gathered triples (size, disp_unit, noncontig) of every member; rank 0's noncontig
 * decides the layout.  An empty part's address is what the MPI library's own MPI_Win_shared_query
 * gives: MPICH gives NULL, Open MPI NULL in a noncontiguous layout and else where the part would be. */
static void shm_layout(struct shm_seg *s, const int64_t *all)
{
    int noncontig = all[2] != 0;
#ifdef OPEN_MPI
    int empty_null = noncontig;
#else
    int empty_null = 1;
#endif
    uint64_t off = 0;
    for (int i = 0; i < s->n; i++) {
        if (noncontig) off = (off + SHM_PAGE - 1) & ~(SHM_PAGE - 1);
        s->parts[i].off = (MPI_Aint)off;
        s->parts[i].size = (MPI_Aint)all[3 * i];
        s->parts[i].disp_unit = (int)all[3 * i + 1];
        s->parts[i].nul = empty_null && all[3 * i] == 0;
        off += (uint64_t)all[3 * i];
    }
    s->len = (size_t)((off ? off : 1) + SHM_PAGE - 1) & ~(SHM_PAGE - 1);
}

/* Rank 0: the segment's file, LEN bytes of zeros.  0 or SHM_ECREATE (*sys_err: the errno). */
static int shm_file_create(const char *path, size_t len, int *sys_err)
{
    long fd = mana_sys4(SYS_openat, AT_FDCWD, (long)path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) { *sys_err = (int)-fd; return SHM_ECREATE; }
    long r = mana_sys2(SYS_ftruncate, fd, (long)len);
    mana_sys1(SYS_close, fd);
    if (r < 0) { *sys_err = (int)-r; mana_sys1(SYS_unlink, (long)path); return SHM_ECREATE; }
    return SHM_OK;
}

/* Every member: the file mapped (RESTORE: this rank's part of the restored copy written into it first,
 * then the mapping over that copy at its address).  0 or SHM_E*. */
static int shm_file_map(struct shm_seg *s, const char *path, int restore, int *sys_err)
{
    long fd = mana_sys4(SYS_openat, AT_FDCWD, (long)path, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) { *sys_err = (int)-fd; return SHM_EOPEN; }
    int err = SHM_OK;
    if (restore) {
        const struct shm_part *p = &s->parts[s->me];
        for (MPI_Aint done = 0; done < p->size;) {
            long w = mana_sys4(SYS_pwrite64, fd, (long)(s->map + p->off + done), (long)(p->size - done),
                               (long)(p->off + done));
            if (w <= 0) { *sys_err = w < 0 ? (int)-w : 28 /* ENOSPC */; err = SHM_EWRITE; break; }
            done += w;
        }
    }
    if (err == SHM_OK) {
        long m = mana_sys6(SYS_mmap, (long)(restore ? s->map : NULL), (long)s->len, PROT_READ | PROT_WRITE,
                           MAP_SHARED | (restore ? MAP_FIXED : 0), fd, 0);
        if (m < 0 && m > -4096) { *sys_err = (int)-m; err = SHM_EMAP; }
        else s->map = (char *)m;
    }
    mana_sys1(SYS_close, fd);
    return err;
}

/* Inside the excursion, on every member of RC at once (collective): the segment made and mapped as the
 * section's comment says.  NM: this rank's candidate name in, rank 0's out.  ALL: 3 * n int64 slots for
 * the gathered triples (NULL at a restore: the parts are known).  Returns SHM_OK or SHM_E*, the same on
 * every member; on failure nothing stays mapped (but a restore's copy) and no file is left. */
static int shm_open_lower(struct shm_seg *s, MPI_Comm rc, struct shm_name *nm, int64_t *all,
                          const int64_t mine[3], int restore, int *sys_err)
{
    MPI_Comm node;
    int nsize = 0, csize = 0, err = SHM_OK, any = SHM_OK, made = 0;
    if (real.Comm_split_type(rc, MPI_COMM_TYPE_SHARED, 0, R(MPI_INFO_NULL), &node) != MPI_SUCCESS) return SHM_EMPI;
    if (node != R(MPI_COMM_NULL)) { real.Comm_size(node, &nsize); real.Comm_free(&node); }
    real.Comm_size(rc, &csize);
    /* Every member sees a smaller node communicator then.  At a restart the communicator itself may
     * have come back smaller: one made by MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) is made again on
     * the nodes the ranks are on now. */
    if (nsize != s->n || csize != s->n) err = SHM_ENODE;
    if (!restore) {
        if (real.Allgather(mine, 3, R(MPI_INT64_T), all, 3, R(MPI_INT64_T), rc) != MPI_SUCCESS) return SHM_EMPI;
        shm_layout(s, all);
    }
    if (s->me == 0) {
        if (err == SHM_OK) err = shm_file_create(nm->path, s->len, sys_err);
        made = err == SHM_OK;
        nm->err = err;
    }
    if (real.Bcast(nm, (int)sizeof *nm, R(MPI_BYTE), 0, rc) != MPI_SUCCESS) err = SHM_EMPI;
    else if (s->me != 0 && nm->err > err) err = nm->err;
    char *before = s->map;
    if (err == SHM_OK) err = shm_file_map(s, nm->path, restore, sys_err);
    int mapped = err == SHM_OK;
    if (real.Allreduce(&err, &any, 1, R(MPI_INT), R(MPI_MAX), rc) != MPI_SUCCESS) any = SHM_EMPI;
    if (made) {                                          /* every member has it mapped, or gave up */
        long u = mana_sys1(SYS_unlink, (long)nm->path);
        if (u < 0) nm->unlink_err = (int)-u;
    }
    if (any != SHM_OK && mapped && !restore) { mana_sys2(SYS_munmap, (long)s->map, (long)s->len); s->map = before; }
    return any;
}

/* Out of the excursion: a segment's file rank 0 could not remove stays in /dev/shm (the window works). */
static void shm_unlink_warn(const struct shm_name *nm)
{
    if (nm->unlink_err)
        mana_say("MANA: warning: cannot remove %s (a shared-memory window's segment file): %s", nm->path,
                 strerror(nm->unlink_err));
}

/* What MPI_Win_allocate_shared gives win_make: the segment (parts allocated, n and me set) and this
 * rank's triple; the excursion fills in the rest. */
struct shm_plan {
    struct shm_seg seg;
    int64_t mine[3], *all;
    struct shm_name nm;
    int why, sys_err;
    int lower;                    /* try the real library's memory first (lseg_make_lower) */
    int test_fail;                /* tests: this rank's alias fails (lseg_test_fail) */
};

/* Inside win_make's excursion: the segment, then the real window over this rank's part. */
static int shm_make_lower(struct mana_win *mw, struct shm_plan *sp, MPI_Info ri, MPI_Comm rc, MPI_Win *rw)
{
    sp->why = shm_open_lower(&sp->seg, rc, &sp->nm, sp->all, sp->mine, 0, &sp->sys_err);
    if (sp->why != SHM_OK) return sp->why == SHM_ENODE ? MPI_ERR_RMA_SHARED : MPI_ERR_OTHER;
    const struct shm_part *p = &sp->seg.parts[sp->seg.me];
    mw->base = p->nul ? NULL : sp->seg.map + p->off;
    mw->size = p->size;
    mw->disp_unit = p->disp_unit;
    mw->shm = sp->seg;
    int rc_ = real.Win_create(mw->base, mw->size, mw->disp_unit, ri, rc, rw);
    if (rc_ != MPI_SUCCESS) {
        mana_sys2(SYS_munmap, (long)sp->seg.map, (long)sp->seg.len);
        mw->shm.map = NULL;
    }
    return rc_;
}

/* ---- windows on the real library's memory (Open MPI) ----
 * Open MPI's MPI_Win_allocate and MPI_Win_allocate_shared put the windows of a node's ranks in one
 * shared segment (osc/rdma, osc/sm: a deleted file of /dev/shm, mapped MAP_SHARED in the lower half).
 * A put or get between ranks of the node is then a copy into that segment, and its accumulates and
 * atomics take paths that windows of MPI_Win_create do not: on those, Open MPI 4.1's osc/rdma returns
 * wrong results for MPI_Get_accumulate on types with holes (MPI_SHORT_INT) and for concurrent
 * fetch-and-ops (MPICH's rma/atomic_get_short_int and atomic_rmw_gacc fail natively once their
 * MPI_Win_allocate is made an MPI_Win_create), and its 1 MiB puts ran at a quarter of the segment's
 * speed.  So such a window is the real MPI_Win_allocate(_shared)'s, and the program sees its memory
 * through an alias: a second mapping of the same pages at an address of the upper half (mremap with an
 * old size of 0 duplicates a shared mapping).  The image writer stores the alias with its bytes, as any
 * shared mapping of a deleted file, and the restart restores it as this process's shared memory.  At the
 * replay the real call makes a new segment; when its layout is the old one, each rank copies its own
 * part from the restored alias into it, and a new alias of it, checked, is moved over the same
 * address (MREMAP_FIXED), so every pointer the program holds into its window, or into a neighbour's part of a
 * shared window, stays valid.  When some member's memory cannot be aliased (not a shared mapping) or
 * the replay's layout differs, the members agree to make the window as the sections above do, on
 * upper-half memory (at a replay: on the restored copy).  MANA_WIN_LOWER=0 makes every window so.
 * Everything here runs inside one excursion (raw system calls). */

static int lseg_wanted(void)
{
#ifdef OPEN_MPI
    const char *e = getenv("MANA_WIN_LOWER");
    return !(e && strcmp(e, "0") == 0);
#else
    return 0;
#endif
}

/* Tests only: MANA_TEST_WIN_ALIAS_FAIL=WHEN:RANK (WHEN make or replay) makes world rank RANK report that
 * its alias failed when a window is made, or made again at a restart, so that every member takes the way
 * without it (tests/mpi/win_fallback.sh).  Read in the upper half, before the excursion. */
static int lseg_test_fail(int replay)
{
    const char *e = getenv("MANA_TEST_WIN_ALIAS_FAIL");
    const char *when = replay ? "replay:" : "make:";
    if (!e || strncmp(e, when, strlen(when)) != 0) return 0;
    return atoi(e + strlen(when)) == (int)world_obj->a[6];
}

/* The real addresses [*lo, *hi) the alias must show: this rank's part (allocate: RBASE, SIZE bytes, a
 * byte at least), or every member's non-empty part (shared: each part's size, unit and address are
 * written into PARTS, the address as off for now).  *lo > *hi: nothing to show. */
static int lseg_range(int shared, MPI_Win rw, char *rbase, MPI_Aint size, struct shm_part *parts, int n,
                      uintptr_t *lo, uintptr_t *hi)
{
    *lo = UINTPTR_MAX;
    *hi = 0;
    if (!shared) {
        if (rbase) { *lo = (uintptr_t)rbase; *hi = *lo + (uintptr_t)(size ? size : 1); }
        return MPI_SUCCESS;
    }
    for (int i = 0; i < n; i++) {
        MPI_Aint sz = 0;
        int du = 0;
        char *p = NULL;
        int r = real.Win_shared_query(rw, i, &sz, &du, &p);
        if (r != MPI_SUCCESS) return r;
        parts[i].size = sz;
        parts[i].disp_unit = du;
        parts[i].nul = p == NULL;
        parts[i].off = (MPI_Aint)(uintptr_t)p;
        if (p && sz > 0) {
            if ((uintptr_t)p < *lo) *lo = (uintptr_t)p;
            if ((uintptr_t)p + (uintptr_t)sz > *hi) *hi = (uintptr_t)p + (uintptr_t)sz;
        }
    }
    return MPI_SUCCESS;
}

/* The pages holding [lo, hi) seen at a second address: any (*at NULL) or exactly *at (the replay).
 * *len: the alias's length.  0, or the system call's negative errno (EINVAL: not a shared mapping). */
static long lseg_alias(uintptr_t lo, uintptr_t hi, char **at, size_t *len)
{
    uintptr_t a = lo & ~(SHM_PAGE - 1), e = (hi + SHM_PAGE - 1) & ~(SHM_PAGE - 1);
    long m = mana_sys6(SYS_mremap, (long)a, 0, (long)(e - a), MREMAP_MAYMOVE | (*at ? MREMAP_FIXED : 0),
                       (long)*at, 0);
    if (m < 0 && m > -4096) return m;
    *at = (char *)m;
    *len = e - a;
    return 0;
}

/* Proof that ALIAS shows the memory at REAL: a byte written through one reads back through the other
 * (a range that spans two mappings would alias the second one's file wrongly); the byte is put back. */
static int lseg_same(volatile char *real_p, volatile char *alias_p)
{
    char v = *real_p;
    *alias_p = (char)(v ^ 0x5a);
    int same = *real_p == (char)(v ^ 0x5a);
    *alias_p = v;
    return same && *real_p == v;
}

/* This rank's part checked at both ends (nothing to check in an empty part). */
static int lseg_check(char *real_p, char *alias_p, MPI_Aint size)
{
    return size <= 0 || (lseg_same(real_p, alias_p) && lseg_same(real_p + size - 1, alias_p + size - 1));
}

/* The real allocation of a window of FLAVOR (allocate or shared) and, on success, this rank's part
 * and the [lo, hi) to alias; parts of a shared window in S. */
static int lseg_real(int flavor, MPI_Aint size, int du, MPI_Info ri, MPI_Comm rc, struct shm_seg *s, MPI_Win *rw,
                     char **rbase, uintptr_t *lo, uintptr_t *hi)
{
    int shared = flavor == MPI_WIN_FLAVOR_SHARED;
    int r = shared ? real.Win_allocate_shared(size, du, ri, rc, rbase, rw) : real.Win_allocate(size, du, ri, rc, rbase, rw);
    if (r == MPI_SUCCESS) r = lseg_range(shared, *rw, *rbase, size, s->parts, s->n, lo, hi);
    if (r != MPI_SUCCESS && *rw != R(MPI_WIN_NULL)) real.Win_free(rw);
    return r;
}

/* Every member's verdict: the window is on the real memory only if it is on every member's. */
static int lseg_agree(int ok, MPI_Comm rc)
{
    int all = 0;
    return real.Allreduce(&ok, &all, 1, R(MPI_INT), R(MPI_MIN), rc) == MPI_SUCCESS && all;
}

/* Inside win_make's excursion: the window on the real library's memory with its alias (1), or, when a
 * member could not alias it, none (0: the caller makes it on upper-half memory); -1 with the real
 * error in *err when the real call failed (the program gets that error, as without the runtime). */
static int lseg_make_lower(struct mana_win *mw, struct shm_plan *sp, MPI_Aint size, int du, MPI_Info ri,
                           MPI_Comm rc, MPI_Win *rw, int *err)
{
    struct shm_seg *s = &sp->seg;
    char *rbase = NULL, *at = NULL;
    uintptr_t lo, hi;
    size_t len = 0;
    *err = lseg_real(mw->flavor, size, du, ri, rc, s, rw, &rbase, &lo, &hi);
    if (*err != MPI_SUCCESS) return -1;
    int ok = 1;
    if (lo < hi) ok = lseg_alias(lo, hi, &at, &len) == 0;
    uintptr_t b = lo & ~(SHM_PAGE - 1);
    if (ok && mw->flavor == MPI_WIN_FLAVOR_SHARED)
        for (int i = 0; i < s->n; i++) s->parts[i].off = s->parts[i].nul ? 0 : s->parts[i].off - (MPI_Aint)b;
    char *mine = !at ? NULL
               : mw->flavor == MPI_WIN_FLAVOR_SHARED ? (s->parts[s->me].nul ? NULL : at + s->parts[s->me].off)
                                                     : at + ((uintptr_t)rbase - b);
    char *rmine = mw->flavor == MPI_WIN_FLAVOR_SHARED ? (char *)b + s->parts[s->me].off : rbase;
    if (ok && at) ok = lseg_check(rmine, mine, size);
    if (sp->test_fail) ok = 0;
    if (!lseg_agree(ok, rc)) {
        if (at) mana_sys2(SYS_munmap, (long)at, (long)len);
        real.Win_free(rw);
        return 0;
    }
    s->map = at;
    s->len = len;
    s->lower = 1;
    mw->base = mine;
    mw->size = size;
    mw->disp_unit = du;
    mw->own_mem = 0;
    mw->shm = *s;
    return 1;
}

/* At the replay, inside the excursion: the real window made again and, when its layout is the old one,
 * this rank's part of the restored alias copied into it and the alias made again over the same address
 * (1).  0: some member could not (no real window is left; the restored copy stays where it is, this
 * process's own memory); -1 with the real error in *err.  NEWP: room for the parts of a shared window. */
static int lseg_replay_lower(struct mana_win *mw, MPI_Info ri, MPI_Comm pc, struct shm_part *newp, int test_fail,
                             MPI_Win *rw, int *err)
{
    struct shm_seg *s = &mw->shm, ns = *s;
    ns.parts = newp;
    char *rbase = NULL, *at = s->map;
    uintptr_t lo, hi;
    size_t len = 0;
    *err = lseg_real(mw->flavor, mw->size, mw->disp_unit, ri, pc, &ns, rw, &rbase, &lo, &hi);
    if (*err != MPI_SUCCESS) return -1;
    int shared = mw->flavor == MPI_WIN_FLAVOR_SHARED;
    uintptr_t b = lo & ~(SHM_PAGE - 1);
    size_t want = lo < hi ? ((hi + SHM_PAGE - 1) & ~(SHM_PAGE - 1)) - b : 0;
    /* the same layout: the alias's length, and each part at its old place in it */
    int ok = want == (s->map ? s->len : 0) && !test_fail;
    if (ok && shared)
        for (int i = 0; i < s->n && ok; i++)
            ok = newp[i].nul == s->parts[i].nul && newp[i].size == s->parts[i].size &&
                 (newp[i].nul || newp[i].off - (MPI_Aint)b == s->parts[i].off);
    char *rmine = shared ? (s->parts[s->me].nul ? NULL : (char *)b + s->parts[s->me].off) : rbase;
    if (ok && !shared) ok = (rbase == NULL) == (mw->base == NULL) && (!rbase || (uintptr_t)rbase - b == (uintptr_t)((char *)mw->base - s->map));
    /* (a shared part: all the query says it has, which Open MPI rounds up to a page when noncontiguous) */
    MPI_Aint part = shared ? s->parts[s->me].size : mw->size;
    if (ok && rmine)
        for (MPI_Aint i = 0; i < part; i++) rmine[i] = ((char *)mw->base)[i];
    /* The alias made at any address and checked first, then moved over the restored copy: a failed
     * MREMAP_FIXED may already have unmapped its target, and the copy is all this rank has. */
    char *fresh = NULL;
    int lost = 0;
    if (ok && want) {
        ok = lseg_alias(lo, hi, &fresh, &len) == 0;
        if (ok && rmine) ok = lseg_check(rmine, fresh + ((uintptr_t)rmine - b), mw->size);
        if (ok) {
            long m = mana_sys6(SYS_mremap, (long)fresh, (long)len, (long)len, MREMAP_MAYMOVE | MREMAP_FIXED, (long)at, 0);
            ok = m == (long)at;
            lost = !ok;
            if (!ok) mana_sys2(SYS_munmap, (long)fresh, (long)len);
        } else if (fresh) {
            mana_sys2(SYS_munmap, (long)fresh, (long)len);
        }
    }
    if (!lseg_agree(ok, pc)) {
        real.Win_free(rw);
        if (lost) { *err = MPI_ERR_NO_MEM; return -1; }
        return 0;
    }
    return 1;
}

/* Inside win_make's excursion, for MPI_Win_allocate(_shared): the real library's memory first (when
 * wanted), else the upper half's: BASE (allocate) or a segment file (shared).  sp->lower says which. */
static int win_make_planned(struct mana_win *mw, struct shm_plan *sp, void *base, MPI_Aint size, int du,
                            MPI_Info ri, MPI_Comm rc, MPI_Win *rw)
{
    if (sp->lower) {
        int err = MPI_SUCCESS, r = lseg_make_lower(mw, sp, size, du, ri, rc, rw, &err);
        if (r != 0) return r > 0 ? MPI_SUCCESS : err;
        sp->lower = 0;
        sp->seg.map = NULL;
        sp->seg.len = 0;
    }
    if (mw->flavor == MPI_WIN_FLAVOR_SHARED) return shm_make_lower(mw, sp, ri, rc, rw);
    return real.Win_create(base, size, du, ri, rc, rw);
}

/* MANA_DEBUG: where a new window's memory is (the tests check that the path they mean is taken). */
static void win_say_memory(const struct mana_win *mw)
{
    if (mana_debug_on())
        mana_say("mana: %s window on %s memory", mw->flavor == MPI_WIN_FLAVOR_SHARED ? "shared-memory" : "allocated",
                 mw->shm.lower ? "the MPI library's (aliased)" : "the upper half's");
}

static int win_make(int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                    int own, struct shm_plan *sp, MPI_Win *win)
{
    struct vobj *c = comm_obj(comm);
    if (!c) return MPI_ERR_COMM;
    if (size < 0) return MPI_ERR_SIZE;
    if (disp_unit <= 0 || disp_unit > 0x7fffffff) return MPI_ERR_DISP;
    struct mana_win *mw = calloc(1, sizeof *mw);
    if (!mw) return MPI_ERR_NO_MEM;
    mw->flavor = flavor;
    mw->own_mem = own;
    mw->base = flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_BOTTOM : base;
    mw->size = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
    mw->disp_unit = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : (int)disp_unit;
    mw->model = MPI_WIN_SEPARATE;
    mw->hints = MPI_INFO_NULL;
    mw->vote = MPI_COMM_NULL;
    if (info != MPI_INFO_NULL && mana_info_dup(info, &mw->hints) != MPI_SUCCESS) mw->hints = MPI_INFO_NULL;
    mw->errh = HBITS(MPI_ERRORS_ARE_FATAL);
    /* The entry exists before the call and is marked live inside the excursion that makes the real
     * window: a checkpoint comes before (no window: the replay skips it) or after, never between. */
    mana_rma_used = 1;
    /* The creation waits for the whole group holding the lower half: under MPI_THREAD_MULTIPLE it waits
     * for its turn (ctor_turn.c), voted on the communicator (a collective on it: ours to vote on).  Before
     * the entry is made: its creation order is the replay's, the same on every member only in turn order
     * (a restart replayed two threads' windows in opposite orders on two ranks and hung). */
    uint64_t turn = __builtin_expect(mana_thread_multiple, 0) ? mana_ctor_turn_take(c) : 0;
    struct vobj *w = vnew(K_WIN, 0);
    w->recipe = R_WIN_CREATE;
    w->arr = mw;
    w->arr_len = sizeof *mw;
    mana_record_parent(w, c);
    MPI_Info ri;
    MPI_Win rw = MPI_WIN_NULL;
    int rc;
    COLL_LOWER(c, ri = mana_info_real_lower(info);
               rc = sp ? win_make_planned(mw, sp, base, size, (int)disp_unit, ri, R(comm), &rw)
                  : flavor == MPI_WIN_FLAVOR_DYNAMIC ? real.Win_create_dynamic(ri, R(comm), &rw)
                                                     : real.Win_create(base, size, (int)disp_unit, ri, R(comm), &rw);
               if (rc == MPI_SUCCESS) {
                   real_setup(rw, mw);
                   w->real = HBITS(rw);
                   w->gid = mana_gid_combine(c->gid, c->seq);   /* the same on every member */
                   w->flags |= VF_WOPEN;
               }
               mana_info_real_free_lower(ri));
    mana_ctor_turn_give(turn);
    if (rc != MPI_SUCCESS) {
        mw->own_mem = 0;          /* the caller frees it */
        if (sp) {
            sp->seg.parts = NULL;  /* the caller frees them (the excursion unmapped the segment) */
            mw->shm.parts = NULL;
        }
        win_drop(w);
        vrelease(w);
        *win = MPI_WIN_NULL;
        return rc;
    }
    *win = V(MPI_Win, w);
    /* The fences and the free wait for the group too, but the program may run its own collectives on the
     * window's communicator meanwhile: their turns are voted on a dup of ours (a communicator like any
     * other: counted by the drains, made again by the replay). */
    if (__builtin_expect(mana_thread_multiple, 0) && PMPI_Comm_dup(comm, &mw->vote) != MPI_SUCCESS)
        mw->vote = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    MANA_CHECK_INIT();
    return win_make(MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, 0, NULL, win);
}
ALIAS(Win_create)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    MANA_CHECK_INIT();
    return win_make(MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, 0, NULL, win);
}
ALIAS(Win_create_dynamic)

/* The window's memory in the upper half (saved in the image), then the real MPI_Win_create on it. */
static int win_allocate(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    MANA_CHECK_INIT();
    if (size < 0) return MPI_ERR_SIZE;
    /* the upper half's memory, in case the real library's cannot be used (lseg_*): untouched pages */
    void *p = NULL;
    if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0) return MPI_ERR_NO_MEM;
    struct shm_plan sp;
    memset(&sp, 0, sizeof sp);
    sp.lower = lseg_wanted();
    sp.test_fail = sp.lower && lseg_test_fail(0);
    int rc = win_make(MPI_WIN_FLAVOR_ALLOCATE, p, size, disp_unit, info, comm, 1, sp.lower ? &sp : NULL, win);
    if (rc != MPI_SUCCESS) { free(p); return rc; }
    struct mana_win *mw = mw_of(mana_win_obj(*win));
    if (!mw->own_mem) free(p);
    win_say_memory(mw);
    void *b = mw->base;
    memcpy(baseptr, &b, sizeof b);          /* baseptr is a void ** passed as void * */
    return MPI_SUCCESS;
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{ return win_allocate(size, disp_unit, info, comm, baseptr, win); }
ALIAS(Win_allocate)

#if MPI_VERSION >= 4
int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    MANA_CHECK_INIT();
    return win_make(MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, 0, NULL, win);
}
ALIAS(Win_create_c)
int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{ return win_allocate(size, disp_unit, info, comm, baseptr, win); }
ALIAS(Win_allocate_c)
#endif

/* MPI_Win_allocate_shared: the plan (this rank's triple, its candidate name, room for the gather), then
 * win_make, whose excursion makes the segment and the real window over this rank's part. */
static int win_allocate_shared(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                               MPI_Win *win)
{
    MANA_CHECK_INIT();
    if (size < 0) return MPI_ERR_SIZE;
    if (disp_unit <= 0 || disp_unit > 0x7fffffff) return MPI_ERR_DISP;
    struct vobj *c = comm_obj(comm);
    if (!c) return MPI_ERR_COMM;
    struct shm_plan sp;
    memset(&sp, 0, sizeof sp);
    sp.seg.n = (int)c->a[7];
    sp.seg.me = (int)c->a[6];
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (info != MPI_INFO_NULL && PMPI_Info_get(info, "alloc_shared_noncontig", MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS &&
        flag && strcmp(val, "true") == 0)
        sp.mine[2] = 1;
    sp.mine[0] = size;
    sp.mine[1] = disp_unit;
    sp.seg.parts = calloc((size_t)sp.seg.n, sizeof *sp.seg.parts);
    sp.all = calloc(3 * (size_t)sp.seg.n, sizeof *sp.all);
    if (!sp.seg.parts || !sp.all) { free(sp.seg.parts); free(sp.all); return MPI_ERR_NO_MEM; }
    shm_name_make(sp.nm.path);
    sp.lower = lseg_wanted();
    sp.test_fail = sp.lower && lseg_test_fail(0);
    struct shm_part *parts = sp.seg.parts;
    int rc = win_make(MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, comm, 0, &sp, win);
    free(sp.all);
    shm_unlink_warn(&sp.nm);
    if (rc != MPI_SUCCESS) {
        free(parts);
        if (mana_debug_on())
            mana_say("mana: MPI_Win_allocate_shared failed: %s (%s)", shm_why(sp.why), strerror(sp.sys_err));
        return rc;
    }
    struct mana_win *mw = mw_of(mana_win_obj(*win));
    win_say_memory(mw);
    void *p = mw->base;
    memcpy(baseptr, &p, sizeof p);          /* baseptr is a void ** passed as void * */
    return MPI_SUCCESS;
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{ return win_allocate_shared(size, disp_unit, info, comm, baseptr, win); }
ALIAS(Win_allocate_shared)

/* Rank RANK's part of a shared-memory window, from our table (MPI_PROC_NULL: the lowest rank whose part
 * is not empty); the base is its address in this process's mapping. */
static int shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    const struct shm_seg *s = &mw_of(w)->shm;
    if (mw_of(w)->flavor != MPI_WIN_FLAVOR_SHARED || !s->parts) return mana_win_err(w, win, MPI_ERR_RMA_FLAVOR);
    if (rank == MPI_PROC_NULL) {
        rank = 0;
        for (int i = 0; i < s->n; i++)
            if (s->parts[i].size > 0) { rank = i; break; }
    } else if (rank < 0 || rank >= s->n) {
        return mana_win_err(w, win, MPI_ERR_RANK);
    }
    *size = s->parts[rank].size;
    *disp_unit = s->parts[rank].disp_unit;
    void *p = s->parts[rank].nul || !s->map ? NULL : s->map + s->parts[rank].off;
    memcpy(baseptr, &p, sizeof p);
    return MPI_SUCCESS;
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    MPI_Aint du = 0;
    int rc = shared_query(win, rank, size, &du, baseptr);
    if (rc == MPI_SUCCESS) *disp_unit = (int)du;
    return rc;
}
ALIAS(Win_shared_query)

#if MPI_VERSION >= 4
int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                               MPI_Win *win)
{ return win_allocate_shared(size, disp_unit, info, comm, baseptr, win); }
ALIAS(Win_allocate_shared_c)

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr)
{ return shared_query(win, rank, size, disp_unit, baseptr); }
ALIAS(Win_shared_query_c)
#endif

/* The turn of a call that waits for the window's whole group holding the lower half (MPI_Win_fence,
 * MPI_Win_free) under MPI_THREAD_MULTIPLE: two threads fencing two windows in opposite orders on two ranks
 * deadlocked (MPICH's threads/rma/multifence; test win_mt).  0: none taken. */
static uint64_t win_turn(const struct mana_win *mw)
{
    if (!__builtin_expect(mana_thread_multiple, 0) || mw->vote == MPI_COMM_NULL) return 0;
    return mana_ctor_turn_take(comm_obj(mw->vote));
}

int PMPI_Win_free(MPI_Win *win)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(*win, w);
    int rc = mana_win_attr_clear(HBITS(*win));
    if (rc != MPI_SUCCESS) return mana_win_err(w, *win, rc);
    MPI_Win rw;
    /* freed for the checkpoint in the same excursion that frees it for MPI; the real handle read past
     * the gate (a checkpoint may come while this thread waits there, and replace it) */
    MPI_Comm vote = mw_of(w)->vote;
    uint64_t turn = win_turn(mw_of(w));
    COLL_LOWER(w, rw = R(*win); rc = real.Win_free(&rw); if (rc == MPI_SUCCESS) w->flags &= ~VF_WOPEN);
    mana_ctor_turn_give(turn);
    if (rc != MPI_SUCCESS) return mana_win_err(w, *win, rc);
    if (vote != MPI_COMM_NULL) PMPI_Comm_free(&vote);
    win_drop(w);
    vrelease(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
ALIAS(Win_free)

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    struct mana_win *mw = mw_of(w);
    if (reserve((void **)&mw->att, mw->natt, &mw->capatt, sizeof *mw->att) != 0) return mana_win_err(w, win, MPI_ERR_NO_MEM);
    int rc;
    LOWER(rc = real.Win_attach(R(win), base, size);
          if (rc == MPI_SUCCESS) { mw->att[mw->natt].base = base; mw->att[mw->natt].size = size; mw->natt++; });
    return mana_win_err(w, win, rc);
}
ALIAS(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    struct mana_win *mw = mw_of(w);
    int rc;
    LOWER(rc = real.Win_detach(R(win), base);
          if (rc == MPI_SUCCESS) {
              for (int i = 0; i < mw->natt; i++)
                  if (mw->att[i].base == base) { mw->att[i] = mw->att[--mw->natt]; break; }
          });
    return mana_win_err(w, win, rc);
}
ALIAS(Win_detach)

/* ---- synchronization ---- */

int PMPI_Win_fence(int assert_, MPI_Win win)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    struct mana_win *mw = mw_of(w);
    int rc;
    uint64_t turn = win_turn(mw);
    COLL_LOWER(w, rc = real.Win_fence(assert_, R(win));
               if (rc == MPI_SUCCESS) mw->fence_open = !(assert_ & MPI_MODE_NOSUCCEED));
    mana_ctor_turn_give(turn);
    return mana_win_err(w, win, rc);
}
ALIAS(Win_fence)

int PMPI_Win_lock(int type, int rank, int assert_, MPI_Win win)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    struct mana_win *mw = mw_of(w);
    if (reserve((void **)&mw->locks, mw->nlocks, &mw->caplocks, sizeof *mw->locks) != 0)
        return mana_win_err(w, win, MPI_ERR_NO_MEM);
    int rc;
    RMA_LOWER(rc = real.Win_lock(type, rank, assert_, R(win));
          if (rc == MPI_SUCCESS) { mw->locks[mw->nlocks].rank = rank; mw->locks[mw->nlocks].type = type; mw->nlocks++; });
    return mana_win_err(w, win, rc);
}
ALIAS(Win_lock)

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    struct mana_win *mw = mw_of(w);
    int rc;
    RMA_LOWER_IN_EPOCH(w, rc = real.Win_unlock(rank, R(win));
          if (rc == MPI_SUCCESS) {
              for (int i = 0; i < mw->nlocks; i++)
                  if (mw->locks[i].rank == rank) { mw->locks[i] = mw->locks[--mw->nlocks]; break; }
          });
    return mana_win_err(w, win, rc);
}
ALIAS(Win_unlock)

int PMPI_Win_lock_all(int assert_, MPI_Win win)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    int rc;
    RMA_LOWER(rc = real.Win_lock_all(assert_, R(win)); if (rc == MPI_SUCCESS) mw_of(w)->lock_all = 1);
    return mana_win_err(w, win, rc);
}
ALIAS(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    int rc;
    RMA_LOWER_IN_EPOCH(w, rc = real.Win_unlock_all(R(win)); if (rc == MPI_SUCCESS) mw_of(w)->lock_all = 0);
    return mana_win_err(w, win, rc);
}
ALIAS(Win_unlock_all)

/* ---- general active-target synchronization (post/start/complete/wait/test) ----
 * Each epoch is recorded in the excursion of the real call that opens or closes it.  MPI_Win_post,
 * MPI_Win_start (MPICH waits there for every target's post) and MPI_Win_complete (it waits for the
 * targets' posts and progress) pass the one-sided gate (rma_enter): a checkpoint waits for them with
 * every rank's progress engine turning, and none starts during its settle rounds, so the epoch counts
 * are still once those end (core.c reads the match sum there).  A start that waits for a post held at
 * the gate keeps its rank busy: the settle batch ends and the gate opens again, as for any one-sided
 * call.  MPI_Win_wait is a loop of MPI_Win_test that leaves the lower half whenever a checkpoint wants
 * the thread, as blocking point-to-point calls do (p2p.c), so a rank whose origins have not completed
 * yet never holds a checkpoint back. */

/* An epoch's group as world ranks, and room for its drain marks (malloc'd, handed to pscw_opened). */
struct pscw_group { int n, *ranks; unsigned char *keep; };

/* The window's count arrays (made at its first epoch), then the world ranks of the program's group.
 * Both before the excursion: nothing is allocated on the lower TLS. */
static int pscw_prepare(struct mana_win *mw, MPI_Group group, struct pscw_group *pg)
{
    struct pscw *ps = &mw->pscw;
    if (!ps->nworld) {
        int nw = (int)world_obj->a[7];
        uint64_t *p = calloc((size_t)nw + 1, sizeof *p), *s = calloc((size_t)nw + 1, sizeof *s);
        if (!p || !s) { free(p); free(s); return MPI_ERR_NO_MEM; }
        ps->posts = p;
        ps->starts = s;
        ps->nworld = nw;
    }
    if (!vobj_of(HBITS(group)) && group != MPI_GROUP_EMPTY) return MPI_ERR_GROUP;
    pg->ranks = world_ranks(R(group), &pg->n);
    pg->keep = calloc((size_t)pg->n + 1, 1);
    if (pg->ranks && pg->keep) return MPI_SUCCESS;
    free(pg->ranks);
    free(pg->keep);
    return MPI_ERR_NO_MEM;
}

/* Inside the excursion of a post or start that succeeded: the epoch is open on PG's group (taken),
 * each peer counted; PG gets the previous epoch's arrays, for the caller to free once it is back. */
static void pscw_opened(struct pscw *ps, struct pscw_epoch *e, uint64_t *count, struct pscw_group *pg)
{
    struct pscw_group old = { e->n, e->ranks, e->keep };
    e->ranks = pg->ranks;
    e->keep = pg->keep;
    e->n = pg->n;
    e->open = 1;
    e->reopen = 0;
    e->over = 0;
    for (int i = 0; i < e->n; i++)
        if (e->ranks[i] >= 0 && e->ranks[i] < ps->nworld) count[e->ranks[i]]++;
    *pg = old;
}

static void pscw_group_free(struct pscw_group *pg)
{
    free(pg->ranks);
    free(pg->keep);
}

int PMPI_Win_post(MPI_Group group, int assert_, MPI_Win win)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    struct mana_win *mw = mw_of(w);
    struct pscw_group pg;
    int rc = pscw_prepare(mw, group, &pg);
    if (rc != MPI_SUCCESS) return mana_win_err(w, win, rc);
    RMA_LOWER(rc = real.Win_post(R(group), assert_, R(win));
              if (rc == MPI_SUCCESS) pscw_opened(&mw->pscw, &mw->pscw.expose, mw->pscw.posts, &pg));
    pscw_group_free(&pg);
    return mana_win_err(w, win, rc);
}
ALIAS(Win_post)

int PMPI_Win_start(MPI_Group group, int assert_, MPI_Win win)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    struct mana_win *mw = mw_of(w);
    struct pscw_group pg;
    int rc = pscw_prepare(mw, group, &pg);
    if (rc != MPI_SUCCESS) return mana_win_err(w, win, rc);
    RMA_LOWER(rc = real.Win_start(R(group), assert_, R(win));
              if (rc == MPI_SUCCESS) pscw_opened(&mw->pscw, &mw->pscw.access, mw->pscw.starts, &pg));
    pscw_group_free(&pg);
    return mana_win_err(w, win, rc);
}
ALIAS(Win_start)

int PMPI_Win_complete(MPI_Win win)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    struct pscw_epoch *e = &mw_of(w)->pscw.access;
    int rc;
    RMA_LOWER(rc = real.Win_complete(R(win)); if (rc == MPI_SUCCESS) e->open = 0);
    return mana_win_err(w, win, rc);
}
ALIAS(Win_complete)

/* Whether a checkpoint's drain ended this exposure epoch for good (all its origins had completed: the
 * resume or restart posted it to nobody, so the real window has no epoch to test or wait for); the
 * program's wait or test then ends it here.  Called with the lower half held: a checkpoint stops a
 * thread only outside an excursion, so a check made before lower_enter could be stale by the time the
 * real call runs (a thread stopped between the two, then restarted, tested an epoch the restart had not
 * opened: MPI_ERR_RMA_SYNC from Open MPI, about once in ten 4-rank pscw cycles runs on a loaded machine). */
static int pscw_ended(struct pscw_epoch *e)
{
    if (!e->over) return 0;
    e->over = 0;
    e->open = 0;
    return 1;
}

int PMPI_Win_test(MPI_Win win, int *flag)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    struct pscw_epoch *e = &mw_of(w)->pscw.expose;
    int rc;
    /* `over` is read with the lower half held (see pscw_ended) */
    LOWER(if (pscw_ended(e)) { *flag = 1; rc = MPI_SUCCESS; }
          else { rc = real.Win_test(R(win), flag); if (rc == MPI_SUCCESS && *flag) e->open = 0; });
    return mana_win_err(w, win, rc);
}
ALIAS(Win_test)

/* MPI_Win_test until the exposure epoch is over, leaving the lower half whenever a checkpoint wants
 * this thread (then it may stop between two excursions; the drain closes the epoch and the resume or
 * restart opens it again, so the loop goes on testing the epoch its origins complete). */
int PMPI_Win_wait(MPI_Win win)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    struct pscw_epoch *e = &mw_of(w)->pscw.expose;
    int rc = MPI_SUCCESS, flag = 0;
    while (!flag && rc == MPI_SUCCESS) {
        lower_pass();
        uint64_t up = lower_enter();
        /* (again in each excursion: a checkpoint may have ended the epoch since the last one) */
        if (pscw_ended(e)) { lower_leave(up); break; }
        for (unsigned spin = 0;; spin++) {
            rc = real.Win_test(R(win), &flag);
            if (flag || rc != MPI_SUCCESS || lower_interrupted()) break;
            if (__builtin_expect(spin_yield(spin), 0)) mana_sys0(SYS_sched_yield);
        }
        if (rc == MPI_SUCCESS && flag) e->open = 0;
        lower_leave(up);
    }
    return mana_win_err(w, win, rc);
}
ALIAS(Win_wait)

/* ---- queries, info, names, error handlers ---- */

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    MPI_Group g;
    int rc;
    GROUP_LOWER(rc, rc = real.Win_get_group(R(win), &g), g, group);
    return rc != MPI_SUCCESS ? mana_win_err(w, win, rc) : rc;
}
ALIAS(Win_get_group)

/* Our hints gain INFO's (set_info). */
static void hints_merge(struct mana_win *mw, MPI_Info info)
{
    int n = 0;
    if (info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS || n == 0) return;
    if (mw->hints == MPI_INFO_NULL && PMPI_Info_create(&mw->hints) != MPI_SUCCESS) { mw->hints = MPI_INFO_NULL; return; }
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        if (PMPI_Info_get_nthkey(info, i, key) == MPI_SUCCESS &&
            PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS && flag)
            PMPI_Info_set(mw->hints, key, val);
    }
}

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    MPI_Info ri;
    int rc;
    /* collective (MPI 4.0 12.2.7): the window's gate */
    COLL_LOWER(w, ri = mana_info_real_lower(info); rc = real.Win_set_info(R(win), ri); mana_info_real_free_lower(ri));
    if (rc == MPI_SUCCESS) hints_merge(mw_of(w), info);
    return mana_win_err(w, win, rc);
}
ALIAS(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    MPI_Info ri;
    int rc;
    LOWER(rc = real.Win_get_info(R(win), &ri));
    if (rc != MPI_SUCCESS) return mana_win_err(w, win, rc);
    rc = mana_info_from_real(ri, info_used);
    LOWER(real.Info_free(&ri));
    return mana_win_err(w, win, rc);
}
ALIAS(Win_get_info)

int PMPI_Win_set_name(MPI_Win win, const char *name)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    if (!name) return mana_win_err(w, win, MPI_ERR_ARG);
    snprintf(mw_of(w)->name, sizeof mw_of(w)->name, "%s", name);
    return MPI_SUCCESS;
}
ALIAS(Win_set_name)

int PMPI_Win_get_name(MPI_Win win, char *name, int *len)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    return mana_name_out(mw_of(w)->name, name, len);
}
ALIAS(Win_get_name)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler eh)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    if (!mana_errh_win_ok(HBITS(eh))) return mana_win_err(w, win, MPI_ERR_ARG);
    mw_of(w)->errh = HBITS(eh);
    return MPI_SUCCESS;
}
ALIAS(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *eh)
{
    MANA_CHECK_INIT();
    WIN_OR_ERR(win, w);
    *eh = HMAKE(MPI_Errhandler, mw_of(w)->errh);
    return MPI_SUCCESS;
}
ALIAS(Win_get_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int code)
{
    MANA_CHECK_INIT();
    struct vobj *w = mana_win_obj(win);
    if (!w) return MPI_ERR_WIN;
    mana_win_err(w, win, code);
    return MPI_SUCCESS;
}
ALIAS(Win_call_errhandler)

/* MPI_WIN_BASE, SIZE, DISP_UNIT, CREATE_FLAVOR, MODEL: from our record (a restart makes another real
 * window, on the same memory); any other keyval is not set. */
int mana_win_attr_predef(MPI_Win win, int kv, void *val, int *flag)
{
    WIN_OR_ERR(win, w);
    struct mana_win *mw = mw_of(w);
    void *p;
    if (kv == MPI_WIN_BASE) p = mw->base;
    else if (kv == MPI_WIN_SIZE) p = &mw->size;
    else if (kv == MPI_WIN_DISP_UNIT) p = &mw->disp_unit;
    else if (kv == MPI_WIN_CREATE_FLAVOR) p = &mw->flavor;
    else if (kv == MPI_WIN_MODEL) p = &mw->model;
    else { *flag = 0; return kv == MPI_KEYVAL_INVALID ? mana_win_err(w, win, MPI_ERR_KEYVAL) : MPI_SUCCESS; }
    memcpy(val, &p, sizeof p);          /* val is a void ** passed as void * */
    *flag = 1;
    return MPI_SUCCESS;
}

#ifdef OPEN_MPI
/* Fortran handles: the entry's table index above MANA_F_BASE, the same after a restart (MPICH's
 * converters are casts in mpi.h). */
MPI_Fint PMPI_Win_c2f(MPI_Win win)
{
    struct vobj *w = mana_win_obj(win);
    return w ? (MPI_Fint)(MANA_F_BASE + w->idx) : 0;
}
ALIAS(Win_c2f)

MPI_Win PMPI_Win_f2c(MPI_Fint i)
{
    if (i <= MANA_F_BASE || (uint32_t)(i - MANA_F_BASE) >= vtab_usable) return MPI_WIN_NULL;
    MPI_Win win = V(MPI_Win, &vtab[i - MANA_F_BASE]);
    return mana_win_obj(win) ? win : MPI_WIN_NULL;
}
ALIAS(Win_f2c)
#endif

/* ---- checkpoint and restart ---- */

/* The live windows, in the order the program made them. */
static struct vobj **live_windows(uint32_t *n)
{
    uint32_t used = mana_vtab_used(), k = 0;
    struct vobj **l = malloc(((size_t)used + 1) * sizeof *l);
    if (!l) return NULL;
    for (uint32_t i = 1; i <= used; i++)
        if (vtab[i].kind == K_WIN && (vtab[i].flags & VF_WOPEN)) l[k++] = &vtab[i];
    for (uint32_t i = 1; i < k; i++)            /* insertion sort by creation order: few windows */
        for (uint32_t j = i; j > 0 && l[j - 1]->order > l[j]->order; j--) {
            struct vobj *t = l[j]; l[j] = l[j - 1]; l[j - 1] = t;
        }
    *n = k;
    return l;
}

/* Whether any rank has a live window: a real reduction over MPI_COMM_WORLD (every rank is in the
 * drain, or in the restart, with nothing else pending in MPI), so all ranks do the same next. */
static int any_windows(int mine, int *any)
{
    int rc;
    LOWER(rc = real.Allreduce(&mine, any, 1, R(MPI_INT), R(MPI_MAX), R(MPI_COMM_WORLD)));
    return rc;
}

/* The live window made next after creation order `after` (0: the first), or NULL.  No allocation: the
 * drain runs while the program's threads, one of which may hold the allocator's lock, are stopped. */
static struct vobj *next_window(uint64_t after)
{
    uint32_t used = mana_vtab_used();
    struct vobj *best = NULL;
    for (uint32_t i = 1; i <= used; i++) {
        struct vobj *w = &vtab[i];
        if (w->kind == K_WIN && (w->flags & VF_WOPEN) && w->order > after && (!best || w->order < best->order)) best = w;
    }
    return best;
}

/* splitmix64's finalizer: the key of one (window, origin, target) pair. */
static uint64_t wmix(uint64_t x)
{
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t pair_key(uint64_t gid, int origin, int target)
{
    return wmix(gid ^ wmix(((uint64_t)(uint32_t)origin << 32) | (uint32_t)target)) | 1;
}

/* Whether every open general active-target epoch of the job has its partner: the job's sum, over every
 * window, origin and target, of key x (access epochs the origin started towards the target - exposure
 * epochs the target posted to the origin), is zero exactly when all the counts agree (but for a 2^-64
 * chance).  Each rank adds its own side; one real MPI_Allreduce (every rank is in the drain).  An
 * access epoch whose target has not posted yet (its program stopped before MPI_Win_post), or an
 * exposure epoch whose origin has not started, cannot be closed: the checkpoint is refused. */
uint64_t mana_win_pscw_share(void)
{
    int me = (int)world_obj->a[6];
    uint64_t share = 0;
    for (struct vobj *w = next_window(0); w; w = next_window(w->order)) {
        const struct pscw *ps = &mw_of(w)->pscw;
        for (int r = 0; r < ps->nworld; r++) {
            if (ps->starts[r]) share += pair_key(w->gid, me, r) * ps->starts[r];
            if (ps->posts[r]) share -= pair_key(w->gid, r, me) * ps->posts[r];
        }
    }
    return share;
}

static int pscw_matched(char *err, size_t errlen)
{
    uint64_t share = mana_win_pscw_share(), sum = 0;
    int rc;
    LOWER(rc = real.Allreduce(&share, &sum, 1, R(MPI_UINT64_T), R(MPI_SUM), R(MPI_COMM_WORLD)));
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "one-sided drain: cannot compare the post/start epochs (MPI error %d)", rc);
        return -1;
    }
    if (sum == 0) return 0;
    snprintf(err, errlen, "one-sided drain: a rank is in an MPI_Win_start access epoch whose target has not "
             "posted it yet, or in an MPI_Win_post exposure epoch whose origin has not started it; the "
             "checkpoint is refused (the program goes on; take it again)");
    return -1;
}

static uint64_t win_key(uint64_t gid) { return wmix(gid ^ 0x9e3779b97f4a7c15ULL) | 1; }

/* Which origins of each open exposure epoch still have their access epoch open (keep[]): only those
 * open it again after the checkpoint, so only those may be in the reopened exposure epoch (an origin
 * that completed already never comes back for it).  Every rank sends every other one the sum of the
 * keys of its windows whose open access epoch names it (one real MPI_Alltoall, buffers from the real
 * MPI_Alloc_mem: the upper allocator is off limits while the program's threads are stopped); a target
 * finds the subset of its candidate windows (open exposure epochs naming that origin) that sums to it. */
#define PSCW_CAND 16
static int pscw_exchange(char *err, size_t errlen)
{
    int nw = (int)world_obj->a[7], rc;
    uint64_t *buf = NULL;
    LOWER(rc = real.Alloc_mem((MPI_Aint)(2 * (size_t)nw * sizeof *buf), R(MPI_INFO_NULL), &buf));
    if (rc != MPI_SUCCESS) { snprintf(err, errlen, "one-sided drain: no memory for the post/start exchange"); return -1; }
    uint64_t *out = buf, *in = buf + nw;
    memset(out, 0, (size_t)nw * sizeof *out);
    for (struct vobj *w = next_window(0); w; w = next_window(w->order)) {
        const struct pscw_epoch *a = &mw_of(w)->pscw.access;
        if (!a->open || a->reopen) continue;
        for (int i = 0; i < a->n; i++)
            if (a->ranks[i] >= 0 && a->ranks[i] < nw) out[a->ranks[i]] += win_key(w->gid);
    }
    LOWER(rc = real.Alltoall(out, 1, R(MPI_UINT64_T), in, 1, R(MPI_UINT64_T), R(MPI_COMM_WORLD)));
    for (int origin = 0; rc == MPI_SUCCESS && origin < nw; origin++) {
        struct pscw_epoch *cand[PSCW_CAND];
        uint64_t keys[PSCW_CAND];
        int idx[PSCW_CAND], k = 0;
        for (struct vobj *w = next_window(0); w; w = next_window(w->order)) {
            struct pscw_epoch *e = &mw_of(w)->pscw.expose;
            if (!e->open || e->reopen || e->over) continue;
            for (int i = 0; i < e->n; i++) {
                if (e->ranks[i] != origin) continue;
                if (k == PSCW_CAND) { rc = MPI_ERR_OTHER; break; }
                cand[k] = e;
                idx[k] = i;
                keys[k++] = win_key(w->gid);
            }
        }
        if (rc != MPI_SUCCESS || k == 0) continue;
        int found = -1;
        for (int m = 0; m < (1 << k) && found < 0; m++) {
            uint64_t sum = 0;
            for (int j = 0; j < k; j++) if (m & (1 << j)) sum += keys[j];
            if (sum == in[origin]) found = m;
        }
        if (found < 0) { rc = MPI_ERR_OTHER; break; }
        for (int j = 0; j < k; j++) cand[j]->keep[idx[j]] = (unsigned char)((found >> j) & 1);
    }
    LOWER(real.Free_mem(buf));
    if (rc == MPI_SUCCESS) return 0;
    snprintf(err, errlen, "one-sided drain: cannot tell which origins of a post/start epoch are still open "
             "(more than %d windows with such epochs between two ranks?)", PSCW_CAND);
    return -1;
}

/* Close this window's open post/start epochs for the checkpoint (every RMA operation has landed once
 * the access epoch is completed and the exposure epoch waited for); resume or restart opens them again
 * (mana_win_reopen).  Every member takes the windows in the same order and completes before it waits. */
static int pscw_close(struct mana_win *mw, MPI_Win rw, const char **what)
{
    int rc = MPI_SUCCESS;
    struct pscw *ps = &mw->pscw;
    if (ps->access.open && !ps->access.reopen) {
        *what = "complete";
        LOWER(rc = real.Win_complete(rw); if (rc == MPI_SUCCESS) ps->access.reopen = 1);
    }
    /* (an exposure epoch a previous checkpoint ended, which the program has not waited for yet, has
     * nothing real to wait for) */
    if (rc == MPI_SUCCESS && ps->expose.open && !ps->expose.reopen && !ps->expose.over) {
        *what = "wait for";
        LOWER(rc = real.Win_wait(rw); if (rc == MPI_SUCCESS) ps->expose.reopen = 1);
    }
    return rc;
}

int mana_win_drain(char *err, size_t errlen)
{
    uint32_t n = 0;
    for (struct vobj *w = next_window(0); w; w = next_window(w->order)) n++;
    int any = 0, rc = any_windows(n > 0, &any);
    const char *what = "find the windows";
    if (rc == MPI_SUCCESS && any && (pscw_matched(err, errlen) != 0 || pscw_exchange(err, errlen) != 0)) return -1;
    for (struct vobj *w = any ? next_window(0) : NULL; rc == MPI_SUCCESS && w; w = next_window(w->order)) {
        struct mana_win *mw = mw_of(w);
        MPI_Win rw = HMAKE(MPI_Win, w->real);
        if (mw->fence_open) { what = "fence"; LOWER(rc = real.Win_fence(0, rw)); }
        if (rc == MPI_SUCCESS && mw->lock_all) { what = "flush_all"; LOWER(rc = real.Win_flush_all(rw)); }
        for (int k = 0; rc == MPI_SUCCESS && k < mw->nlocks; k++) {
            what = "flush";
            LOWER(rc = real.Win_flush(mw->locks[k].rank, rw));
        }
        if (rc == MPI_SUCCESS) rc = pscw_close(mw, rw, &what);
    }
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "one-sided drain: cannot %s a window (MPI error %d)", what, rc);
        return -1;
    }
    if (!any) return 0;
    /* The request-based operations (their epochs are complete now). */
    uint32_t used = mana_vtab_used();
    for (uint32_t i = 1; i <= used; i++) {
        struct vobj *r = &vtab[i];
        if (r->kind != K_REQ || r->rkind != RQ_RMA || (r->flags & VF_DONE) || !(r->flags & VF_POSTED)) continue;
        if (mana_req_finish(r) != 0) {
            snprintf(err, errlen, "one-sided drain: a request-based RMA operation of this rank did not complete");
            return -1;
        }
    }
    /* In the library until everyone is done: a partner's flush may need this rank's progress. */
    LOWER(rc = real.Barrier(R(MPI_COMM_WORLD)));
    if (rc != MPI_SUCCESS) { snprintf(err, errlen, "one-sided drain: barrier failed (MPI error %d)", rc); return -1; }
    if (mana_debug_on()) mana_say("mana: one-sided drain: %u window(s) here", n);
    return 0;
}

/* The image's MPI_OBJECTS records of the live windows (after the drain; no allocation, as there). */
int mana_win_objects(void *ctx, void *(*put)(void *ctx, const void *data, size_t len))
{
    int n = 0;
    for (struct vobj *w = next_window(0); w; w = next_window(w->order)) {
        const struct mana_win *mw = mw_of(w);
        struct mana_img_mpi_object o;
        memset(&o, 0, sizeof o);
        o.kind = MANA_MPI_OBJ_WIN;
        o.flags = (mw->fence_open ? MANA_MPI_OBJF_FENCE : 0) | (mw->lock_all ? MANA_MPI_OBJF_LOCK_ALL : 0) |
                  (mw->nlocks ? MANA_MPI_OBJF_LOCKS : 0);
        o.amode = mw->flavor;
        o.comm_size = w->parent[0] ? (int32_t)w->parent[0]->a[7] : 0;
        o.position = (int64_t)mw->size;
        o.shared_position = mw->disp_unit;
        o.disp = (int64_t)(uintptr_t)mw->base;
        o.name_len = (uint32_t)strlen(mw->name);
        if (!put(ctx, &o, sizeof o) || !put(ctx, mw->name, o.name_len)) return -1;
        n++;
    }
    return n;
}

/* A shared-memory window's segment at the replay: the image restored this rank's copy of the whole
 * segment as its own shared memory at the old address; a new file gets every member's part from that
 * member's copy and replaces the copy on every member, so the members of the node share it again.  A
 * communicator whose members are no longer on one node fails the restart, naming the window. */
static int shm_replay(struct vobj *w, struct mana_win *mw, MPI_Comm pc)
{
    struct shm_name nm;
    memset(&nm, 0, sizeof nm);
    shm_name_make(nm.path);
    int why, sys_err = 0;
    struct timespec t0, t1;
    int timed = mana_debug_on() && clock_gettime(CLOCK_MONOTONIC, &t0) == 0;
    LOWER(why = shm_open_lower(&mw->shm, pc, &nm, NULL, NULL, 1, &sys_err));
    shm_unlink_warn(&nm);
    if (why == SHM_OK) {
        if (timed && clock_gettime(CLOCK_MONOTONIC, &t1) == 0)
            mana_say("mana: restart: shared-memory window %u: its %zu-byte segment shared again in %.3f ms", w->idx,
                     mw->shm.len, (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
        return 0;
    }
    char syserr[96] = "";
    if (why != SHM_ENODE && why != SHM_EMPI && sys_err) snprintf(syserr, sizeof syserr, ": %s", strerror(sys_err));
    mana_say("MANA: restart: cannot make shared-memory window %u%s%s%s again (MPI_Win_allocate_shared): %s%s",
             w->idx, mw->name[0] ? " (\"" : "", mw->name, mw->name[0] ? "\")" : "", shm_why(why), syserr);
    return -1;
}

/* The replay of a window on the real library's memory (lseg_replay_lower): 1 made there, 0 not (the
 * window is made on the restored copy, upper-half memory from now on), -1 failed (*rc). */
static int lseg_replay(struct vobj *w, struct mana_win *mw, MPI_Info ri, MPI_Comm pc, MPI_Win *rw, int *rc)
{
    struct shm_part *newp = mw->shm.n ? calloc((size_t)mw->shm.n, sizeof *newp) : NULL;
    if (mw->shm.n && !newp) { *rc = MPI_ERR_NO_MEM; return -1; }
    struct timespec t0, t1;
    int timed = mana_debug_on() && clock_gettime(CLOCK_MONOTONIC, &t0) == 0, r;
    int test_fail = lseg_test_fail(1);
    LOWER(r = lseg_replay_lower(mw, ri, pc, newp, test_fail, rw, rc));
    free(newp);
    if (r < 0) {
        mana_say("MANA: restart: cannot make window %u%s%s%s again (MPI error %d)", w->idx, mw->name[0] ? " (\"" : "",
                 mw->name, mw->name[0] ? "\")" : "", *rc);
        return -1;
    }
    if (r == 0) {
        mw->shm.lower = 0;
        if (mana_debug_on()) mana_say("mana: restart: window %u: the MPI library's memory has another layout now: the "
                                      "window is made on the restored copy", w->idx);
    } else if (timed && clock_gettime(CLOCK_MONOTONIC, &t1) == 0) {
        mana_say("mana: restart: window %u on the MPI library's memory again (%zu bytes aliased) in %.3f ms", w->idx,
                 mw->shm.len, (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    }
    return r;
}

/* Replay of R_WIN_CREATE: the same window on the same memory (pc: the replayed communicator, real). */
int mana_win_replay(struct vobj *w, MPI_Comm pc)
{
    if (!(w->flags & VF_WOPEN)) return MPI_SUCCESS;     /* freed, or not yet made at the checkpoint */
    struct mana_win *mw = mw_of(w);
    MPI_Info ri = mana_info_real(mw->hints);
    MPI_Win rw = MPI_WIN_NULL;
    int rc = MPI_SUCCESS, on_lower = 0;
    if (mw->shm.lower) {
        on_lower = lseg_replay(w, mw, ri, pc, &rw, &rc);
        if (on_lower < 0) { mana_info_real_free(ri); return rc; }
    }
    if (!on_lower && mw->flavor == MPI_WIN_FLAVOR_SHARED && mw->shm.map && shm_replay(w, mw, pc) != 0) {
        mana_info_real_free(ri);
        return MPI_ERR_OTHER;
    }
    if (on_lower) LOWER(real_setup(rw, mw));
    else
        LOWER(rc = mw->flavor == MPI_WIN_FLAVOR_DYNAMIC ? real.Win_create_dynamic(ri, pc, &rw)
                                                        : real.Win_create(mw->base, mw->size, mw->disp_unit, ri, pc, &rw);
              if (rc == MPI_SUCCESS) real_setup(rw, mw));
    mana_info_real_free(ri);
    if (rc != MPI_SUCCESS) {
        mana_say("MANA: restart: cannot make window %u again (MPI error %d)", w->idx, rc);
        return rc;
    }
    w->real = HBITS(rw);
    for (int i = 0; i < mw->natt && rc == MPI_SUCCESS; i++) LOWER(rc = real.Win_attach(rw, mw->att[i].base, mw->att[i].size));
    return rc;
}

/* After the replay: the fence epochs and the locks, window by window in creation order. */
int mana_win_restart(char *err, size_t errlen)
{
    uint32_t n;
    struct vobj **l = live_windows(&n);
    if (!l) { snprintf(err, errlen, "out of memory"); return -1; }
    int any = 0, rc = any_windows(n > 0, &any);
    const char *what = "find the windows";
    for (uint32_t i = 0; rc == MPI_SUCCESS && any && i < n; i++) {
        struct mana_win *mw = mw_of(l[i]);
        MPI_Win rw = HMAKE(MPI_Win, l[i]->real);
        if (mw->fence_open) { what = "fence"; LOWER(rc = real.Win_fence(0, rw)); }
        if (rc == MPI_SUCCESS && mw->lock_all) { what = "lock_all"; LOWER(rc = real.Win_lock_all(0, rw)); }
        for (int k = 0; rc == MPI_SUCCESS && k < mw->nlocks; k++) {
            what = "lock";
            LOWER(rc = real.Win_lock(mw->locks[k].type, mw->locks[k].rank, 0, rw));
        }
    }
    free(l);
    if (rc == MPI_SUCCESS && any) LOWER(rc = real.Barrier(R(MPI_COMM_WORLD)));
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "one-sided restart: cannot %s a window again (MPI error %d)", what, rc);
        return -1;
    }
    return 0;
}

/* The post/start epochs the drain closed, opened again on the window as it is now (after a resume the
 * same real window, after a restart the replayed one): every exposure epoch of this rank first, then
 * every access epoch, so a start never waits for a post of this rank that comes after it (every rank
 * does the same, and a real post never waits).  The program's later complete, wait or test then ends
 * these epochs.  The asserts are not repeated: MPI_MODE_NOCHECK on a start promises that the matching
 * post came first on its targets, which a reopening cannot promise, and it must be given on both or
 * neither; the others are hints.  No allocation (the program's threads are still stopped). */
int mana_win_reopen(char *err, size_t errlen)
{
    int rc = MPI_SUCCESS;
    const char *what = "post";
    for (int pass = 0; pass < 2 && rc == MPI_SUCCESS; pass++) {
        for (struct vobj *w = next_window(0); w && rc == MPI_SUCCESS; w = next_window(w->order)) {
            struct pscw_epoch *e = pass ? &mw_of(w)->pscw.access : &mw_of(w)->pscw.expose;
            if (!e->reopen) continue;
            what = pass ? "start" : "post";
            /* an exposure epoch: only the origins that open their access epoch again (keep), in
             * place at the front of ranks (the epoch's later life needs no more than that) */
            int n = e->n;
            if (!pass) {
                n = 0;
                for (int i = 0; i < e->n; i++)
                    if (e->keep[i]) { e->ranks[n] = e->ranks[i]; e->keep[n++] = 1; }
                e->n = n;
                if (n == 0) { e->reopen = 0; e->over = 1; continue; }
            }
            MPI_Win rw = HMAKE(MPI_Win, w->real);
            MPI_Group wg, g = R(MPI_GROUP_EMPTY);
            LOWER(rc = real.Comm_group(R(MPI_COMM_WORLD), &wg);
                  if (rc == MPI_SUCCESS && n > 0) rc = real.Group_incl(wg, n, e->ranks, &g);
                  if (rc == MPI_SUCCESS) rc = pass ? real.Win_start(g, 0, rw) : real.Win_post(g, 0, rw);
                  if (n > 0 && g != R(MPI_GROUP_EMPTY)) real.Group_free(&g);
                  real.Group_free(&wg));
            if (rc == MPI_SUCCESS) e->reopen = 0;
        }
    }
    if (rc == MPI_SUCCESS) return 0;
    if (err) snprintf(err, errlen, "one-sided: cannot %s an epoch again after the checkpoint (MPI error %d)", what, rc);
    else mana_say("MANA: one-sided: cannot %s an epoch again after the checkpoint (MPI error %d)", what, rc);
    return -1;
}
