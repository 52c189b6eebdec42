/*
 * plugin.c - libmana.so, the upper-half plugin.
 *
 * Loaded with LD_PRELOAD by the upper half's own ld.so (the lower half put it in the environment).
 * Its constructor finds the lower half's info block, installs the checkpoint-signal handler and
 * starts the checkpoint thread.  The checkpoint thread talks to the coordinator
 * (docs/coordinator-protocol.md §6): on CKPT_REQUEST it suspends every other thread (each parks
 * inside the signal handler, its full register state saved by the kernel in the signal frame on its
 * own stack), writes the image (writer.c) to *.tmp, fsyncs, reports, renames at the commit barrier,
 * deletes older generations and resumes the threads.
 *
 * After a restart the lower half resumes the user threads directly from their signal frames and the
 * checkpoint thread through its saved context (mana_ctx_save returns 1); it then reconnects.
 */
#define _GNU_SOURCE
#include "plugin.h"
#include "tid_offset.h"
#include "mana_sys.h"
#include "mana_util.h"
#include "mana/image_format.h"
#include "mana/coord_client.h"
#include "mana_mpi_iface.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <asm/prctl.h>

struct lh_info *volatile mana_lh_info;
struct mana_plugin mana_pl;

static struct mana_thr thr_slots[MANA_MAX_THREADS];
static volatile int n_slots;          /* slots claimed by handlers */
static volatile int n_parked;         /* handlers parked (futex word) */
static volatile int park_gen;         /* handlers wait while it keeps the value they saw (futex) */
static volatile int ckpt_active;      /* 1 while a checkpoint suspends threads */
static volatile int n_deferred;       /* signals that landed on lower-half TLS */
static int trigger_fd = -1;           /* eventfd: debugging trigger (MANA_DEBUG); -1 while an image is written */
static int trigger_fd_own = -1;       /* the same descriptor, always (so the writer leaves it out) */
static int active;                    /* plugin initialised */
static mana_coord_t *coord;
static pthread_mutex_t coord_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mana_ctx ckpt_ctx;
static uint32_t last_generation;

/* ---- the MPI library of the upper half (src/mpi/), when the program uses MPI ---- */
static const struct mana_mpi_hooks *mpi;      /* NULL: no MPI */
static volatile int lower_owner;              /* tid inside the lower half (MPI call), 0 if none */
static volatile int mpi_deferred;             /* a checkpoint signal waits for that thread */
static volatile int ckpt_tid_word;
static int lower_tids[MANA_MAX_THREADS];      /* threads of the MPI library: never stopped */
static volatile int n_lower_tids;
static int reduce_for_mpi(uint32_t g, uint16_t phase, int op, int64_t *vals, uint32_t n, char *err, size_t errlen);
static volatile int restart_pending;   /* iface.restarting (mana_mpi_iface.h) */

static struct mana_plugin_iface iface = {
    &lower_owner, &mpi_deferred, &mana_pl.cfg.ckpt_signal, reduce_for_mpi, &ckpt_tid_word, &mana_pl.tid_offset,
    &mana_lh_info, &restart_pending,
};

static void restart_done(void)
{
    __atomic_store_n(&restart_pending, 0, __ATOMIC_SEQ_CST);
    mana_futex_wake(&restart_pending, 0x7fffffff);
}

MANA_EXPORT struct mana_plugin_iface *mana_mpi_register(const struct mana_mpi_hooks *hooks)
{
    __atomic_store_n(&mpi, hooks, __ATOMIC_SEQ_CST);   /* before its first call looks at restart_pending */
    mana_pl.mpi = hooks;
    return &iface;
}

static int is_lower_tid(int tid)
{
    int n = __atomic_load_n(&n_lower_tids, __ATOMIC_SEQ_CST);
    for (int i = 0; i < n; i++) if (lower_tids[i] == tid) return 1;
    return 0;
}

static void add_lower_tid(int tid)
{
    if (is_lower_tid(tid)) return;
    int i = __atomic_fetch_add(&n_lower_tids, 1, __ATOMIC_SEQ_CST);
    if (i < MANA_MAX_THREADS) lower_tids[i] = tid;
    else __atomic_store_n(&n_lower_tids, MANA_MAX_THREADS, __ATOMIC_SEQ_CST);
}

/* The MPI library's threads as the lower half recorded them after MPI_Init. */
static void note_lower_tids(const struct lh_info *lh)
{
    __atomic_store_n(&n_lower_tids, 0, __ATOMIC_SEQ_CST);
    if (!lh || lh->size < sizeof(struct lh_info)) return;
    for (uint32_t i = 0; i < lh->mpi.n_lower_tids && i < MANA_MAX_LOWER_TIDS; i++) add_lower_tid(lh->mpi.lower_tids[i]);
}

#define SCRATCH_SIZE (256UL << 20)   /* virtual; only what a checkpoint touches becomes resident */

/* ---- the checkpoint signal ---- */

static void ckpt_handler(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    if (!ckpt_active) {
        /* Not ours: a checkpoint signal sent from outside.  Under MANA_DEBUG that asks for a
         * checkpoint (debugging aid, docs/architecture.md). */
        if (mana_pl.cfg.debug && si && si->si_code == SI_USER && si->si_pid != mana_getpid() &&
            trigger_fd >= 0) {
            uint64_t one = 1;
            mana_sys3(SYS_write, trigger_fd, (long)&one, 8);
        }
        return;
    }
    /* Never run upper-half code on lower-half TLS: if this thread is inside the lower half (an MPI
     * call, later issues), note it and let the wrapper re-raise on its way out. */
    uint64_t fs = 0;
    mana_sys2(SYS_arch_prctl, ARCH_GET_FS, (long)&fs);
    struct lh_info *lh = mana_lh_info;
    int tid = mana_gettid();
    if (tid == __atomic_load_n(&lower_owner, __ATOMIC_SEQ_CST)) {
        /* Inside an MPI wrapper (on either TLS): the wrapper raises the signal again once it has
         * left the lower half, so the thread never stops holding it. */
        __atomic_store_n(&mpi_deferred, 1, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&n_deferred, 1, __ATOMIC_SEQ_CST);
        return;
    }
    if (lh && lh->lh_range_count && mana_range_overlaps(lh->lh_ranges, lh->lh_range_count, fs, fs + 1)) {
        /* A thread of the MPI library itself: it is not the program's, and is not saved. */
        add_lower_tid(tid);
        __atomic_add_fetch(&n_deferred, 1, __ATOMIC_SEQ_CST);
        return;
    }
    int idx = __atomic_fetch_add(&n_slots, 1, __ATOMIC_SEQ_CST);
    if (idx >= MANA_MAX_THREADS) return;
    struct mana_thr *t = &thr_slots[idx];
    t->flags = tid == mana_getpid() ? MANA_THR_MAIN : 0;
    t->fs_base = fs;
    t->uc = ucv;
    mana_sys2(SYS_sigaltstack, 0, (long)&t->altstack);
    t->robust_head = 0;
    t->robust_len = 0;
    mana_sys3(SYS_get_robust_list, 0, (long)&t->robust_head, (long)&t->robust_len);
    int gen = park_gen;
    __atomic_store_n(&t->tid, tid, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&n_parked, 1, __ATOMIC_SEQ_CST);
    mana_futex_wake(&n_parked, 1);
    while (__atomic_load_n(&park_gen, __ATOMIC_SEQ_CST) == gen)
        mana_futex_wait(&park_gen, gen);
}

/* ---- suspending and resuming the other threads ---- */

static int task_list(int *tids, int cap)
{
    long fd = mana_sys4(SYS_openat, AT_FDCWD, (long)"/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0) return (int)fd;
    char buf[8192];
    int n = 0;
    for (;;) {
        long r = mana_sys3(SYS_getdents64, fd, (long)buf, sizeof buf);
        if (r <= 0) break;
        for (long off = 0; off < r;) {
            struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *d =
                (void *)(buf + off);
            if (d->name[0] >= '0' && d->name[0] <= '9' && n < cap) tids[n++] = atoi(d->name);
            off += d->reclen;
        }
    }
    mana_sys1(SYS_close, fd);
    return n;
}

static int slot_has(int tid)
{
    int n = __atomic_load_n(&n_slots, __ATOMIC_SEQ_CST);
    for (int i = 0; i < n && i < MANA_MAX_THREADS; i++)
        if (thr_slots[i].tid == tid) return 1;
    return 0;
}

static void resume_threads(void)
{
    ckpt_active = 0;
    n_slots = 0;
    n_parked = 0;
    __atomic_add_fetch(&park_gen, 1, __ATOMIC_SEQ_CST);
    mana_futex_wake(&park_gen, 0x7fffffff);
}

/* A thread that blocks the checkpoint signal can never be stopped: a helper thread that a library
 * started with every signal blocked (glibc's AIO and mq_notify helpers, for one).  1 if tid does. */
static int blocks_ckpt_signal(int tid, char *name, size_t namelen)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
    if (mana_read_file(path, buf, sizeof buf) <= 0) return 0;
    const char *n = strstr(buf, "Name:");
    if (n) {
        n += 5;
        while (*n == ' ' || *n == '\t') n++;
        size_t l = strcspn(n, "\n");
        snprintf(name, namelen, "%.*s", (int)(l < namelen ? l : namelen - 1), n);
    }
    const char *b = strstr(buf, "SigBlk:");
    if (!b) return 0;
    uint64_t mask = strtoull(b + 7, NULL, 16);
    return (mask >> (mana_pl.cfg.ckpt_signal - 1)) & 1;
}

/* Signal every thread but this one and wait until each is parked.  0, or -1 with err. */
static int suspend_threads(char *err, size_t errlen)
{
    static int tids[MANA_MAX_THREADS], signalled[MANA_MAX_THREADS], skipped[MANA_MAX_THREADS];
    int nsig = 0, nskip = 0;
    int self = mana_gettid(), pid = mana_getpid();
    n_slots = 0;
    n_parked = 0;
    n_deferred = 0;
    __atomic_store_n(&ckpt_active, 1, __ATOMIC_SEQ_CST);
    int64_t t0 = mana_now_ns();
    int warned = 0;
    for (;;) {
        int n = task_list(tids, MANA_MAX_THREADS);
        if (n < 0) { mana_fmt(err, errlen, "cannot list /proc/self/task"); goto fail; }
        int fresh = 0;
        for (int i = 0; i < n; i++) {
            int tid = tids[i], seen = 0;
            if (tid == self || is_lower_tid(tid)) continue;
            for (int k = 0; k < nsig; k++) if (signalled[k] == tid) { seen = 1; break; }
            if (seen) continue;
            if (nsig >= MANA_MAX_THREADS) { mana_fmt(err, errlen, "more than %d threads", MANA_MAX_THREADS); goto fail; }
            long r = mana_sys3(SYS_tgkill, pid, tid, mana_pl.cfg.ckpt_signal);
            if (r == 0) { signalled[nsig++] = tid; fresh++; }
        }
        /* wait for everyone signalled so far: parked, or gone */
        for (;;) {
            int missing = 0;
            int64_t waited = mana_now_ns() - t0;
            for (int k = 0; k < nsig; k++) {
                if (slot_has(signalled[k]) || is_lower_tid(signalled[k])) continue;
                if (mana_sys3(SYS_tgkill, pid, signalled[k], 0) != 0) continue;   /* exited */
                int skip = 0;
                for (int q = 0; q < nskip; q++) if (skipped[q] == signalled[k]) skip = 1;
                if (skip) continue;
                char name[32] = "?";
                if (waited > 100000000LL && blocks_ckpt_signal(signalled[k], name, sizeof name)) {
                    /* It never answers: do not wait for it.  It is not in the image. */
                    skipped[nskip++] = signalled[k];
                    mana_warn("checkpoint: thread %d (%s) blocks the checkpoint signal %d (a library's helper "
                              "thread?): it is not saved and will be missing after a restart",
                              signalled[k], name, mana_pl.cfg.ckpt_signal);
                    continue;
                }
                missing++;
            }
            if (!missing) break;
            if (waited > 2000000000LL && !warned) {
                mana_warn("checkpoint: %d thread(s) do not answer the checkpoint signal %d yet (blocked?)",
                          missing, mana_pl.cfg.ckpt_signal);
                warned = 1;
            }
            /* A thread inside a long MPI call parks when it returns: wait for it longer. */
            if (waited > (mpi_deferred ? 600000000000LL : 20000000000LL)) {
                mana_fmt(err, errlen, "%d thread(s) did not stop within 20 s (checkpoint signal %d blocked?)",
                         missing, mana_pl.cfg.ckpt_signal);
                goto fail;
            }
            struct timespec ts = { 0, 2000000 };
            int cur = n_parked;
            mana_sys4(SYS_futex, (long)&n_parked, MANA_FUTEX_WAIT_PRIVATE, cur, (long)&ts);
        }
        if (!fresh) break;          /* a full pass found no new thread: everyone is stopped */
    }
    if (n_deferred) mana_dbg("checkpoint: %d signal(s) deferred (lower half)", n_deferred);
    if (mana_pl.cfg.debug) {
        char list[256] = "";
        size_t k = 0;
        for (int i = 0; i < n_lower_tids && k < sizeof list - 16; i++)
            k += (size_t)snprintf(list + k, sizeof list - k, " %d", lower_tids[i]);
        mana_dbg("checkpoint: %d thread(s) stopped; MPI library threads left running:%s", n_slots, list);
    }
    return 0;
fail:
    resume_threads();
    return -1;
}

/* ---- files and names ---- */

static int mkdir_p(const char *path, mode_t mode)
{
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    }
    if (mkdir(tmp, mode) != 0 && errno != EEXIST) return -1;
    return 0;
}

static const char *program_name(void)
{
    const char *s = strrchr(mana_pl.app_path, '/');
    return s ? s + 1 : mana_pl.app_path;
}

/* Remove every image of the rank directory but `keep` (the one just committed): older generations,
 * and images of another program or of an earlier run whose generation numbers may even be higher
 * (a program that exec'd another one, a job launched again into the same directory): the newest
 * state is the committed one, and restart takes the highest generation it finds. */
/* ---- incremental checkpoints (MANA_INCREMENTAL; docs/image-format.md) ---- */
static int incr_on;                      /* asked for at launch */
static int forked_on;                    /* MANA_FORKED: a writer process writes while the program runs */
extern int mana_compress_level;          /* writer.c: this image's zstd level */
extern int mana_compress_threads;        /* writer.c: -1 = one per CPU */
/* `fast`: zstd's own default level. Level 1 made the heat demo's image 1.98x smaller, level 3 2.15x
 * (docs/benchmarks.md), and the compression threads pay for the difference in speed. */
#define MANA_ZSTD_FAST 3
static int compress_launched;            /* MANA_COMPRESS's level; a request may change one image's */
static int forked_noted;                 /* said once why a checkpoint was written unforked */
static uint32_t incr_full_every = 8;     /* a full image at least every this many generations */
static int incr_tracking;                /* dirty.c is tracking written pages in this process */
static int incr_warned;
/* The last committed image while tracking ran since it was written (valid), and the chain it
 * completes: the images retention must keep (names[0] is the full one). */
static struct {
    int valid;
    uint32_t gen, header_crc, depth;
    uint64_t file_size;
    char dir[4200];
    uint32_t n;
    char names[MANA_IMG_MAX_CHAIN][256];
} chain;

static int in_chain(const char *name)
{
    for (uint32_t i = 0; i < chain.n; i++) if (strcmp(chain.names[i], name) == 0) return 1;
    return 0;
}

/* After a commit: every other image of the rank folder goes, except the images the new one needs
 * (an incremental image needs its whole chain down to the full one). */
static void remove_other_images(const char *rankdir, const char *keep)
{
    long fd = mana_sys4(SYS_openat, AT_FDCWD, (long)rankdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0) return;
    char buf[8192];
    for (;;) {
        long r = mana_sys3(SYS_getdents64, fd, (long)buf, sizeof buf);
        if (r <= 0) break;
        for (long off = 0; off < r;) {
            struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *d =
                (void *)(buf + off);
            if (mana_image_generation(d->name) && strcmp(d->name, keep) != 0 && !in_chain(d->name)) {
                mana_sys3(SYS_unlinkat, fd, (long)d->name, 0);
                mana_dbg("removed %s/%s", rankdir, d->name);
            }
            off += d->reclen;
        }
    }
    mana_sys1(SYS_close, fd);
}

/* ---- coordinator ---- */

/* Connect and register as this rank.  `reconnect`: a later attempt after the coordinator was lost:
 * the status file is read afresh (the next coordinator of the same file has its own port and
 * secret), failures are quiet (the caller backs off) and the wait is short. */
static int coord_connect_ex(int restarting, uint32_t generation, int reconnect)
{
    char err[512];
    struct mana_coord_addr addr;
    struct mana_settings *s = &mana_pl.cfg;
    /* the secret stays in lower-half memory, which no image holds (cfg's copy is wiped) */
    const char *secret = mana_lh_info ? mana_lh_info->settings.coord_secret : "";
    int rrc;
    const char *rcfile = mana_lh_info ? mana_lh_info->coord_rc : "";
    if (reconnect && rcfile[0])            /* the next coordinator of the launch's status file */
        rrc = mana_coord_resolve_file(&addr, rcfile, err, sizeof err);
    else if (s->coord_host[0] && s->coord_port > 0 && s->coord_port <= 65535 && secret[0]) {
        /* The launcher resolved the whole address (flags > environment > status file, secret
         * included): take it as it is.  Resolving again here would read the program's environment,
         * which after a restart is the checkpointed run's: its MANA_RC or SLURM_JOB_ID name the old
         * job's status file, which may be gone (refused: "cannot read status file") or name an old
         * coordinator (its secret taken: "wrong secret").  Only with the secret in hand: a child the
         * program forks or execs under the runtime has the address but not the secret, and finds it in
         * the status file as before (taken as it was, the empty secret was refused: process_children). */
        memset(&addr, 0, sizeof addr);
        snprintf(addr.host, sizeof addr.host, "%s", s->coord_host);
        addr.port = (uint16_t)s->coord_port;
        snprintf(addr.secret, sizeof addr.secret, "%s", secret);
        rrc = MANA_COORD_OK;
    } else                                 /* a lower half started by hand: the usual layers */
        rrc = mana_coord_resolve(&addr, s->coord_host[0] ? s->coord_host : NULL, s->coord_port,
                                 secret[0] ? secret : NULL, err, sizeof err);
    if (rrc != MANA_COORD_OK) {
        if (reconnect) mana_dbg("reconnect: %s", err);
        else mana_err("%s", err);
        return -1;
    }
    struct mana_coord_hello h;
    memset(&h, 0, sizeof h);
    h.role = MANA_COORD_ROLE_RANK;
    h.job = s->job;
    h.rank = s->rank;
    h.nranks = s->nranks;
    struct lh_info *lh = mana_lh_info;
    h.mpi = !lh || lh->mpi.kind == MANA_MPI_NONE ? "none" : lh->mpi.kind == MANA_MPI_OPENMPI ? "openmpi" : "mpich";
    h.generation = generation;
    h.restarting = (uint8_t)restarting;
    h.ckptdir = s->ckpt_dir;
    h.program = mana_pl.app_path;
    static struct mana_coord_welcome w;
    int rc = 0;
    mana_coord_t *c = mana_coord_connect(&addr, &h, &w, reconnect ? 3000 : 10000, &rc, err, sizeof err);
    /* After following an exec, the coordinator may not have seen the BYE of the program before
     * yet (another connection): the same rank is "already registered" for a moment. */
    for (int tries = 0; !c && lh && lh->exec_followed && strstr(err, "already registered") && tries < 100; tries++) {
        struct timespec ts = { 0, 20000000 };
        nanosleep(&ts, NULL);
        c = mana_coord_connect(&addr, &h, &w, 10000, &rc, err, sizeof err);
    }
    mana_coord_wipe(addr.secret, sizeof addr.secret);
    if (!c) {
        if (reconnect) mana_dbg("reconnect: coordinator at %s:%u: %s", addr.host, addr.port, err);
        else mana_err("cannot reach coordinator at %s:%u: %s", addr.host, addr.port, err);
        return -1;
    }
    coord = c;
    if (w.generation > last_generation) last_generation = w.generation;
    mana_dbg("connected to coordinator %s:%u as client %u (generation %u, interval %u)", addr.host,
             addr.port, w.client_id, w.generation, w.interval);
    if (reconnect)
        mana_warn("rank %d registered with the coordinator at %s:%u again: checkpoints are back", s->rank,
                  addr.host, addr.port);
    return 0;
}

static int coord_connect(int restarting, uint32_t generation)
{
    return coord_connect_ex(restarting, generation, 0);
}

/* A rank that lost its coordinator keeps trying to register with the next one of the same status
 * file, so that protection comes back without a restart: the first try after 0.25 s, then twice as
 * long each time, at most MANA_COORD_RETRY_MAX seconds (30) apart.  Until it succeeds the coordinator
 * shows the rank as unprotected.  Only the checkpoint thread touches these. */
#define RECONNECT_FIRST_MS 250
static volatile int exiting;             /* the exit handlers run (at_exit_bye) */
static int64_t reconnect_at_ns;          /* 0: not reconnecting */
static int64_t reconnect_delay_ms;
static int64_t reconnect_max_ms = 30000;

static void reconnect_schedule(void)
{
    if (mana_pl.cfg.no_coord) return;
    reconnect_delay_ms = RECONNECT_FIRST_MS;
    reconnect_at_ns = mana_now_ns() + reconnect_delay_ms * 1000000LL;
}

/* Called by the checkpoint thread (coord_lock held) when reconnect_at_ns has come. */
static void reconnect_try(void)
{
    if (exiting) {                         /* the program is leaving: stay away */
        reconnect_at_ns = 0;
        return;
    }
    if (coord_connect_ex(0, last_generation, 1) == 0) {
        reconnect_at_ns = 0;
        return;
    }
    reconnect_delay_ms *= 2;
    if (reconnect_delay_ms > reconnect_max_ms) reconnect_delay_ms = reconnect_max_ms;
    reconnect_at_ns = mana_now_ns() + reconnect_delay_ms * 1000000LL;
}

static int barrier(uint32_t g, uint16_t phase, char *err, size_t errlen)
{
    if (!coord) return MANA_COORD_OK;
    return mana_coord_barrier(coord, g, phase, -1, err, errlen);
}

static void coord_lost(int rc, const char *err)
{
    if (rc == MANA_COORD_KILLED) {
        mana_dbg("KILL from the coordinator");
        _exit(0);
    }
    const char *what = err && *err ? err : mana_coord_rc_name(rc);
    if (err && strstr(err, "connection lost"))
        mana_warn("%s; the program goes on without checkpoints until a coordinator of the same status file "
                  "takes it back (retrying)", err);
    else
        mana_warn("coordinator connection lost (%s); the program goes on without checkpoints until a coordinator "
                  "of the same status file takes it back (retrying)", what);
    mana_coord_close(coord);
    coord = NULL;
    reconnect_schedule();
}

/* ---- one checkpoint ---- */

/* Variables that must be right after mana_ctx_save returns a second time (at restart) are static:
 * the stack frame of do_checkpoint is restored as it was when the image wrote it. */
static volatile uint32_t ck_gen;
static volatile int64_t ck_t0;

static void after_restart(void);

static int reduce_for_mpi(uint32_t g, uint16_t phase, int op, int64_t *vals, uint32_t n, char *err, size_t errlen)
{
    if (!coord) return 0;                 /* alone: the job is this rank */
    int rc = mana_coord_collective(coord, g, phase, (enum mana_coord_op)op, vals, vals, n, -1, err, errlen);
    return rc == MANA_COORD_OK ? 0 : -1;
}

/* Add the launcher's descriptors of this lower half to the plugin's list. */
static void note_inherited(const struct lh_info *lh)
{
    if (!lh || lh->size < sizeof(struct lh_info)) return;
    for (uint32_t i = 0; i < lh->inherited_count && i < MANA_MAX_INHERITED; i++) {
        int dup = 0;
        for (uint32_t k = 0; k < mana_pl.n_inherited; k++)
            if (mana_pl.inherited[k].fd == lh->inherited[i].fd && mana_pl.inherited[k].ino == lh->inherited[i].ino &&
                mana_pl.inherited[k].dev == lh->inherited[i].dev) dup = 1;
        if (!dup && mana_pl.n_inherited < MANA_MAX_INHERITED) mana_pl.inherited[mana_pl.n_inherited++] = lh->inherited[i];
    }
}

/* Child processes are not checkpointed: a rank with live children (not zombies, not an MPI
 * launcher's helper) refuses the checkpoint, naming them.  Returns how many; `list` names them. */
static int live_children(char *list, size_t len)
{
    static int tids[MANA_MAX_THREADS];
    int nt = task_list(tids, MANA_MAX_THREADS), found = 0;
    size_t k = 0;
    list[0] = 0;
    for (int i = 0; i < nt; i++) {
        char path[64], buf[4096];
        snprintf(path, sizeof path, "/proc/self/task/%d/children", tids[i]);
        if (mana_read_file(path, buf, sizeof buf) <= 0) continue;
        for (char *p = buf; *p;) {
            while (*p == ' ' || *p == '\n') p++;
            if (!*p) break;
            int pid = (int)strtol(p, &p, 10);
            char stat[512], comm[64] = "?";
            char state = '?';
            snprintf(path, sizeof path, "/proc/%d/stat", pid);
            if (mana_read_file(path, stat, sizeof stat) > 0) {
                char *o = strchr(stat, '('), *c = strrchr(stat, ')');
                if (o && c && c > o) {
                    snprintf(comm, sizeof comm, "%.*s", (int)(c - o - 1), o + 1);
                    if (c[1] == ' ') state = c[2];
                }
            }
            if (state == 'Z' || state == 'X') continue;
            if (!strcmp(comm, "orted") || !strcmp(comm, "prted") || !strcmp(comm, "hydra_pmi_proxy")) continue;
            if (k < len - 40) k += (size_t)snprintf(list + k, len - k, "%s%d '%s'", found ? ", " : "", pid, comm);
            found++;
        }
    }
    return found;
}

/* The program runs again after a checkpoint: the MPI layer's gate, then the threads.  Once: a forked
 * checkpoint resumes it before its image is written, and the paths after that must not again. */
static void resume_program(int *resumed)
{
    if (*resumed) return;
    if (mpi) mpi->resume();
    restart_done();
    resume_threads();
    *resumed = 1;
}

/* A checkpoint this rank cannot take, refused before anything is stopped (said to the coordinator):
 * live child processes (not checkpointed) or MPI already finalized.  0: go on. */
static int refuse_early(uint32_t g)
{
    char err[512] = "";
    char kids[256];
    int nk = live_children(kids, sizeof kids);
    if (nk) {
        mana_fmt(err, sizeof err, "rank %d has %d live child process%s (%s): child processes are not "
                 "checkpointed, so the checkpoint is refused; take it when they have ended", mana_pl.cfg.rank,
                 nk, nk == 1 ? "" : "es", kids);
        mana_err("checkpoint %u refused: %s", g, err);
        if (coord) mana_coord_ckpt_failed(coord, g, err, NULL, 0);
        return 1;
    }
    if (mpi && mpi->finalized()) {
        mana_fmt(err, sizeof err, "rank %d has called MPI_Finalize: checkpoint skipped", mana_pl.cfg.rank);
        mana_warn("%s", err);
        if (coord) mana_coord_ckpt_failed(coord, g, err, NULL, 0);
        return 1;
    }
    return 0;
}

/* Incremental: on the last committed image of this folder, while the chain is shorter than
 * MANA_INCREMENTAL_FULL_EVERY; a full image otherwise (and the first one, and after a restart). */
static void plan_incremental(struct mana_incr *inc, uint32_t g, int flags, const char *rankdir)
{
    memset(inc, 0, sizeof *inc);
    if (!incr_on) return;
    if (!incr_tracking) {
        char why[256];
        if (mana_dirty_start(why, sizeof why) == 0) incr_tracking = 1;
        else if (!incr_warned) {
            mana_warn("incremental checkpoints were asked for, but %s: every image is a full one", why);
            incr_warned = 1;
        }
    }
    inc->untracked = !incr_tracking;
    inc->protect = incr_tracking;
    if (flags & MANA_COORD_CKPT_FULL) mana_dbg("checkpoint %u: a full image was asked for", g);
    if (incr_tracking && !(flags & MANA_COORD_CKPT_FULL) && chain.valid && strcmp(chain.dir, rankdir) == 0 &&
        chain.depth + 1 < incr_full_every &&
        chain.n < MANA_IMG_MAX_CHAIN && chain.gen < g) {
        inc->incremental = 1;
        inc->parent.generation = chain.gen;
        inc->parent.header_crc = chain.header_crc;
        inc->parent.file_size = chain.file_size;
        inc->parent.depth = chain.depth + 1;
        inc->parent_name = chain.names[chain.n - 1];
    }
}

/* This one's compression: as launched, unless the request says (mana_status --compress=LEVEL); the
 * image holds this value, so after_restart sets the launched one again. */
static void choose_compression(int flags)
{
    switch ((flags & MANA_COORD_CKPT_ZSTD_MASK) >> MANA_COORD_CKPT_ZSTD_SHIFT) {
    case 1: mana_compress_level = 0; break;
    case 2: mana_compress_level = MANA_ZSTD_FAST; break;
    case 3: mana_compress_level = 9; break;
    default: mana_compress_level = compress_launched; break;
    }
}

/* The commit: tmp renamed to final, and the folder fsynced so that the rename survives a crash of
 * the node; if that fails this generation is not durable and is taken back (the previous one is
 * still there).  0, or 1 with err set and nothing of this generation left. */
static int commit_image(const char *tmp, const char *final, const char *rankdir, char *err, size_t errlen)
{
    if (rename(tmp, final) != 0) {
        mana_fmt(err, errlen, "cannot rename %s: %s", tmp, strerror(errno));
        unlink(tmp);
        return 1;
    }
    int dfd = open(rankdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd) != 0) {
        mana_fmt(err, errlen, "cannot make the new image durable: %s %s: %s", dfd < 0 ? "open" : "fsync",
                 rankdir, strerror(errno));
        if (dfd >= 0) close(dfd);
        unlink(final);
        return 1;
    }
    close(dfd);
    return 0;
}

/* After the commit: the chain the next incremental image builds on (this image, where its pages
 * are tracked), or none. */
static void remember_chain(const struct mana_incr *inc, const struct mana_write_result *res, uint32_t g,
                           const char *final_name, const char *rankdir)
{
    if (inc->protect) {
        if (!res->incremental) chain.n = 0;
        snprintf(chain.names[chain.n++], sizeof chain.names[0], "%s", final_name);
        chain.valid = 1;
        chain.gen = g;
        chain.header_crc = res->header_crc;
        chain.file_size = res->file_bytes;
        chain.depth = res->incremental ? inc->parent.depth : 0;
        snprintf(chain.dir, sizeof chain.dir, "%s", rankdir);
    } else {
        chain.n = 0;
    }
}

/* When each step of a checkpoint ended (MANA_TIMING), for the log. */
struct ck_times {
    int64_t quiesce, susp, bar, write, commit, resumed, end;
    int forked_write;                    /* the program ran while the writer process wrote */
};

static void log_checkpoint(uint32_t g, const struct ck_times *t, const char *final, const struct mana_write_result *res,
                           const struct mana_incr *inc, int was_valid)
{
    if (mpi) mana_timing("checkpoint: MPI collective drain", t->quiesce - ck_t0);
    mana_timing("checkpoint: suspend threads", t->susp - t->quiesce);
    mana_timing("checkpoint: barriers SUSPENDED+DRAINED", t->bar - t->susp);
    mana_timing("checkpoint: write image + fsync", t->write - t->bar);
    mana_timing("checkpoint: CHECKPOINTED+rename+COMMITTED", t->commit - t->write);
    mana_timing("checkpoint: total", t->end - ck_t0);
    mana_timing("checkpoint: program paused", t->resumed - ck_t0);
    if (t->forked_write) mana_timing("checkpoint: forked writer, program running", t->write - t->resumed);
    mana_dbg("checkpoint %u committed: %s (%lu bytes in file, %lu stored of %lu mapped, %u regions)", g, final,
             (unsigned long)res->file_bytes, (unsigned long)res->stored_bytes, (unsigned long)res->mapped_bytes,
             res->regions);
    if (res->zstd_threads) mana_dbg("checkpoint %u: zstd level %d, %d compression thread%s", g, mana_compress_level,
                                    res->zstd_threads, res->zstd_threads == 1 ? "" : "s");
    if (incr_on)
        mana_dbg("checkpoint %u: %s image%s, %lu bytes left to the parent", g,
                 res->incremental ? "incremental" : inc->untracked ? "full (untracked)" : "full",
                 res->incremental ? "" : inc->incremental ? " (most pages changed)" :
                 was_valid ? " (chain at its length limit or in another folder)" : "",
                 (unsigned long)res->inherited_bytes);
}

/* Has every rank started MPI, or none?  The MPI drain's rounds are collectives of the whole job, and a
 * rank only runs them once its program has called into MPI (the MPI library registered its hooks): a
 * checkpoint that came while some ranks were in MPI_Init and the others not yet had half the job in the
 * drain's first round and the other half at phase 1 for good (MPICH's topo/graphmap1, 4 ranks, a
 * checkpoint in the first second).  From here until the program runs again no rank starts MPI (its first
 * call waits on restart_pending, as after a restart); then one reduction
 * (the last of the collective drain's phases, 16,447) says whether all ranks have started or none has, and where they differ every rank refuses this
 * checkpoint alike.  0: go on. */
static int mpi_start_vote(uint32_t g)
{
    __atomic_store_n(&restart_pending, 1, __ATOMIC_SEQ_CST);
    int64_t started = __atomic_load_n(&mpi, __ATOMIC_SEQ_CST) != NULL;
    if (!coord) return 0;
    int64_t v[2] = { started, -started };      /* max: whether any rank has; -max(-x): whether all have */
    char err[512] = "";
    int rc = mana_coord_collective(coord, g, MANA_PHASE_COLL_DRAIN_LAST, MANA_COORD_MAX, v, v, 2, -1, err, sizeof err);
    if (rc == MANA_COORD_OK && v[0] == -v[1]) return 0;
    if (rc == MANA_COORD_OK) {
        mana_fmt(err, sizeof err, "MPI was starting: some ranks had called MPI_Init and others not yet (this "
                 "one %s); checkpoint refused, take it again", started ? "had" : "had not");
        mana_err("checkpoint %u refused: %s", g, err);
        mana_coord_ckpt_failed(coord, g, err, NULL, 0);
    } else {
        mana_dbg("checkpoint %u: %s", g, err[0] ? err : mana_coord_rc_name(rc));
    }
    restart_done();
    return 1;
}

static void do_checkpoint(uint32_t g, int flags, const char *reqdir)
{
    char err[512] = "";
    ck_gen = g;
    ck_t0 = mana_now_ns();
    mana_dbg("checkpoint %u requested", g);
    const char *dir = reqdir && *reqdir ? reqdir : mana_pl.cfg.ckpt_dir;
    char rankdir[4200], tmp[4400], final[4400];
    snprintf(rankdir, sizeof rankdir, "%s/ckpt_rank_%d", dir, mana_pl.cfg.rank);
    mana_image_name(tmp, sizeof tmp, dir, mana_pl.cfg.rank, program_name(), g, 1);
    mana_image_name(final, sizeof final, dir, mana_pl.cfg.rank, program_name(), g, 0);

    if (refuse_early(g) != 0) return;
    if (mpi_start_vote(g) != 0) return;
    if (mpi && mpi->quiesce(g, err, sizeof err) != 0) {
        mana_err("checkpoint %u failed: %s", g, err);
        mpi->resume();
        restart_done();
        if (coord) mana_coord_ckpt_failed(coord, g, err, NULL, 0);
        return;
    }
    int64_t t_quiesce = mana_now_ns();
    int resumed = 0;                     /* forked: the program runs again while its image is written */
    int64_t t_resumed = 0;
    if (suspend_threads(err, sizeof err) != 0) {
        mana_err("checkpoint %u failed: %s", g, err);
        if (mpi) mpi->resume();
        restart_done();
        if (coord) mana_coord_ckpt_failed(coord, g, err, NULL, 0);
        return;
    }
    int64_t t_susp = mana_now_ns();
    mana_timers_snapshot();
    mana_pl.n_thr = n_slots < MANA_MAX_THREADS ? n_slots : MANA_MAX_THREADS;
    int rc = barrier(g, MANA_PHASE_SUSPENDED, err, sizeof err);
    if (rc == MANA_COORD_OK && mpi && mpi->drain(g, err, sizeof err) != 0) {
        if (err[0] && !strstr(err, "aborted")) goto write_failed;
        rc = MANA_COORD_ABORTED;
    }
    if (rc == MANA_COORD_OK) rc = barrier(g, MANA_PHASE_DRAINED, err, sizeof err);
    if (rc != MANA_COORD_OK) goto coord_failed;
    int64_t t_bar = mana_now_ns();

    if (mkdir_p(rankdir, 0700) != 0) {
        mana_fmt(err, sizeof err, "cannot create %s: %s", rankdir, strerror(errno));
        goto write_failed;
    }
    struct mana_write_result res;
    memset(&res, 0, sizeof res);
    mana_pl.generation = g;
    /* The image must not hold our descriptor numbers: after a restart they may be someone else's. */
    int saved_trigger = trigger_fd;
    trigger_fd = -1;
    __atomic_store_n(&restart_pending, 1, __ATOMIC_SEQ_CST);   /* so in the image; this process: resume_program */
    if (mana_ctx_save(&ckpt_ctx) != 0) {
        /* Restarted from this image. */
        after_restart();
        return;
    }
    struct mana_incr inc;
    plan_incremental(&inc, g, flags, rankdir);
    const char *final_name = strrchr(final, '/') + 1;
    int was_valid = chain.valid;
    chain.valid = 0;                     /* until this one is committed: its protection has begun */
    int wrc;
    choose_compression(flags);
    /* how this one is written: as launched, unless the request says (mana_status --forked/--unforked) */
    int fork_this = flags & MANA_COORD_CKPT_FORKED ? 1 : flags & MANA_COORD_CKPT_UNFORKED ? 0 : forked_on;
    if (fork_this && incr_on && (flags & MANA_COORD_CKPT_FORKED))
        mana_warn("checkpoint %u: a forked checkpoint was asked for, but incremental images are written with the "
                  "program stopped", g);
    if (fork_this && !incr_on && !(flags & MANA_COORD_CKPT_EXIT)) {
        /* Forked: what the image needs besides memory is taken now; a writer process, a copy-on-write
         * copy of this one, writes the memory while the program runs on.  The commit below waits for
         * it: the coordinator hears "written" only once the image is on disk. */
        struct mana_fork_writer fw;
        wrc = mana_write_image_forked(tmp, g, &res, &fw, err, sizeof err);
        trigger_fd = saved_trigger;
        if (wrc != 0) goto write_failed;
        if (fw.pid > 0) {
            resume_program(&resumed);
            t_resumed = mana_now_ns();
            mana_dbg("checkpoint %u: the program runs on; writer process %d writes %s", g, fw.pid, tmp);
            if (mana_fork_writer_wait(&fw, &res, err, sizeof err) != 0) goto write_failed;
        } else if (!forked_noted) {
            mana_warn("checkpoint %u written with the program stopped, not forked: %s", g, fw.why);
            forked_noted = 1;
        }
    } else {
        wrc = mana_write_image(tmp, g, incr_on ? &inc : NULL, &res, err, sizeof err);
        trigger_fd = saved_trigger;
        if (wrc != 0) goto write_failed;
    }
    int64_t t_write = mana_now_ns();
    if (coord) mana_coord_ckpt_written(coord, g, res.file_bytes, (uint64_t)(t_write - t_bar), final, NULL, 0);
    rc = barrier(g, MANA_PHASE_CHECKPOINTED, err, sizeof err);
    if (rc != MANA_COORD_OK) { unlink(tmp); goto coord_failed; }
    if (commit_image(tmp, final, rankdir, err, sizeof err) != 0) goto write_failed;
    rc = barrier(g, MANA_PHASE_COMMITTED, err, sizeof err);
    if (rc != MANA_COORD_OK) { unlink(final); goto coord_failed; }
    int64_t t_commit = mana_now_ns();
    last_generation = g;
    remember_chain(&inc, &res, g, final_name, rankdir);
    remove_other_images(rankdir, final_name);
    if (flags & MANA_COORD_CKPT_EXIT) {
        /* checkpoint-and-kill: the threads stay stopped, so nothing runs past the image */
        mana_timing("checkpoint: total", mana_now_ns() - ck_t0);
        mana_dbg("exit after checkpoint %u", g);
        if (coord) mana_coord_bye(coord, MANA_COORD_BYE_CKPT_KILL, 0, NULL, 0);
        _exit(0);
    }
    int forked_write = resumed;          /* the program ran while the writer process wrote */
    if (!resumed) {
        resume_program(&resumed);
        t_resumed = mana_now_ns();
    }
    struct ck_times times = { t_quiesce, t_susp, t_bar, t_write, t_commit, t_resumed, mana_now_ns(), forked_write };
    log_checkpoint(g, &times, final, &res, &inc, was_valid);
    return;

write_failed:
    mana_err("checkpoint %u failed: %s", g, err);
    unlink(tmp);
    if (coord) mana_coord_ckpt_failed(coord, g, err, NULL, 0);
    resume_program(&resumed);
    return;
coord_failed:
    resume_program(&resumed);
    if (rc == MANA_COORD_ABORTED) {
        mana_warn("checkpoint %u aborted: %s", g, err);
        unlink(tmp);
        unlink(final);
        return;
    }
    coord_lost(rc, err);
}

/* The checkpoint thread continues here after a restart (mana_ctx_save returned 1). */
/* Tests only: MANA_TEST_RESTART_HOLD=PATH in the program's environment (set at launch: the restarted
 * process has the program's environment back) holds the restart sequence here, before the coordinator,
 * while PATH exists (60 s at most), so that a test can see what the program does meanwhile
 * (tests/mpi/preinit.sh: a program with no MPI call yet must not get into MPI before the sequence ends). */
static void restart_hold(void)
{
    const char *hold = mana_env_get("MANA_TEST_RESTART_HOLD");
    if (!hold || !*hold) return;
    int64_t end = mana_now_ns() + 60000000000LL;
    struct stat st;
    while (stat(hold, &st) == 0 && mana_now_ns() < end) {
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
}

static void after_restart(void)
{
    struct lh_info *lh = mana_lh_info;
    uint32_t g = ck_gen;
    /* The handlers' bookkeeping is as the image saw it: reset it. */
    ckpt_active = 0;
    mana_compress_level = compress_launched;     /* the image may hold one request's level */
    /* No page of this process is write-protected, and the tracking descriptor was the old process's:
     * the next image is a full one (which starts tracking again). */
    mana_dirty_forget();
    incr_tracking = 0;
    chain.valid = 0;
    chain.n = 0;
    n_slots = 0;
    n_parked = 0;
    park_gen++;
    if (lh && lh->magic == MANA_LH_MAGIC) {
        note_inherited(lh);
        note_lower_tids(lh);
        mana_fault_publish(lh);
        int old_sig = mana_pl.cfg.ckpt_signal;
        mana_pl.cfg = lh->settings;
        mana_coord_wipe(mana_pl.cfg.coord_secret, sizeof mana_pl.cfg.coord_secret);
        mana_log_setup("mana", mana_pl.cfg.debug, mana_pl.cfg.timing, mana_pl.cfg.quiet);
        extern uint64_t mana_claimed_signals;
        if (mana_pl.cfg.ckpt_signal != old_sig && ((mana_claimed_signals >> (mana_pl.cfg.ckpt_signal - 1)) & 1)) {
            /* the program claimed that signal before the checkpoint (the runtime moved away from it) */
            mana_dbg("checkpoint signal %d stays the program's; keeping %d", mana_pl.cfg.ckpt_signal, old_sig);
            mana_pl.cfg.ckpt_signal = old_sig;
        }
        if (mana_pl.cfg.ckpt_signal != old_sig) {
            /* mana_restart --ckpt-signal chose another signal: move our handler there (raw, so the
             * program-facing sigaction guard does not stop us). */
            struct { uint64_t handler, flags, restorer, mask; } ks;
            if (mana_sys4(SYS_rt_sigaction, old_sig, 0, (long)&ks, 8) == 0 &&
                mana_sys4(SYS_rt_sigaction, mana_pl.cfg.ckpt_signal, (long)&ks, 0, 8) == 0) {
                ks.handler = 0;       /* SIG_DFL on the old one */
                mana_sys4(SYS_rt_sigaction, old_sig, (long)&ks, 0, 8);
                mana_dbg("checkpoint signal is now %d (was %d)", mana_pl.cfg.ckpt_signal, old_sig);
            } else {
                mana_warn("cannot use checkpoint signal %d; keeping %d", mana_pl.cfg.ckpt_signal, old_sig);
                mana_pl.cfg.ckpt_signal = old_sig;
            }
        }
    }
    last_generation = g;
    mana_pl.ckpt_tid = mana_gettid();
    ckpt_tid_word = mana_pl.ckpt_tid;
    mana_mutex_restarted();
    mana_timers_restarted();
    /* Descriptors the plugin owned were not saved: make them again. */
    trigger_fd = trigger_fd_own = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (coord) { mana_coord_discard(coord); coord = NULL; }
    mana_dbg("restarted from generation %u", g);
    restart_hold();
    int64_t t0 = mana_now_ns();
    if (!mana_pl.cfg.no_coord) {
        if (coord_connect(1, g) == 0) {
            char err[512];
            int rc = barrier(g, MANA_PHASE_RESTARTED, err, sizeof err);
            if (rc == MANA_COORD_OK && mpi && mpi->restart(g, err, sizeof err) != 0) {
                mana_err("cannot restart: %s", err);
                _exit(1);
            }
            if (rc == MANA_COORD_OK) rc = barrier(g, MANA_PHASE_REFILLED, err, sizeof err);
            if (rc == MANA_COORD_OK) rc = barrier(g, MANA_PHASE_RESUMED, err, sizeof err);
            if (rc != MANA_COORD_OK) coord_lost(rc, err);
        } else {
            mana_warn("restarted without a coordinator: no checkpoints until one of the same status file takes "
                      "the rank back (retrying)");
            reconnect_schedule();
        }
    }
    if (mpi && (mana_pl.cfg.no_coord || !coord)) {
        char err[512];
        if (mpi->restart(g, err, sizeof err) != 0) { mana_err("cannot restart: %s", err); _exit(1); }
    }
    restart_done();              /* a program that had made no MPI call yet may make its first now */
    if (lh) {
        mana_timing("restart: reconnect to the coordinator", mana_now_ns() - t0);
        mana_timing("restart: total (lower half start to checkpoint thread back)", mana_now_ns() - lh->start_ns);
    }
}

/* ---- the checkpoint thread ---- */

static void *ckpt_thread(void *arg)
{
    (void)arg;
    mana_pl.ckpt_tid = mana_gettid();
    ckpt_tid_word = mana_pl.ckpt_tid;
    int64_t next_interval = 0;
    for (;;) {
        struct pollfd pfd[2];
        int np = 0;
        if (trigger_fd >= 0) { pfd[np].fd = trigger_fd; pfd[np].events = POLLIN; np++; }
        /* Other threads free `coord` under the lock (the exit handler, exec): read it under the lock
         * too (a read outside it once caught the exit handler between its free and its NULL: a crash
         * at exit, about 1 run in 300). */
        int cidx = -1;
        pthread_mutex_lock(&coord_lock);
        if (coord) { cidx = np; pfd[np].fd = mana_coord_fd(coord); pfd[np].events = POLLIN; np++; }
        pthread_mutex_unlock(&coord_lock);
        int timeout = -1;
        /* Without a coordinator (MANA_NO_COORD), MANA_CKPT_INTERVAL is kept locally. */
        if (!coord && mana_pl.cfg.no_coord && mana_pl.cfg.ckpt_interval) {
            int64_t now = mana_now_ns();
            if (!next_interval) next_interval = now + (int64_t)mana_pl.cfg.ckpt_interval * 1000000000LL;
            timeout = next_interval > now ? (int)((next_interval - now) / 1000000) + 1 : 0;
        }
        if (!coord && reconnect_at_ns) {
            int64_t now = mana_now_ns();
            if (now >= reconnect_at_ns) {
                pthread_mutex_lock(&coord_lock);
                if (!coord && reconnect_at_ns) reconnect_try();
                pthread_mutex_unlock(&coord_lock);
                continue;
            }
            timeout = (int)((reconnect_at_ns - now) / 1000000) + 1;
        }
        int r = poll(pfd, (nfds_t)np, timeout);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0 && reconnect_at_ns) continue;
        if (r == 0 && timeout >= 0) {
            next_interval = 0;
            pthread_mutex_lock(&coord_lock);
            do_checkpoint(last_generation + 1, 0, NULL);
            pthread_mutex_unlock(&coord_lock);
            continue;
        }
        if (trigger_fd >= 0 && np > 0 && (pfd[0].revents & POLLIN)) {
            uint64_t v;
            if (read(trigger_fd, &v, 8) == 8) {
                pthread_mutex_lock(&coord_lock);
                if (!coord) do_checkpoint(last_generation + 1, 0, NULL);
                else mana_warn("debug trigger ignored: use mana_status --checkpoint with a coordinator");
                pthread_mutex_unlock(&coord_lock);
            }
        }
        if (cidx >= 0 && coord && (pfd[cidx].revents & (POLLIN | POLLHUP | POLLERR))) {
            pthread_mutex_lock(&coord_lock);
            for (;;) {
                if (!coord) break;
                struct mana_coord_event ev;
                char err[512];
                int rc = mana_coord_wait_event(coord, 0, &ev, err, sizeof err);
                if (rc == MANA_COORD_TIMEOUT) break;
                if (rc != MANA_COORD_OK) { coord_lost(rc, err); break; }
                if (ev.type == MANA_COORD_EV_CKPT_REQUEST) {
                    do_checkpoint(ev.generation, ev.flags, ev.text);
                } else if (ev.type == MANA_COORD_EV_KILL) {
                    mana_dbg("KILL from the coordinator");
                    _exit(0);
                } else if (ev.type == MANA_COORD_EV_CKPT_ABORT) {
                    mana_dbg("CKPT_ABORT %u outside a checkpoint (ignored)", ev.generation);
                }
            }
            pthread_mutex_unlock(&coord_lock);
        }
    }
    return NULL;
}

/* ---- start-up ---- */

/* The tid field of glibc's struct pthread (tid_offset.c says why it is found this way). */
static void find_tid_offset(void)
{
    if (mana_tid_offset_from_kernel(&mana_pl.tid_offset) == 0 || mana_tid_offset_by_probe(&mana_pl.tid_offset) == 0)
        return;
    mana_warn("cannot find the tid field in glibc's thread descriptor; restart will not fix cached tids");
}

/* A forked child is not checkpointed (it has no checkpoint thread): it must not talk on the
 * parent's coordinator connection, nor say BYE for it at exit. */
static void atfork_child(void)
{
    coord = NULL;
    active = 0;
}

static void at_exit_bye(void)
{
    if (!active) return;
    exiting = 1;                           /* no reconnect from here on */
    if (pthread_mutex_trylock(&coord_lock) != 0) return;
    if (coord) {
        mana_coord_t *c = coord;
        coord = NULL;
        mana_coord_bye(c, MANA_COORD_BYE_EXIT, 0, NULL, 0);
        mana_coord_close(c);
    }
    pthread_mutex_unlock(&coord_lock);
}

/* The last exit handler of the upper half (registered before ld.so's own destructor handler, so it
 * runs after every other handler and every upper destructor): leave the coordinator, then, in an MPI
 * rank, finish the exit in the lower half, so the lower libc runs the lower half's handlers and
 * destructors (the MPI library's, its dependencies', the lower half's own) as a native program's exit
 * would.  The upper stdio is flushed first (its own clean-up would have come after this handler). */
static void at_exit_final(int status, void *arg)
{
    (void)arg;
    at_exit_bye();
    struct lh_info *lh = mana_lh_info;
    if (!mana_plugin_active() || !lh || !lh->mpi.lower_exit) return;
    const char *off = mana_env_get("MANA_NO_LOWER_EXIT");
    if (off && *off && strcmp(off, "0") != 0) return;
    fflush(NULL);
    /* Take the lower half for good: no other thread enters it again (the checkpoint thread cannot
     * start a checkpoint either: it would need the coordinator, told BYE above, or the lower half).
     * Another program thread may hold it for good (blocked in a collective whose partners are gone):
     * after 1 s the exit goes on without the lower handlers, as a native exit would not wait for it. */
    int tid = mana_gettid(), zero;
    int64_t give_up = mana_now_ns() + 1000000000LL;
    for (;;) {
        zero = 0;
        if (__atomic_compare_exchange_n(&lower_owner, &zero, tid, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) break;
        if (mana_now_ns() > give_up) {
            mana_dbg("exit: another thread holds the lower half; its exit handlers are left out");
            return;
        }
        mana_sys0(SYS_sched_yield);
    }
    if (mana_sys2(SYS_arch_prctl, ARCH_SET_FS, (long)lh->mpi.lh_fs_base) != 0) {
        __atomic_store_n(&lower_owner, 0, __ATOMIC_RELEASE);
        return;                            /* the upper exit goes on without the lower handlers */
    }
    ((void (*)(int))(uintptr_t)lh->mpi.lower_exit)(status);
}

__attribute__((constructor)) static void mana_plugin_init(void)
{
    /* Only the launched program itself gets the runtime; the environment is put back for its
     * children either way (env.c). */
    struct lh_info *lh = mana_env_claim_lh_info();
    if (!lh) return;
    mana_lh_info = lh;
    mana_fault_publish(lh);
    mana_pl.cfg = lh->settings;
    mana_coord_wipe(mana_pl.cfg.coord_secret, sizeof mana_pl.cfg.coord_secret);
    mana_log_setup("mana", mana_pl.cfg.debug, mana_pl.cfg.timing, mana_pl.cfg.quiet);
    mana_altstack_adopt(lh);
    snprintf(mana_pl.app_path, sizeof mana_pl.app_path, "%s", lh->app_path);
    mana_pl.argc = lh->uh_argc;
    mana_pl.argv = (char **)lh->uh_argv;
    mana_pl.uh_stack = lh->uh_stack;
    mana_pl.uh_entry = lh->uh_entry;
    note_inherited(lh);
    note_lower_tids(lh);

    extern int mana_direct_io;
    const char *dio = mana_env_get("MANA_DIRECT_IO");
    mana_direct_io = dio && *dio && strcmp(dio, "0") != 0;
    /* How much of the files written in place an image may carry (writer.c); K, M, G suffixes. */
    extern uint64_t mana_save_files_max;
    const char *sfm = mana_env_get("MANA_SAVE_FILES_MAX");
    if (sfm && *sfm) {
        char *end;
        unsigned long long v = strtoull(sfm, &end, 10);
        if (*end == 'K' || *end == 'k') { v <<= 10; end++; }
        else if (*end == 'M' || *end == 'm') { v <<= 20; end++; }
        else if (*end == 'G' || *end == 'g') { v <<= 30; end++; }
        if (*end) mana_warn("bad MANA_SAVE_FILES_MAX '%s' (bytes, or with K, M, G); keeping %llu", sfm,
                            (unsigned long long)mana_save_files_max);
        else mana_save_files_max = v;
    }
    /* MANA_COMPRESS: zstd level of the image payloads (writer.c): fast 3, strong 9, or 1..19; 0 or off */
    const char *cz = mana_env_get("MANA_COMPRESS");
    if (cz && *cz) {
        char *end;
        long v = strtol(cz, &end, 10);
        if (strcmp(cz, "fast") == 0) mana_compress_level = MANA_ZSTD_FAST;
        else if (strcmp(cz, "strong") == 0) mana_compress_level = 9;
        else if (strcmp(cz, "off") == 0) mana_compress_level = 0;
        else if (!*end && v >= 0 && v <= 19) mana_compress_level = (int)v;
        else mana_warn("bad MANA_COMPRESS '%s' (fast, strong, a zstd level 1..19, or off); images are not compressed", cz);
    }
    compress_launched = mana_compress_level;
    /* MANA_COMPRESS_THREADS: threads that compress an image (zpool.c); unset: one per CPU, at most 8 */
    const char *ct = mana_env_get("MANA_COMPRESS_THREADS");
    if (ct && *ct) {
        char *end;
        long v = strtol(ct, &end, 10);
        if (!*end && v >= 0 && v <= 64) mana_compress_threads = (int)v;
        else mana_warn("bad MANA_COMPRESS_THREADS '%s' (a number of threads; 0 or 1: the checkpoint thread alone)", ct);
    }
    const char *inc = mana_env_get("MANA_INCREMENTAL");
    incr_on = inc && *inc && strcmp(inc, "0") != 0;
    const char *fk = mana_env_get("MANA_FORKED");
    forked_on = fk && *fk && strcmp(fk, "0") != 0;
    if (forked_on && incr_on) {
        mana_warn("MANA_FORKED is not combined with MANA_INCREMENTAL yet: incremental images are written "
                  "with the program stopped");
        forked_on = 0;
    }
    const char *fe = mana_env_get("MANA_INCREMENTAL_FULL_EVERY");
    if (fe && *fe) {
        char *end;
        long v = strtol(fe, &end, 10);
        if (*end || v < 1 || v > (long)MANA_IMG_MAX_CHAIN)
            mana_warn("bad MANA_INCREMENTAL_FULL_EVERY '%s' (1..%u); keeping %u", fe, MANA_IMG_MAX_CHAIN, incr_full_every);
        else incr_full_every = (uint32_t)v;
    }
    const char *rmax = mana_env_get("MANA_COORD_RETRY_MAX");
    if (rmax && *rmax) {
        char *end;
        long v = strtol(rmax, &end, 10);
        if (*end || v < 1 || v > 86400) mana_warn("bad MANA_COORD_RETRY_MAX '%s' (seconds, 1..86400); keeping 30", rmax);
        else reconnect_max_ms = v * 1000;
    }
    find_tid_offset();
    (void)mana_crc32c_update(0, "", 0);     /* initialise its tables now, not while writing */
    mana_pl.scratch = mmap(NULL, SCRATCH_SIZE, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mana_pl.scratch == MAP_FAILED) {
        mana_err("cannot map the checkpoint work area; checkpointing disabled");
        return;
    }
    mana_pl.scratch_size = SCRATCH_SIZE;
    mana_pl.thr = thr_slots;
    mana_pl.ckpt_ctx = &ckpt_ctx;
    trigger_fd = trigger_fd_own = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = ckpt_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    if (sigaction(mana_pl.cfg.ckpt_signal, &sa, NULL) != 0) {
        mana_err("cannot install the checkpoint signal handler: %s", strerror(errno));
        return;
    }
    /* Connect before the program runs, so a launch without a reachable coordinator says so at once. */
    if (!mana_pl.cfg.no_coord && coord_connect(0, 0) != 0)
        mana_err("checkpointing disabled for this run");
    on_exit(at_exit_final, NULL);
    pthread_atfork(NULL, NULL, atfork_child);

    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&th, &attr, ckpt_thread, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        mana_err("cannot start the checkpoint thread: %s", strerror(rc));
        return;
    }
    active = 1;
    mana_dbg("plugin ready: rank %d, ckpt dir %s, signal %d, tid offset %u", mana_pl.cfg.rank,
             mana_pl.cfg.ckpt_dir, mana_pl.cfg.ckpt_signal, mana_pl.tid_offset);
}

/* Active, and this is the launched process itself: not a vfork child sharing its memory (atfork
 * handlers do not run there, so `active` alone cannot tell). */
int mana_plugin_active(void)
{
    struct lh_info *lh = mana_lh_info;     /* a restart puts the new block (new pid) here first */
    return active && lh && mana_getpid() == lh->owner_pid;
}

/* exec: the program is replaced (execwrap.c).  Leave the coordinator cleanly, so that the program
 * that follows registers as this rank; the checkpoint thread cannot start a checkpoint meanwhile
 * (the lock stays held: on success exec ends every thread).  Returns the last committed generation. */
uint32_t mana_plugin_exec_begin(void)
{
    pthread_mutex_lock(&coord_lock);
    if (coord) {
        mana_coord_bye(coord, MANA_COORD_BYE_EXIT, 0, NULL, 0);
        mana_coord_close(coord);
        coord = NULL;
    }
    return last_generation;
}

/* The exec failed: register again and go on. */
void mana_plugin_exec_failed(void)
{
    if (!mana_pl.cfg.no_coord && coord_connect(0, 0) != 0) mana_err("checkpointing disabled for this run");
    pthread_mutex_unlock(&coord_lock);
}

/* Internal descriptors the writer must not save. */
int mana_plugin_is_internal_fd(int fd)
{
    if (fd == trigger_fd || fd == trigger_fd_own || (fd >= 0 && fd == mana_dirty_fd())) return 1;
    if (coord && fd == mana_coord_fd(coord)) return 1;
    const struct lh_info *lh = mana_lh_info;
    if (!lh || fd < 0 || fd >= MANA_LOWER_FDS ||
        !(__atomic_load_n(&lh->mpi.lower_fds[fd / 64], __ATOMIC_SEQ_CST) & (1ULL << (fd % 64))))
        return 0;
    /* Marked by the lower half: still the file it marked?  (A descriptor it closed where the hooks do
     * not see, then reused by the program, is the program's: lh_track.c.) */
    const struct mana_fd_id *ids = (const struct mana_fd_id *)(uintptr_t)lh->lower_fd_ids;
    struct stat st;
    if (!ids || mana_sys2(SYS_fstat, fd, (long)&st) != 0) return 1;
    return st.st_dev == ids[fd].dev && st.st_ino == ids[fd].ino;
}
