/*
 * restore_zstd.c - parallel decompression of a region's zstd frames at restart (restore_zstd.h).
 *
 * The threads are raw (mana_thread.h) on stacks mapped here and unmapped after, so nothing of them
 * outlives the restore (a libc thread would leave its cached stack behind, memory the lower half's
 * list does not hold).  The calling thread takes frames too; it decompresses the first one alone,
 * which binds every function the threads call before they start.  Frames are taken in order from a
 * shared counter; each frame's CRC is combined with the others' in order at the end.
 */
#define _GNU_SOURCE
#include "restore_zstd.h"
#include "mana_sys.h"
#include "mana_thread.h"
#include "mana_util.h"

#include <zstd.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define STACK_BYTES (256UL << 10)

struct frame {
    const char *src;
    size_t csize;
    uint64_t off, len;                  /* in the region's stored bytes */
    uint32_t crc;
    int failed;                         /* 1 zstd (err), 2 short output, 3 scatter */
    const char *err;
};

struct par {
    struct frame *f;
    uint32_t n;
    volatile uint32_t next;             /* the next frame to take */
    volatile int stop;                  /* a frame failed: take no more */
    const struct zpar_ops *ops;
};

struct worker {
    struct par *par;
    ZSTD_DCtx *dctx;
    char *tmp;                          /* a frame that does not land in one piece is decompressed here */
    size_t tmp_cap;
    char *stack;
    volatile int tid;
};

void mana_prefault_write(void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr & ~(uintptr_t)4095, end = (uintptr_t)addr + len;
    if (len) (void)mana_sys3(SYS_madvise, (long)a, (long)(end - a), MADV_POPULATE_WRITE);
}

static void one_frame(struct worker *w, struct frame *f)
{
    const struct zpar_ops *ops = w->par->ops;
    char *dst = ops->direct(ops->ctx, f->off, f->len);
    char *out = dst ? dst : w->tmp;
    mana_prefault_write(out, (size_t)f->len);
    size_t r = ZSTD_decompressDCtx(w->dctx, out, (size_t)f->len, f->src, f->csize);
    if (ZSTD_isError(r)) {
        f->failed = 1;
        f->err = ZSTD_getErrorName(r);
        return;
    }
    if (r != f->len) {
        f->failed = 2;
        return;
    }
    f->crc = mana_crc32c_update(0, out, (size_t)f->len);
    if (!dst && ops->scatter(ops->ctx, f->off, out, f->len) != 0) f->failed = 3;
}

static int worker_loop(void *arg)
{
    struct worker *w = arg;
    struct par *p = w->par;
    for (;;) {
        if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) return 0;
        uint32_t i = __atomic_fetch_add(&p->next, 1, __ATOMIC_ACQ_REL);
        if (i >= p->n) return 0;
        one_frame(w, &p->f[i]);
        if (p->f[i].failed) __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    }
}

int mana_zstd_par_threads(void)
{
    const char *s = getenv("MANA_COMPRESS_THREADS");
    if (s && *s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (!*end && v >= 0) return v < 1 ? 1 : v > ZPAR_MAX_THREADS ? ZPAR_MAX_THREADS : (int)v;
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    int n = CPU_COUNT(&set);
    return n < 1 ? 1 : n > ZPAR_MAX_THREADS ? ZPAR_MAX_THREADS : n;
}

/* The payload's frames, each with its size; 1 when one does not state it (or is too large). */
static int split(const char *p, size_t len, uint64_t total, struct frame **out, uint32_t *nout, size_t *max_len,
                 char *err, size_t errlen)
{
    struct frame *f = NULL;
    uint32_t n = 0, cap = 0;
    uint64_t off = 0;
    *max_len = 0;
    for (size_t at = 0; at < len;) {
        size_t cs = ZSTD_findFrameCompressedSize(p + at, len - at);
        if (ZSTD_isError(cs)) {
            free(f);
            snprintf(err, errlen, "compressed payload, frame at byte %zu: %s", at, ZSTD_getErrorName(cs));
            return -1;
        }
        unsigned long long ds = ZSTD_getFrameContentSize(p + at, cs);
        if (ds == ZSTD_CONTENTSIZE_UNKNOWN || ds == ZSTD_CONTENTSIZE_ERROR || ds > ZPAR_MAX_FRAME) {
            free(f);
            return 1;
        }
        if (n == cap) {
            uint32_t nc = cap ? 2 * cap : 64;
            struct frame *g = realloc(f, nc * sizeof *f);
            if (!g) {
                free(f);
                return 1;
            }
            f = g;
            cap = nc;
        }
        f[n++] = (struct frame){ p + at, cs, off, ds, 0, 0, NULL };
        if (ds > *max_len) *max_len = ds;
        off += ds;
        at += cs;
    }
    if (off != total) {
        free(f);
        snprintf(err, errlen, "the compressed payload holds %llu bytes, stored_bytes is %llu", (unsigned long long)off,
                 (unsigned long long)total);
        return -1;
    }
    *out = f;
    *nout = n;
    return 0;
}

int mana_zstd_par(const char *p, size_t len, uint64_t total, int threads, struct zpar_ops *ops, uint32_t *crc,
                  char *err, size_t errlen)
{
    struct frame *f;
    uint32_t n;
    size_t max_len;
    int rc = split(p, len, total, &f, &n, &max_len, err, errlen);
    if (rc) return rc;
    if (threads > ZPAR_MAX_THREADS) threads = ZPAR_MAX_THREADS;
    if ((uint32_t)threads > n) threads = (int)n;
    if (threads < 1) threads = 1;
    struct par par = { f, n, 0, 0, ops };
    struct worker w[ZPAR_MAX_THREADS];
    memset(w, 0, sizeof w);
    int ready = 0;
    for (; ready < threads; ready++) {
        w[ready].par = &par;
        w[ready].dctx = ZSTD_createDCtx();
        w[ready].tmp_cap = max_len;
        w[ready].tmp = max_len ? malloc(max_len) : NULL;
        if (!w[ready].dctx || (max_len && !w[ready].tmp)) break;
    }
    if (ready == 0) {
        rc = 1;                         /* no memory even for one: the streaming decoder needs less */
        goto out;
    }
    threads = ready;
    /* the first frame here, alone: binds what the threads call (and a payload of one frame is done) */
    if (n) {
        par.next = 1;
        one_frame(&w[0], &f[0]);
        (void)ZSTD_getErrorName(0);
        if (f[0].failed) par.stop = 1;
    }
    int started = 1;
    if (threads > 1 && !par.stop && par.next < n) {
        sigset_t all, old;
        sigfillset(&all);
        if (mana_sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8) == 0) {
            for (; started < threads; started++) {
                long s = mana_sys6(SYS_mmap, 0, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (s < 0 && s > -4096) break;
                w[started].stack = (char *)s;
                w[started].tid = 1;
                if (mana_raw_thread(w[started].stack + STACK_BYTES, &w[started].tid, worker_loop, &w[started]) < 0) {
                    w[started].tid = 0;
                    mana_sys2(SYS_munmap, s, STACK_BYTES);
                    w[started].stack = NULL;
                    break;                   /* fewer threads: the frames still all get done */
                }
            }
            mana_sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8);
        }
    }
    ops->frames = n;
    ops->threads = started;
    worker_loop(&w[0]);
    for (int i = 1; i < started; i++) {
        mana_raw_join(&w[i].tid);
        mana_sys2(SYS_munmap, (long)w[i].stack, STACK_BYTES);
    }
    rc = 0;
    uint32_t c = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (f[i].failed == 1) {
            snprintf(err, errlen, "compressed payload, frame %u of %u (at byte %zu): %s", i + 1, n,
                     (size_t)(f[i].src - p), f[i].err);
            rc = -1;
        } else if (f[i].failed == 2) {
            snprintf(err, errlen, "compressed payload, frame %u of %u (at byte %zu): fewer bytes than its header says",
                     i + 1, n, (size_t)(f[i].src - p));
            rc = -1;
        } else if (f[i].failed == 3) {
            snprintf(err, errlen, "compressed payload, frame %u of %u: its bytes do not fit the region's runs", i + 1, n);
            rc = -1;
        } else {
            c = i ? mana_crc32c_combine(c, f[i].crc, f[i].len) : f[i].crc;
        }
    }
    *crc = c;
out:
    for (int i = 0; i < ZPAR_MAX_THREADS; i++) {
        if (w[i].dctx) ZSTD_freeDCtx(w[i].dctx);
        free(w[i].tmp);
    }
    free(f);
    return rc;
}
