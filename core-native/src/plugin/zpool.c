/*
 * zpool.c - parallel zstd compression for the checkpoint writer (zpool.h).
 *
 * The writer runs while the program's threads are parked in a signal handler, any of them possibly
 * inside malloc or holding a libc lock, so the workers are not pthreads: they are raw CLONE_THREAD
 * clones on stacks in the work area, with every signal blocked, that only run zstd (which, with a
 * static context, neither allocates nor touches errno or TLS) and futex system calls (mana_thread.h).
 *
 * Slots: 2 per worker; job number s goes to slot s % nslots, and worker s % nworkers does it, so each
 * slot has one worker and one writer.  A slot goes FREE -> READY (the writer filled it) -> DONE (the
 * worker compressed it) -> FREE (the writer gave the frame to the sink, in job order).
 */
#define _GNU_SOURCE
#include "zpool.h"
#include "mana_sys.h"
#include "mana_thread.h"

#define ZSTD_STATIC_LINKING_ONLY      /* ZSTD_initStaticCCtx */
#include <zstd.h>

#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

enum { ZJ_FREE, ZJ_READY, ZJ_DONE, ZJ_STOP };

#define PAGE         4096UL
#define STACK_BYTES  (256UL << 10)
#define ROUND(x)     (((x) + PAGE - 1) & ~(PAGE - 1))

static size_t out_cap(void) { return ROUND(ZSTD_compressBound(ZPOOL_CHUNK)); }

size_t zpool_area_size(int level, int nworkers)
{
    return (size_t)nworkers * (2 * out_cap() + ROUND(ZSTD_estimateCStreamSize(level)) + STACK_BYTES);
}

int zpool_workers_for(int setting)
{
    if (setting >= 0) return setting > ZPOOL_MAX ? ZPOOL_MAX : setting;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    int n = CPU_COUNT(&set);
    return n > ZPOOL_MAX ? ZPOOL_MAX : n;
}

/* One frame from the job's pieces of memory. */
static void compress_job(ZSTD_CCtx *cc, struct zjob *j)
{
    j->err = NULL;
    size_t r = ZSTD_CCtx_reset(cc, ZSTD_reset_session_only);
    if (!ZSTD_isError(r)) r = ZSTD_CCtx_setPledgedSrcSize(cc, j->in_len);   /* the size goes in the frame header */
    if (ZSTD_isError(r)) {
        j->err = ZSTD_getErrorName(r);
        return;
    }
    ZSTD_outBuffer out = { j->out, j->out_cap, 0 };
    for (int i = 0; i < j->nseg; i++) {
        ZSTD_inBuffer in = { j->seg[i], j->seg_len[i], 0 };
        ZSTD_EndDirective e = i == j->nseg - 1 ? ZSTD_e_end : ZSTD_e_continue;
        for (;;) {
            r = ZSTD_compressStream2(cc, &out, &in, e);
            if (ZSTD_isError(r)) {
                j->err = ZSTD_getErrorName(r);
                return;
            }
            if (e == ZSTD_e_end ? r == 0 : in.pos == in.size) break;
            if (out.pos == out.size) {          /* cannot happen: out_cap is the bound of a whole chunk */
                j->err = "a frame larger than its bound";
                return;
            }
        }
    }
    j->out_len = out.pos;
}

static int worker_main(void *arg)
{
    struct zworker *wk = arg;
    struct zpool *p = wk->pool;
    for (uint64_t seq = (uint64_t)wk->index;; seq += (uint64_t)p->nworkers) {
        struct zjob *j = &p->slots[seq % (uint64_t)p->nslots];
        for (;;) {
            int s = __atomic_load_n(&j->state, __ATOMIC_ACQUIRE);
            if (s == ZJ_READY) break;
            if (s == ZJ_STOP) return 0;
            mana_futex_wait(&j->state, s);
        }
        compress_job(wk->cctx, j);
        __atomic_store_n(&j->state, ZJ_DONE, __ATOMIC_RELEASE);
        mana_futex_wake(&j->state, 1);
    }
}

/* Wait until the workers started so far are gone (their tid words cleared by the kernel). */
static void join_workers(struct zpool *p, int n)
{
    for (int i = 0; i < p->nslots; i++) {
        __atomic_store_n(&p->slots[i].state, ZJ_STOP, __ATOMIC_RELEASE);
        mana_futex_wake(&p->slots[i].state, INT_MAX);
    }
    for (int i = 0; i < n; i++) {
        struct zworker *wk = &p->workers[i];
        mana_raw_join(&wk->tid);
        mana_sys3(SYS_mprotect, (long)wk->stack, PAGE, PROT_READ | PROT_WRITE);   /* the guard page back */
    }
}

int zpool_start(struct zpool *p, char *area, size_t area_len, int level, int nworkers, zpool_sink sink,
                void *sink_ctx, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (nworkers < 2 || nworkers > ZPOOL_MAX) {
        snprintf(err, errlen, "zpool: %d workers", nworkers);
        return -1;
    }
    if (area_len < zpool_area_size(level, nworkers)) {
        snprintf(err, errlen, "zpool: %zu bytes of work area, %zu needed", area_len, zpool_area_size(level, nworkers));
        return -1;
    }
    p->nworkers = nworkers;
    p->nslots = 2 * nworkers;
    p->sink = sink;
    p->sink_ctx = sink_ctx;
    p->area = area;
    p->area_len = zpool_area_size(level, nworkers);
    char *at = area;
    for (int i = 0; i < p->nslots; i++) {
        p->slots[i].out = at;
        p->slots[i].out_cap = out_cap();
        at += out_cap();
    }
    size_t ws = ROUND(ZSTD_estimateCStreamSize(level));
    for (int i = 0; i < nworkers; i++) {
        struct zworker *wk = &p->workers[i];
        wk->pool = p;
        wk->index = i;
        wk->cctx = ZSTD_initStaticCCtx(at, ws);
        at += ws;
        wk->stack = at;
        wk->stack_len = STACK_BYTES;
        at += STACK_BYTES;
        if (!wk->cctx) {
            snprintf(err, errlen, "zpool: cannot set up compressor %d in the work area", i);
            return -1;
        }
        size_t r = ZSTD_CCtx_setParameter(wk->cctx, ZSTD_c_compressionLevel, level);
        /* the frame header states the frame's size (a static context starts with the flag off): the
         * restart decompresses each frame straight into place beside the others (restore_zstd.c) */
        if (!ZSTD_isError(r)) r = ZSTD_CCtx_setParameter(wk->cctx, ZSTD_c_contentSizeFlag, 1);
        if (ZSTD_isError(r)) {
            snprintf(err, errlen, "compression level %d: %s", level, ZSTD_getErrorName(r));
            return -1;
        }
    }
    /* One frame here first: binds every zstd function the workers call (a lazy PLT binding inside a
     * worker would run the dynamic linker on the checkpoint thread's TLS), and proves a context. */
    {
        static const char probe[64];
        struct zjob *j = &p->slots[0];
        j->seg[0] = probe;
        j->seg_len[0] = sizeof probe;
        j->nseg = 1;
        j->in_len = sizeof probe;
        compress_job(p->workers[0].cctx, j);
        if (j->err) {
            snprintf(err, errlen, "zpool: cannot compress: %s", j->err);
            return -1;
        }
        memset(j, 0, offsetof(struct zjob, out));
        (void)ZSTD_getErrorName(0);         /* bound too: a worker names its error with it */
    }

    sigset_t all, old;
    sigfillset(&all);
    if (mana_sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8) != 0) {
        snprintf(err, errlen, "zpool: cannot block signals");
        return -1;
    }
    int started = 0;
    long rc = 0;
    const char *what = "clone";
    for (; started < nworkers; started++) {
        struct zworker *wk = &p->workers[started];
        if ((rc = mana_sys3(SYS_mprotect, (long)wk->stack, PAGE, PROT_NONE)) != 0) {
            what = "mprotect of its stack guard";
            break;
        }
        wk->tid = 1;
        rc = mana_raw_thread(wk->stack + wk->stack_len, &wk->tid, worker_main, wk);
        if (rc < 0) {
            wk->tid = 0;
            mana_sys3(SYS_mprotect, (long)wk->stack, PAGE, PROT_READ | PROT_WRITE);
            break;
        }
    }
    mana_sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8);
    if (started < nworkers) {
        join_workers(p, started);
        snprintf(err, errlen, "zpool: cannot start compression thread %d: %s: %s", started, what, strerror((int)-rc));
        return -1;
    }
    return 0;
}

/* The oldest job's frame to the sink, once its worker is done. */
static int write_oldest(struct zpool *p)
{
    struct zjob *j = &p->slots[p->written % (uint64_t)p->nslots];
    for (int s; (s = __atomic_load_n(&j->state, __ATOMIC_ACQUIRE)) != ZJ_DONE;)
        mana_futex_wait(&j->state, s);
    int rc;
    if (j->err) {
        p->failed = j->err;
        rc = -1;
    } else {
        rc = p->sink(p->sink_ctx, j->out, j->out_len);
    }
    memset(j, 0, offsetof(struct zjob, out));
    p->written++;
    return rc;
}

static void submit(struct zpool *p)
{
    struct zjob *j = &p->slots[p->submitted % (uint64_t)p->nslots];
    p->filling = 0;
    p->submitted++;
    __atomic_store_n(&j->state, ZJ_READY, __ATOMIC_RELEASE);
    mana_futex_wake(&j->state, 1);
}

int zpool_add(struct zpool *p, const void *src, size_t len)
{
    const char *s = src;
    while (len) {
        if (!p->filling) {
            /* a new job, on a slot whose frame may still be out: give that frame to the sink first */
            if (p->submitted - p->written == (uint64_t)p->nslots) {
                int rc = write_oldest(p);
                if (rc) return rc;
            }
            p->filling = 1;
        }
        struct zjob *j = &p->slots[p->submitted % (uint64_t)p->nslots];
        size_t k = ZPOOL_CHUNK - j->in_len;
        if (k > len) k = len;
        if (j->nseg && j->seg[j->nseg - 1] + j->seg_len[j->nseg - 1] == s) {
            j->seg_len[j->nseg - 1] += k;            /* adjacent: the same piece */
        } else {
            j->seg[j->nseg] = s;
            j->seg_len[j->nseg++] = k;
        }
        j->in_len += k;
        s += k;
        len -= k;
        if (j->in_len == ZPOOL_CHUNK || j->nseg == ZPOOL_SEGS) submit(p);
    }
    return 0;
}

int zpool_finish(struct zpool *p)
{
    /* only a job being filled: with every slot's job out, the slot after the last is the oldest's, and
     * handing that over again counted a job that was never to come (a region of whole chunks hung so) */
    if (p->filling) submit(p);
    while (p->written < p->submitted) {
        int rc = write_oldest(p);
        if (rc) return rc;
    }
    return 0;
}

void zpool_stop(struct zpool *p)
{
    if (!p->nworkers) return;
    /* frames still out are dropped: after a failure nobody wants them */
    join_workers(p, p->nworkers);
    mana_sys3(SYS_madvise, (long)p->area, (long)p->area_len, MADV_DONTNEED);   /* resident only while in use */
    p->nworkers = 0;
}
