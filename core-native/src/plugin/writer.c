/*
 * writer.c - writes a checkpoint image (docs/image-format.md) of the upper half.
 *
 * Runs in the checkpoint thread while every other thread is parked in the checkpoint-signal
 * handler.  It allocates nothing (a parked thread may hold a malloc or stdio lock): all work space is
 * the plugin's scratch mapping, which is itself listed in the image without payload.
 *
 * Memory: every mapping of /proc/self/maps; the lower half's (lh_info ranges, the brk guard) and
 * [vdso]/[vvar*] are listed without payload, [vsyscall] is left out.  Pages are stored in runs;
 * private anonymous pages that were never touched (pagemap: neither present nor swapped) and pages
 * that are all zero are not stored.  Shared file mappings are not stored (their data is the file).
 */
#define _GNU_SOURCE
#include "plugin.h"
#include "mana_sys.h"
#include "mana_util.h"
#include "mana/image_format.h"
#include "zpool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <asm/prctl.h>
#define ZSTD_STATIC_LINKING_ONLY      /* ZSTD_initStaticCCtx: a context in our work area, no malloc */
#include <zstd.h>

/* glibc's break as sbrk last saw it (exported by libc.so.6 since GLIBC_2.2.5). */
extern void *__curbrk;

int mana_plugin_is_internal_fd(int fd);

/* MANA_DIRECT_IO=1 (read at start-up): write payloads with O_DIRECT. */
int mana_direct_io;
/* MANA_COMPRESS (read at start-up): zstd level of the payloads, 0 = not compressed. */
int mana_compress_level;
/* MANA_COMPRESS_THREADS (read at start-up): compression threads, -1 = one per CPU (zpool.c). */
int mana_compress_threads = -1;

#define PAGE 4096UL
#define MAX_MAPS 65536
#define WRITEBACK_STEP (32UL << 20)
#define SHARED_COPY_MAX (1UL << 20)    /* shared file mappings up to this size carry a copy of their data */
#define DIRECT_CHUNK   (64UL << 20)

struct wctx {
    int      fd;
    int      dfd;            /* the same file opened O_DIRECT for payloads (-1: not available) */
    uint64_t off;            /* next payload offset */
    char    *sec;            /* section buffer */
    size_t   sec_len, sec_cap;
    uint64_t *pagemap;       /* buffer */
    size_t   pagemap_cap;    /* entries */
    int      pm_fd;
    uint64_t kicked;         /* payload bytes handed to writeback so far */
    char    *bounce;         /* copy buffer for memory that changes while we write it (our stack) */
    size_t   bounce_cap;
    const struct mana_incr *inc;   /* NULL: full image, no tracking */
    ZSTD_CCtx *zc;           /* compressing (MANA_COMPRESS): a static context in the work area; else NULL */
    struct zpool *zp;        /* compressing with threads: the pool (in the work area), once started */
    int zp_workers;          /* ... how many it will have (0: w->zc alone) */
    char *zp_area;
    size_t zp_area_len;
    char    *zout;           /* its output buffer */
    size_t   zout_cap;
    struct mana_img_zstd *ztab;    /* the ZSTD section's records */
    uint32_t nz, zcap;
    uint32_t cur_region;     /* index of the region being written */
    char    *fbuf;           /* forked: FILEDATA's bytes, read before the fork (NULL: streamed) */
    size_t   flen, fcap;
    char    *err;
    size_t   errlen;
};

static int w_fail(struct wctx *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int w_fail(struct wctx *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, w->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static void *sec_put(struct wctx *w, const void *data, size_t len)
{
    size_t padded = (len + 7) & ~7UL;
    if (w->sec_len + padded > w->sec_cap) return NULL;
    char *p = w->sec + w->sec_len;
    if (data) memcpy(p, data, len);
    else memset(p, 0, len);
    memset(p + len, 0, padded - len);
    w->sec_len += padded;
    return p;
}

/* sec_put for the MPI library's records (mana_mpi_iface.h: objects). */
static void *sec_put_any(void *w, const void *data, size_t len) { return sec_put(w, data, len); }

static int sec_str(struct wctx *w, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    char *p = sec_put(w, NULL, 4 + n);
    if (!p) return -1;
    memcpy(p, &n, 4);
    memcpy(p + 4, s, n);
    return 0;
}

static int pwrite_all(int fd, const void *buf, uint64_t len, uint64_t off)
{
    const char *p = buf;
    while (len) {
        size_t chunk = len > (1UL << 30) ? (1UL << 30) : len;
        ssize_t r = pwrite(fd, p, chunk, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        off += (uint64_t)r;
        len -= (uint64_t)r;
    }
    return 0;
}

static int page_is_zero(const void *page)
{
    const uint64_t *p = page;
    for (size_t i = 0; i < PAGE / 8; i += 8)
        if (p[i] | p[i + 1] | p[i + 2] | p[i + 3] | p[i + 4] | p[i + 5] | p[i + 6] | p[i + 7]) return 0;
    return 1;
}

static int is_deleted(const char *name)
{
    size_t n = strlen(name);
    return n > 10 && strcmp(name + n - 10, " (deleted)") == 0;
}

/* Compress `len` bytes into the image at w->off (advanced by what the compressor gives out); `end`:
 * finish the frame. */
static int z_feed(struct wctx *w, const void *src, size_t len, int end)
{
    ZSTD_inBuffer in = { src, len, 0 };
    for (;;) {
        ZSTD_outBuffer out = { w->zout, w->zout_cap, 0 };
        size_t r = ZSTD_compressStream2(w->zc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(r)) return w_fail(w, "cannot compress the image: %s", ZSTD_getErrorName(r));
        if (out.pos) {
            if (pwrite_all(w->fd, w->zout, out.pos, w->off) != 0)
                return w_fail(w, "cannot write the image: %s", strerror(errno));
            w->off += out.pos;
        }
        if (end ? r == 0 : in.pos == in.size) return 0;
    }
}

/* zpool's sink: a finished frame at w->off. */
static int zp_sink(void *ctx, const void *frame, size_t len)
{
    struct wctx *w = ctx;
    if (pwrite_all(w->fd, frame, len, w->off) != 0) return w_fail(w, "cannot write the image: %s", strerror(errno));
    w->off += len;
    return 0;
}

/* zpool_add/finish failed: the sink said why, or zstd did. */
static int zp_fail(struct wctx *w)
{
    if (w->zp->failed) return w_fail(w, "cannot compress the image: %s", w->zp->failed);
    return -1;
}

/* Write one run of stored pages [first, first+count) of m at w->off (compressed: into the frame); CRC
 * of the pages into *crc. */
static int store_run(struct wctx *w, const struct mana_map *m, uint64_t first, uint64_t count, int volatile_region,
                     uint32_t *crc)
{
    const char *src = (const char *)(m->start + first * PAGE);
    uint64_t left = count * PAGE, at = w->off;
    while (left) {
        /* The region holding this thread's stack changes while we write it: copy first, so
         * that the checksum and the bytes written agree. */
        uint64_t chunk = left < DIRECT_CHUNK ? left : DIRECT_CHUNK;
        const char *from = src;
        if (volatile_region) {
            chunk = left < w->bounce_cap ? left : w->bounce_cap;
            memcpy(w->bounce, src, chunk);
            from = w->bounce;
        }
        *crc = mana_crc32c_update(*crc, from, chunk);
        if (w->zp) {
            /* the workers read `from` later: the bounce buffer's frame must be out before its reuse */
            if (zpool_add(w->zp, from, chunk) != 0 || (volatile_region && zpool_finish(w->zp) != 0))
                return zp_fail(w);
            src += chunk;
            left -= chunk;
            continue;
        }
        if (w->zc) {
            if (z_feed(w, from, chunk, 0) != 0) return -1;
            src += chunk;
            left -= chunk;
            continue;
        }
        /* With MANA_DIRECT_IO, payloads (page-aligned in memory and in the file) are written
         * with O_DIRECT: no page-cache copy, no dirty-page throttling; buffered if refused. */
        int direct_ok = 0;
        if (w->dfd >= 0) {
            if (pwrite_all(w->dfd, from, chunk, at) == 0) direct_ok = 1;
            else if (errno == EINVAL) { close(w->dfd); w->dfd = -1; }
            else return w_fail(w, "cannot write the image: %s", strerror(errno));
        }
        if (!direct_ok && pwrite_all(w->fd, from, chunk, at) != 0)
            return w_fail(w, "cannot write the image: %s", strerror(errno));
        /* Start writeback early, so the disk works while we copy (the fsync at the end
         * then waits for less). */
        if (!direct_ok && at + chunk - w->kicked >= WRITEBACK_STEP) {
            sync_file_range(w->fd, (off_t)w->kicked, (off_t)(at + chunk - w->kicked), SYNC_FILE_RANGE_WRITE);
            w->kicked = at + chunk;
        }
        src += chunk;
        at += chunk;
        left -= chunk;
    }
    if (!w->zc) w->off += count * PAGE;
    return 0;
}

/*
 * Incremental, but most pages changed since the parent (more than half of the present pages of the
 * private regions lost their write protection): a full image is written instead, so that a restart
 * does not read the pages twice (once in the parent's chain, once here).  One pass over pagemap.
 */
static int mostly_changed(struct wctx *w, const struct mana_map *maps, int nm, const struct lh_info *lh)
{
    uint64_t present = 0, changed = 0;
    uint64_t scr_lo = (uint64_t)mana_pl.scratch, scr_hi = scr_lo + mana_pl.scratch_size;
    for (int i = 0; i < nm; i++) {
        const struct mana_map *m = &maps[i];
        if (m->shared || m->prot == 0 || strcmp(m->name, "[vdso]") == 0 || strncmp(m->name, "[vvar", 5) == 0 ||
            strcmp(m->name, "[vsyscall]") == 0 || (m->start < scr_hi && m->end > scr_lo))
            continue;
        if (lh && lh->lh_range_count && mana_range_overlaps(lh->lh_ranges, lh->lh_range_count, m->start, m->end)) continue;
        for (uint64_t a = m->start; a < m->end;) {
            uint64_t n = (m->end - a) / PAGE;
            if (n > w->pagemap_cap) n = w->pagemap_cap;
            ssize_t want = (ssize_t)(n * 8);
            if (pread(w->pm_fd, w->pagemap, (size_t)want, (off_t)(a / PAGE * 8)) != want) return 0;
            for (uint64_t k = 0; k < n; k++) {
                uint64_t e = w->pagemap[k];
                if (!(e & (3ULL << 62))) continue;
                present++;
                if (!(e & MANA_PM_UFFD_WP)) changed++;
            }
            a += n * PAGE;
        }
    }
    return present && changed * 2 > present;
}

/* What a page of an image is (see write_region). */
enum page_kind { PG_PARENT, PG_STORE, PG_ZERO, PG_END };

/*
 * Store the region's non-zero pages; append its record to the MEMORY section.
 *
 * Incremental (w->inc->incremental): a page still write-protected since the last checkpoint
 * (pagemap bit 57, dirty.c) is the parent's and is left out; so is a never-touched page of anonymous
 * memory that the last checkpoint protected (a marker).  Every other page is stored, or listed in a
 * zero run when it is zero now (a page the program gave back with MADV_DONTNEED reads as zero).  Not
 * tracked, so stored as in a full image with zero runs for the rest: shared regions (another process
 * may write them), the region holding this thread's stack, and pages of a file mapping that are not
 * in memory (a write-protect marker on a file page may hide MADV_DONTNEED, which brings the file's
 * contents back).  With w->inc->protect, a private region is registered and write-protected window
 * by window, after its pagemap entries are read and before its pages are, so that a write from now
 * on is seen by the next checkpoint.
 */
static int write_region(struct wctx *w, const struct mana_map *m, uint32_t flags, int payload,
                        uint64_t valid_bytes, int use_pagemap, struct mana_write_result *res)
{
    struct mana_img_region rec;
    memset(&rec, 0, sizeof rec);
    rec.start = m->start;
    rec.end = m->end;
    rec.prot = m->prot;
    rec.flags = flags;
    rec.file_offset = m->offset;
    rec.inode = m->inode;
    rec.dev_major = m->dev_major;
    rec.dev_minor = m->dev_minor;
    rec.name_len = (uint32_t)strlen(m->name);
    size_t rec_at = w->sec_len;
    if (!sec_put(w, &rec, sizeof rec) || !sec_put(w, m->name, rec.name_len))
        return w_fail(w, "checkpoint work area too small (regions)");
    /* mapped_bytes: the regions whose memory the image carries (docs/image-format.md) */
    if (!(flags & (MANA_REG_LOWER | MANA_REG_VDSO | MANA_REG_VVAR | MANA_REG_GUARD)) &&
        !((flags & MANA_REG_SHARED) && (flags & MANA_REG_FILE) && !payload))
        res->mapped_bytes += m->end - m->start;
    if (!payload) return 0;

    int reprotect = 0;
    if (!(m->prot & PROT_READ)) {
        if (mprotect((void *)m->start, m->end - m->start, (int)m->prot | PROT_READ) != 0)
            return w_fail(w, "cannot read region %#lx-%#lx: %s", (unsigned long)m->start,
                          (unsigned long)m->end, strerror(errno));
        reprotect = 1;
    }
    uint64_t npages = (m->end - m->start) / PAGE;
    uint64_t here = (uint64_t)__builtin_frame_address(0);
    int volatile_region = here >= m->start && here < m->end;
    int incr = w->inc && w->inc->incremental;
    int anon = use_pagemap;              /* truly anonymous: a page not in memory is zero */
    /* tracked: its pages' write-protect bits say what changed; protect: track it from now on */
    int trackable = !(flags & MANA_REG_SHARED) && !volatile_region;
    int protect = w->inc && w->inc->protect && trackable && w->pm_fd >= 0;
    int tracked = incr && trackable;
    if (protect && mana_dirty_register(m->start, m->end) != 0) protect = 0;   /* protected window by window below */
    int read_pm = (use_pagemap || tracked || protect) && w->pm_fd >= 0;
    uint64_t nvalid = (valid_bytes + PAGE - 1) / PAGE;
    if (nvalid > npages) nvalid = npages;
    uint64_t payload_at = w->off, stored = 0;
    uint32_t crc = 0, runs = 0, zruns = 0;
    if (w->zc) ZSTD_CCtx_reset(w->zc, ZSTD_reset_session_only);     /* a new frame for this region */
    size_t cap0 = w->sec_cap;            /* zero runs wait at the top of the work area, growing down */
    uint64_t pm_base = 0, pm_n = 0;      /* pagemap window */
    uint64_t cur_first = 0;
    enum page_kind cur = PG_PARENT;
    int fail = 0;
    for (uint64_t i = 0; i <= npages && !fail; i++) {
        enum page_kind k = PG_END;
        if (i < npages) {
            uint64_t e = 0;
            int have_e = 0;
            if (read_pm && i < nvalid) {
                if (i >= pm_base + pm_n) {
                    pm_base = i;
                    pm_n = npages - i < w->pagemap_cap ? npages - i : w->pagemap_cap;
                    ssize_t want = (ssize_t)(pm_n * 8);
                    ssize_t r = pread(w->pm_fd, w->pagemap, (size_t)want, (off_t)((m->start / PAGE + i) * 8));
                    if (r != want) {
                        read_pm = use_pagemap = tracked = 0;
                        pm_n = 0;
                        if (incr) { w_fail(w, "cannot read /proc/self/pagemap for incremental image"); fail = 1; break; }
                    }
                    /* from here on, writes to this window are the next checkpoint's */
                    if (protect && pm_n && mana_dirty_protect(m->start + pm_base * PAGE, m->start + (pm_base + pm_n) * PAGE) != 0)
                        protect = 0;
                }
                if (read_pm) { e = w->pagemap[i - pm_base]; have_e = 1; }
            }
            if (i >= nvalid) {
                k = PG_ZERO;                                  /* past the end of a shared file */
            } else if (tracked && have_e && (e & MANA_PM_UFFD_WP) && (anon || (e & (1ULL << 63)))) {
                k = PG_PARENT;
            } else if (use_pagemap && have_e && !(e & (3ULL << 62))) {
                k = PG_ZERO;                                  /* neither present nor swapped: zero */
            } else {
                k = page_is_zero((const char *)(m->start + i * PAGE)) ? PG_ZERO : PG_STORE;
            }
            if (!incr && k == PG_PARENT) k = PG_ZERO;
        }
        if (k == cur) continue;
        /* the run of kind `cur` ends at i */
        uint64_t count = i - cur_first;
        if (cur == PG_STORE) {
            if (store_run(w, m, cur_first, count, volatile_region, &crc) != 0) { fail = 1; break; }
            struct mana_img_run run = { cur_first, count };
            if (!sec_put(w, &run, sizeof run)) { w_fail(w, "checkpoint work area too small (runs)"); fail = 1; break; }
            stored += count * PAGE;
            runs++;
        } else if (cur == PG_ZERO && incr) {
            if (w->sec_cap < w->sec_len + sizeof(struct mana_img_run)) {
                w_fail(w, "checkpoint work area too small (zero runs)");
                fail = 1;
                break;
            }
            w->sec_cap -= sizeof(struct mana_img_run);
            struct mana_img_run run = { cur_first, count };
            memcpy(w->sec + w->sec_cap, &run, sizeof run);
            zruns++;
        } else if (cur == PG_PARENT) {
            res->inherited_bytes += count * PAGE;
        }
        cur = k;
        cur_first = i;
    }
    if (reprotect) mprotect((void *)m->start, m->end - m->start, (int)m->prot);
    /* the zero runs after the stored ones: they lie reversed at the top of the work area */
    if (!fail && zruns) {
        struct mana_img_run *top = (struct mana_img_run *)(w->sec + cap0) - zruns;
        for (uint32_t a = 0, b = zruns - 1; a < b; a++, b--) {
            struct mana_img_run t = top[a];
            top[a] = top[b];
            top[b] = t;
        }
        memmove(w->sec + w->sec_len, top, (size_t)zruns * sizeof *top);   /* sec_len <= its start */
        w->sec_len += (size_t)zruns * sizeof *top;
    }
    w->sec_cap = cap0;
    if (fail) return -1;
    if (w->zc && stored) {
        if (w->zp) {
            if (zpool_finish(w->zp) != 0) return zp_fail(w);
        } else if (z_feed(w, NULL, 0, 1) != 0) {
            return -1;
        }
        if (w->nz == w->zcap) return w_fail(w, "checkpoint work area too small (compressed regions)");
        struct mana_img_zstd z = { w->cur_region, (uint32_t)mana_compress_level, w->off - payload_at };
        w->ztab[w->nz++] = z;
        w->off = (w->off + PAGE - 1) & ~(PAGE - 1);         /* the next payload starts on a page */
        ((struct mana_img_region *)(w->sec + rec_at))->flags |= MANA_REG_ZSTD;
    } else if (w->zc) {
        w->off = payload_at;                                 /* nothing stored: no frame */
    }
    struct mana_img_region *r = (struct mana_img_region *)(w->sec + rec_at);
    r->payload_offset = stored ? payload_at : 0;
    r->stored_bytes = stored;
    r->run_count = runs;
    r->zero_run_count = zruns;
    r->payload_crc = stored ? crc : 0;
    res->stored_bytes += stored;
    return 0;
}

static void put_le_section(struct mana_img_section *t, uint32_t type, uint64_t off, uint64_t len,
                           uint32_t crc, uint32_t count)
{
    memset(t, 0, sizeof *t);
    t->type = type;
    t->version = 1;
    t->offset = off;
    t->length = len;
    t->crc = crc;
    t->count = count;
}

struct kernel_sigaction_raw {
    uint64_t handler, flags, restorer, mask;
};

/* MANA_SAVE_FILES_MAX (bytes, read at start-up): how much file contents one image may carry. */
uint64_t mana_save_files_max = 64ULL << 20;

/* Which FILES records get their contents saved: regular files open for writing without O_APPEND
 * (appending files are only truncated back at restart), not the launcher's, not unlinked. */
static int wants_contents(const struct mana_img_file *f, const char *path)
{
    int acc = f->open_flags & O_ACCMODE;
    size_t pl = f->path_len;
    return f->kind == MANA_FILE_REGULAR && f->fd > 2 && (acc == O_WRONLY || acc == O_RDWR) &&
           !(f->open_flags & O_APPEND) && !(f->fd_flags & MANA_FD_INHERITED) && path[0] == '/' &&
           !(pl > 10 && memcmp(path + pl - 10, " (deleted)", 10) == 0);
}

/* FILEDATA's bytes: to the image at *at, or (forked) to the buffer the writer process stores later. */
static int fdata_put(struct wctx *w, const void *p, size_t n, uint64_t *at)
{
    if (w->fbuf) {
        if (n > w->fcap - w->flen) return -1;
        memcpy(w->fbuf + w->flen, p, n);
        w->flen += n;
    } else if (pwrite_all(w->fd, p, n, *at) != 0) {
        return -1;
    }
    *at += n;
    return 0;
}

/* Stream the contents of the files written in place into the image at w->off (FILEDATA section,
 * docs/image-format.md), up to mana_save_files_max bytes in all.  The other threads are stopped, so
 * the contents are those the program sees.  A forked checkpoint reads them now into w->fbuf (the
 * program writes its files again while the writer process runs) and stores that buffer later. */
static int save_file_contents(struct wctx *w, size_t files_at, size_t files_len, uint64_t *len_out,
                              uint32_t *count_out, uint32_t *crc_out)
{
    uint64_t at = w->off, budget = mana_save_files_max, done_dev[64], done_ino[64];
    uint32_t crc = 0, count = 0, ndone = 0;
    for (size_t off = files_at; off < files_at + files_len;) {
        struct mana_img_file f;
        memcpy(&f, w->sec + off, sizeof f);
        const char *path = w->sec + off + sizeof f;
        off += sizeof f + ((f.path_len + 7) & ~7UL);
        if (!wants_contents(&f, path) || f.size < 0 || (uint64_t)f.size > budget) continue;
        int dup = 0;
        for (uint32_t k = 0; k < ndone; k++) if (done_dev[k] == f.dev && done_ino[k] == f.inode) dup = 1;
        if (dup || ndone == 64) continue;
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", f.fd);
        int in = open(link, O_RDONLY | O_CLOEXEC);
        if (in < 0) continue;
        struct stat st;
        if (fstat(in, &st) != 0 || st.st_ino != f.inode || st.st_size != f.size) { close(in); continue; }
        struct mana_img_filedata d = { f.fd, 0, f.size, f.inode, f.dev };
        if (fdata_put(w, &d, sizeof d, &at) != 0) { close(in); return w_fail(w, "cannot write the image: %s", strerror(errno)); }
        crc = mana_crc32c_update(crc, &d, sizeof d);
        uint64_t left = (uint64_t)f.size, pos = 0;
        while (left) {
            size_t chunk = left < w->bounce_cap ? left : w->bounce_cap;
            ssize_t r = pread(in, w->bounce, chunk, (off_t)pos);
            if (r <= 0) { close(in); return w_fail(w, "cannot read %s to save it: %s", path, r < 0 ? strerror(errno) : "it shrank"); }
            crc = mana_crc32c_update(crc, w->bounce, (size_t)r);
            if (fdata_put(w, w->bounce, (size_t)r, &at) != 0) { close(in); return w_fail(w, "cannot write the image: %s", strerror(errno)); }
            pos += (uint64_t)r;
            left -= (uint64_t)r;
        }
        close(in);
        static const char zeros[8];
        size_t pad = (8 - (f.size & 7)) & 7;
        if (pad) {
            if (fdata_put(w, zeros, pad, &at) != 0) return w_fail(w, "cannot write the image: %s", strerror(errno));
            crc = mana_crc32c_update(crc, zeros, pad);
        }
        budget -= (uint64_t)f.size;
        done_dev[ndone] = f.dev;
        done_ino[ndone++] = f.inode;
        count++;
        mana_dbg("saved the contents of %s (fd %d, %lld bytes) with the image", path, f.fd, (long long)f.size);
    }
    *len_out = at - w->off;
    *count_out = count;
    *crc_out = crc;
    return 0;
}


/* Forked checkpoints: can the writer process see what this one stores?  Private memory is copied at
 * the clone; shared memory is not: a shared mapping whose bytes the image carries (anonymous, or a
 * small file) would be read while the program writes it.  Such a process is written here. */
static int forkable(const struct mana_map *maps, int nm, const struct lh_info *lh, uint64_t slo, uint64_t shi,
                    char *why, size_t len)
{
    for (int i = 0; i < nm; i++) {
        const struct mana_map *m = &maps[i];
        if (!m->shared || !(m->prot & PROT_WRITE)) continue;
        if (lh && lh->lh_range_count && mana_range_overlaps(lh->lh_ranges, lh->lh_range_count, m->start, m->end))
            continue;
        if (m->start >= slo && m->end <= shi) continue;
        /* the file holds it; not a deleted file, whose bytes are stored (a shared-memory window's
         * segment: its /dev/shm file is unlinked once every rank has it mapped).  SysV segments show as
         * deleted "/SYSV<key>" files: MPICH attaches its own with shmat inside MPI_Init (in the lower
         * half's ranges, read after it); one attached later, which the tracking of mmap does not see,
         * is MPICH's too, made anew at restart, so it does not keep a checkpoint from forking. */
        int deleted_file = is_deleted(m->name) && strncmp(m->name, "/SYSV", 5) != 0;
        if (m->name[0] == '/' && m->inode && !deleted_file && m->end - m->start > SHARED_COPY_MAX) continue;
        snprintf(why, len, "the shared mapping %#lx-%#lx %s is written by the program and stored in the image",
                 (unsigned long)m->start, (unsigned long)m->end, m->name[0] ? m->name : "(anonymous)");
        return 0;
    }
    return 1;
}

/* In the writer process: every mapping it will read is there.  A mapping marked MADV_DONTFORK (memory
 * registered with a network adapter, for one) is not copied by a clone; madvise(MADV_NORMAL) over a
 * range with a hole fails with ENOMEM, so it finds one without reading /proc/self/maps again. */
static int check_inherited(struct wctx *w, const struct mana_map *maps, int nm, const struct lh_info *lh,
                           uint64_t slo, uint64_t shi)
{
    for (int i = 0; i < nm; i++) {
        const struct mana_map *m = &maps[i];
        if (m->prot == 0 || strcmp(m->name, "[vsyscall]") == 0 || strcmp(m->name, "[vdso]") == 0 ||
            strncmp(m->name, "[vvar", 5) == 0)
            continue;
        if (lh && lh->lh_range_count && mana_range_overlaps(lh->lh_ranges, lh->lh_range_count, m->start, m->end))
            continue;
        if (m->start >= slo && m->end <= shi) continue;
        if (madvise((void *)m->start, m->end - m->start, MADV_NORMAL) != 0 && errno == ENOMEM)
            return w_fail(w, "the mapping %#lx-%#lx %s is not in the writer process (marked MADV_DONTFORK, as "
                          "memory registered with a network adapter is): forked checkpoints cannot copy it; "
                          "take them without MANA_FORKED", (unsigned long)m->start, (unsigned long)m->end,
                          m->name[0] ? m->name : "(anonymous)");
    }
    return 0;
}

/* Tests only: MANA_TEST_WRITER_HOLD=PATH keeps the writer (the writer process, or the rank itself for an
 * unforked checkpoint) from writing the memory until PATH exists (60 s at most), so that a test can
 * change the program's memory, or kill the program, the writer or a node, while an image is being
 * written, as events and not as a race (tests/process/incr_test.sh, forked_*; tests/cluster/cr_nodes.sh). */
static void writer_test_hold(void)
{
    const char *hold = mana_env_get("MANA_TEST_WRITER_HOLD");
    if (!hold || !*hold) return;
    struct timespec ts = { 0, 5000000 };
    for (int i = 0; i < 12000 && access(hold, F_OK) != 0; i++) nanosleep(&ts, NULL);
}

/* The writer's last act: its result on the shared page, then exit. */
static void writer_exit(struct mana_fork_shared *sh, int code, const struct mana_write_result *res, const char *err)
{
    if (res) sh->res = *res;
    if (err) snprintf(sh->err, sizeof sh->err, "%s", err);
    sh->done = code ? 2 : 1;
    mana_sys1(SYS_exit_group, code);
    __builtin_unreachable();
}

/* An upper bound of FILEDATA's size (the records save_file_contents would write), for its buffer. */
static size_t fdata_bound(struct wctx *w, size_t files_at, size_t files_len)
{
    uint64_t total = 0, budget = mana_save_files_max;
    for (size_t off = files_at; off < files_at + files_len;) {
        struct mana_img_file f;
        memcpy(&f, w->sec + off, sizeof f);
        const char *path = w->sec + off + sizeof f;
        off += sizeof f + ((f.path_len + 7) & ~7UL);
        if (!wants_contents(&f, path) || f.size < 0 || (uint64_t)f.size > budget) continue;
        total += sizeof(struct mana_img_filedata) + (((uint64_t)f.size + 7) & ~7UL);
    }
    return total ? (size_t)((total + PAGE - 1) & ~(PAGE - 1)) : 0;
}

/* Where each part of an image lies while it is made: in the section buffer (at, len), and how many
 * records it holds. */
struct span {
    size_t at, len;
    uint32_t count;
};

/* The image's parts, section by section (write_image). */
struct parts {
    int pid;                           /* the program's (the forked writer is another process) */
    uint64_t vdso_s, vdso_e, vvar_s, vvar_e;
    struct span proc, thr, files, sig, mpi, obj, mem, par, zstd;
    uint64_t fdata_at, fdata_len;      /* FILEDATA, in the file after the payloads */
    uint32_t fdata_count, fdata_crc;
};

static int small(struct wctx *w) { return w_fail(w, "checkpoint work area too small"); }

/*
 * The work area (mana_pl.scratch): /proc/self/maps' text and records, the pagemap window, the bounce
 * buffer, then the section buffer; with MANA_COMPRESS the compressor and the ZSTD records at its end,
 * and the compression threads' area below them.
 */
static int lay_out_work_area(struct wctx *w, char **maps_text, size_t *maps_cap, struct mana_map **maps_out)
{
    *maps_text = mana_pl.scratch;
    *maps_cap = 16UL << 20;
    *maps_out = (struct mana_map *)(mana_pl.scratch + *maps_cap);
    size_t maps_bytes = (sizeof(struct mana_map) * MAX_MAPS + PAGE - 1) & ~(PAGE - 1);
    w->pagemap = (uint64_t *)(mana_pl.scratch + *maps_cap + maps_bytes);
    w->pagemap_cap = (4UL << 20) / 8;
    w->bounce = (char *)w->pagemap + (4UL << 20);
    w->bounce_cap = 1UL << 20;
    w->sec = w->bounce + w->bounce_cap;
    w->sec_cap = mana_pl.scratch_size - (size_t)(w->sec - mana_pl.scratch);
    if (mana_compress_level > 0) {
        /* The compressor lives at the end of the work area: its context (sized for the level), its
         * output buffer, the ZSTD section's records. */
        size_t ws = (ZSTD_estimateCStreamSize(mana_compress_level) + PAGE - 1) & ~(PAGE - 1);
        size_t zout = (ZSTD_CStreamOutSize() + PAGE - 1) & ~(PAGE - 1), ztab = 1UL << 20;
        if (ws + zout + ztab + (32UL << 20) > w->sec_cap)
            return w_fail(w, "MANA_COMPRESS level %d needs more work area than there is", mana_compress_level);
        w->sec_cap -= ws + zout + ztab;
        char *at = w->sec + w->sec_cap;
        w->ztab = (struct mana_img_zstd *)at;
        w->zcap = (uint32_t)(ztab / sizeof *w->ztab);
        w->zout = at + ztab;
        w->zout_cap = zout;
        w->zc = ZSTD_initStaticCCtx(at + ztab + zout, ws);
        if (!w->zc) return w_fail(w, "cannot set up the compressor in the work area");
        size_t zr = ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, mana_compress_level);
        if (ZSTD_isError(zr)) return w_fail(w, "compression level %d: %s", mana_compress_level, ZSTD_getErrorName(zr));
        /* Threads (zpool.c), if there are cores for them and room: below the compressor, started
         * where MEMORY begins (in the writer process when forked). Half the work area stays. */
        int nwk = zpool_workers_for(mana_compress_threads);
        size_t zpa = 0, zps = (sizeof(struct zpool) + PAGE - 1) & ~(PAGE - 1);
        while (nwk >= 2 && (zpa = zpool_area_size(mana_compress_level, nwk) + zps) > w->sec_cap / 2) nwk--;
        if (nwk >= 2) {
            w->sec_cap -= zpa;
            w->zp_area = w->sec + w->sec_cap;
            w->zp_area_len = zpa;
            w->zp_workers = nwk;
        }
    }
    return 0;
}

/* ---- PROCESS: ids, the upper half's entry and stack, its break, program, cwd and argv ---- */
static int put_process(struct wctx *w, const struct parts *v)
{
    struct mana_img_process p;
    memset(&p, 0, sizeof p);
    p.pid = getpid();
    p.ppid = getppid();
    p.sid = getsid(0);
    p.pgid = getpgid(0);
    mode_t um = umask(022);
    umask(um);
    p.umask = um;
    p.pthread_tid_offset = mana_pl.tid_offset;
    p.lh_info_slot = (uint64_t)&mana_lh_info;
    p.vdso_start = v->vdso_s;
    p.vdso_end = v->vdso_e;
    p.vvar_start = v->vvar_s;
    p.vvar_end = v->vvar_e;
    p.upper_stack_start = mana_pl.uh_stack.start;
    p.upper_stack_end = mana_pl.uh_stack.end;
    p.upper_entry = mana_pl.uh_entry;
    /* glibc's sbrk trusts its cached break; restart points it at the new process's break. */
    p.upper_brk_slot = (uint64_t)&__curbrk;
    p.upper_brk = (uint64_t)__curbrk;
    if (mana_fault_routed()) p.upper_fault_acts = (uint64_t)(uintptr_t)mana_fault_acts;
    if (!sec_put(w, &p, sizeof p)) return small(w);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    if (sec_str(w, mana_pl.app_path) || sec_str(w, cwd)) return small(w);
    uint32_t argc = mana_pl.argv ? (uint32_t)mana_pl.argc : 0;
    if (!sec_put(w, &argc, 4)) return small(w);
    for (uint32_t i = 0; i < argc; i++)
        if (sec_str(w, mana_pl.argv[i] ? mana_pl.argv[i] : "")) return small(w);
    return 0;
}

/* ---- THREADS: every parked thread's saved context, and the checkpoint thread's ---- */
static int put_threads(struct wctx *w, const struct mana_map *maps, int nm, int pid, struct span *out)
{
    uint64_t scratch_lo = (uint64_t)mana_pl.scratch, scratch_hi = scratch_lo + mana_pl.scratch_size;
    for (int k = 0; k <= mana_pl.n_thr; k++) {
        struct mana_img_thread t;
        memset(&t, 0, sizeof t);
        if (k < mana_pl.n_thr) {
            const struct mana_thr *s = &mana_pl.thr[k];
            ucontext_t *uc = s->uc;
            t.tid = s->tid;
            t.flags = s->tid == pid ? MANA_THR_MAIN : 0;
            t.fs_base = s->fs_base;
            t.ucontext_addr = (uint64_t)uc;
            memcpy(&t.sigmask, &uc->uc_sigmask, 8);
            t.robust_list = s->robust_head;
            t.robust_list_len = s->robust_len;
            if (!(s->altstack.ss_flags & SS_DISABLE)) {
                t.altstack_sp = (uint64_t)s->altstack.ss_sp;
                t.altstack_size = s->altstack.ss_size;
                t.altstack_flags = s->altstack.ss_flags & ~SS_ONSTACK;
            } else {
                t.altstack_flags = SS_DISABLE;
            }
            for (int g = 0; g < MANA_IMG_NGREG && g < NGREG; g++) t.gregs[g] = (uint64_t)uc->uc_mcontext.gregs[g];
        } else {
            /* the checkpoint thread itself */
            uint64_t fs = 0;
            mana_sys2(SYS_arch_prctl, ARCH_GET_FS, (long)&fs);
            t.tid = gettid();
            t.flags = MANA_THR_CKPT | (t.tid == pid ? MANA_THR_MAIN : 0);
            t.fs_base = fs;
            t.ctx_addr = (uint64_t)mana_pl.ckpt_ctx;
            t.sigmask = ~0ULL;
            mana_sys3(SYS_get_robust_list, 0, (long)&t.robust_list, (long)&t.robust_list_len);
            stack_t ss;
            if (sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE)) {
                t.altstack_sp = (uint64_t)ss.ss_sp;
                t.altstack_size = ss.ss_size;
                t.altstack_flags = 0;
            } else {
                t.altstack_flags = SS_DISABLE;
            }
            t.gregs[REG_RSP] = mana_pl.ckpt_ctx->rsp;
            t.gregs[REG_RIP] = mana_pl.ckpt_ctx->rip;
        }
        if (mana_pl.tid_offset) t.ctid_addr = t.fs_base + mana_pl.tid_offset;
        uint64_t sp = t.gregs[REG_RSP];
        for (int i = 0; i < nm; i++)
            if (sp >= maps[i].start && sp < maps[i].end) {
                t.stack_start = maps[i].start;
                t.stack_end = maps[i].end;
                /* not the work area the kernel may have merged with it */
                if (scratch_lo > sp && scratch_lo < t.stack_end) t.stack_end = scratch_lo;
                if (scratch_hi <= sp && scratch_hi > t.stack_start) t.stack_start = scratch_hi;
            }
        if (!sec_put(w, &t, sizeof t)) return small(w);
        out->count++;
    }
    return 0;
}

/* ---- FILES: the program's descriptors (not ours), with offsets and flags ---- */
static int put_files(struct wctx *w, struct span *out)
{
    int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) { w_fail(w, "cannot list /proc/self/fd: %s", strerror(errno)); return -1; }
    char buf[8192];
    for (;;) {
        long r = mana_sys3(SYS_getdents64, dfd, (long)buf, sizeof buf);
        if (r <= 0) break;
        for (long off = 0; off < r;) {
            struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *d =
                (void *)(buf + off);
            off += d->reclen;
            if (d->name[0] < '0' || d->name[0] > '9') continue;
            int fd = 0;
            for (const char *c = d->name; *c; c++) fd = fd * 10 + (*c - '0');
            if (fd == dfd || fd == w->fd || fd == w->dfd || fd == w->pm_fd || mana_plugin_is_internal_fd(fd)) continue;
            struct mana_img_file f;
            memset(&f, 0, sizeof f);
            f.fd = fd;
            char link[64], target[4096], info[512];
            snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
            ssize_t tl = readlink(link, target, sizeof target - 1);
            if (tl < 0) continue;          /* closed meanwhile */
            target[tl] = 0;
            struct stat st;
            if (fstat(fd, &st) != 0) continue;
            f.kind = S_ISREG(st.st_mode) ? MANA_FILE_REGULAR : S_ISDIR(st.st_mode) ? MANA_FILE_DIR
                   : S_ISCHR(st.st_mode) ? MANA_FILE_CHAR : S_ISFIFO(st.st_mode) ? MANA_FILE_PIPE
                   : S_ISSOCK(st.st_mode) ? MANA_FILE_SOCKET : MANA_FILE_OTHER;
            if (f.kind == MANA_FILE_REGULAR && target[0] != '/') f.kind = MANA_FILE_OTHER;   /* anon inode */
            f.size = st.st_size;
            f.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
            f.inode = st.st_ino;
            f.dev = st.st_dev;
            f.mode = st.st_mode;
            int fdf = fcntl(fd, F_GETFD);
            f.fd_flags = fdf > 0 ? (uint32_t)fdf : 0;
            for (uint32_t k = 0; k < mana_pl.n_inherited; k++)
                if (mana_pl.inherited[k].fd == fd && mana_pl.inherited[k].dev == (uint64_t)st.st_dev &&
                    mana_pl.inherited[k].ino == (uint64_t)st.st_ino)
                    f.fd_flags |= MANA_FD_INHERITED;
            snprintf(link, sizeof link, "/proc/self/fdinfo/%d", fd);
            if (mana_read_file(link, info, sizeof info) > 0) {
                const char *p = strstr(info, "pos:");
                if (p) f.offset = strtoll(p + 4, NULL, 10);
                p = strstr(info, "flags:");
                if (p) f.open_flags = (int32_t)strtol(p + 6, NULL, 8);
            }
            f.path_len = (uint32_t)tl;
            if (!sec_put(w, &f, sizeof f) || !sec_put(w, target, (size_t)tl)) { close(dfd); return small(w); }
            out->count++;
        }
    }
    close(dfd);
    return 0;
}

/* ---- SIGNALS: handlers that are not SIG_DFL, interval timers, pending signals ---- */
static int put_signals(struct wctx *w, struct span *out)
{
    uint32_t ntimers = 0;
    struct mana_img_signals *head = sec_put(w, NULL, sizeof *head);
    if (!head) return small(w);
    size_t head_at = (size_t)((char *)head - w->sec);
    /* A fault signal the lower half dispatches (fault_sig.h): the program's own action from its table,
     * with the restorer the upper libc gave the checkpoint signal's handler (a restart that does not
     * dispatch that signal installs it as it is). */
    uint64_t routed = mana_fault_routed();
    struct kernel_sigaction_raw ck = { 0, 0, 0, 0 };
    mana_sys4(SYS_rt_sigaction, mana_pl.cfg.ckpt_signal, 0, (long)&ck, 8);
    for (int s = 1; s <= 64; s++) {
        if (s == 9 || s == 19) continue;
        struct kernel_sigaction_raw ks;
        if ((routed >> (s - 1)) & 1) {
            const struct mana_fault_act *p = &mana_fault_acts[s];
            ks = (struct kernel_sigaction_raw){ p->handler, p->flags | (ck.restorer ? MANA_SA_RESTORER : 0), ck.restorer, p->mask };
        } else if (mana_sys4(SYS_rt_sigaction, s, 0, (long)&ks, 8) != 0) continue;
        if (ks.handler == 0) continue;        /* SIG_DFL */
        struct mana_img_sigaction a = { s, 0, ks.handler, ks.flags, ks.restorer, ks.mask };
        if (!sec_put(w, &a, sizeof a)) return small(w);
        out->count++;
    }
    for (int which = 0; which < 3; which++) {
        struct itimerval it;
        if (getitimer(which, &it) != 0) continue;
        if (!it.it_value.tv_sec && !it.it_value.tv_usec && !it.it_interval.tv_sec && !it.it_interval.tv_usec)
            continue;
        struct mana_img_itimer t = { which, 0,
            (int64_t)it.it_interval.tv_sec * 1000000000LL + it.it_interval.tv_usec * 1000LL,
            (int64_t)it.it_value.tv_sec * 1000000000LL + it.it_value.tv_usec * 1000LL };
        if (!sec_put(w, &t, sizeof t)) return small(w);
        ntimers++;
    }
    head = (struct mana_img_signals *)(w->sec + head_at);
    head->nsig = out->count;
    head->ntimers = ntimers;
    uint64_t pend = 0;
    mana_sys2(SYS_rt_sigpending, (long)&pend, 8);
    head->pending = pend;
    return 0;
}

/* ---- MPI (an MPI program only): the summary a reader needs, the state being in memory; and
 * MPI_OBJECTS (optional): open MPI-IO files, for readers ---- */
static int put_mpi(struct wctx *w, struct span *mpi, struct span *obj)
{
    mpi->at = w->sec_len;
    if (mana_pl.mpi) {
        struct mana_img_mpi d;
        mana_pl.mpi->describe(&d);
        if (!sec_put(w, &d, sizeof d)) return small(w);
        mpi->len = sizeof d;
    }
    obj->at = w->sec_len;
    if (mana_pl.mpi && mana_pl.mpi->objects) {
        int nobj = mana_pl.mpi->objects(w, sec_put_any);
        if (nobj < 0) return small(w);
        obj->count = (uint32_t)nobj;
        obj->len = w->sec_len - obj->at;
    }
    return 0;
}

/*
 * Forked: from here on a child process writes, and this one goes back to the program.  1: this is
 * the program's process, the writer is started (fw->pid, fw->shared); 0: write here (this is the
 * writer, *in_child, or the process cannot be copied faithfully: fw->why); -1 failed.
 */
static int start_writer_process(struct wctx *w, const struct mana_map *maps, int nm, const struct lh_info *lh,
                                int pid, struct mana_fork_writer *fw, struct mana_fork_shared **shp, int *in_child)
{
    uint64_t scratch_lo = (uint64_t)mana_pl.scratch, scratch_hi = scratch_lo + mana_pl.scratch_size;
    struct mana_fork_shared *sh;
    {
        fw->pid = 0;
        fw->why[0] = 0;
        if (forkable(maps, nm, lh, scratch_lo, scratch_hi, fw->why, sizeof fw->why)) {
            sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
            if (sh == MAP_FAILED) {
                w_fail(w, "cannot map the writer's result page: %s", strerror(errno));
                return -1;
            }
            /* fork without a signal at exit: a program that waits for its own children or handles
             * SIGCHLD never sees the writer (wait4 with __WALL below) */
            long c = mana_sys6(SYS_clone, 0, 0, 0, 0, 0, 0);
            if (c < 0) {
                munmap(sh, sizeof *sh);
                w_fail(w, "cannot start the writer process: %s", strerror((int)-c));
                return -1;
            }
            if (c > 0) {
                fw->pid = (int)c;
                fw->shared = sh;
                if (w->fbuf) munmap(w->fbuf, w->fcap);
                if (w->dfd >= 0) close(w->dfd);
                close(w->fd);
                if (w->pm_fd >= 0) close(w->pm_fd);
                return 1;
            }
            /* The writer: this thread alone, in a copy of the program's memory as it was at the clone.
             * It dies with the program (a half-written .tmp is never renamed: the previous generation
             * stays the newest), and reads its own pagemap, not the program's. */
            *shp = sh;
            *in_child = 1;
            mana_sys2(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
            if (mana_sys0(SYS_getppid) != pid) mana_sys1(SYS_exit_group, 3);
            if (w->pm_fd >= 0) close(w->pm_fd);
            w->pm_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
            if (check_inherited(w, maps, nm, lh, scratch_lo, scratch_hi) != 0) return -1;
            writer_test_hold();
        }
    }
    return 0;
}

/* ---- MEMORY: every mapping, split where the lower half's ranges and the work area begin, with
 * the pages the image carries (write_region) ---- */
static int put_memory(struct wctx *w, const struct mana_map *maps, int nm, const struct lh_info *lh,
                      struct span *out, struct mana_write_result *res)
{
    uint64_t scratch_lo = (uint64_t)mana_pl.scratch, scratch_hi = scratch_lo + mana_pl.scratch_size;
    out->at = w->sec_len;
    if (w->zp_workers) {
        struct zpool *zp = (struct zpool *)w->zp_area;
        size_t zps = (sizeof *zp + PAGE - 1) & ~(PAGE - 1);
        char why[160];
        if (zpool_start(zp, w->zp_area + zps, w->zp_area_len - zps, mana_compress_level, w->zp_workers, zp_sink, w,
                        why, sizeof why) == 0)
            w->zp = zp;
        else
            mana_warn("%s: compressing on one thread", why);
    }
    for (int i = 0; i < nm; i++)
      for (uint64_t piece = maps[i].start; piece < maps[i].end;) {
        /* The kernel may have merged a lower-half mapping with an adjacent upper one: split each
         * mapping at the lower half's range boundaries. */
        struct mana_map mp = maps[i];
        int in_lower = 0;
        if (lh && lh->lh_range_count)
            mp.end = mana_range_piece(lh->lh_ranges, lh->lh_range_count, piece, maps[i].end, &in_lower);
        /* ... and at our work area's boundaries (after a restart it is an anonymous mapping that
         * the kernel may merge with a neighbour, e.g. a thread stack) */
        int in_scratch = 0;
        struct mana_range scr = { scratch_lo, scratch_hi };
        mp.end = mana_range_piece(&scr, 1, piece, mp.end, &in_scratch);
        mp.start = piece;
        if (mp.name[0] == '/' || mp.inode) mp.offset = maps[i].offset + (piece - maps[i].start);
        piece = mp.end;
        const struct mana_map *m = &mp;
        const char *name = m->name;
        uint32_t flags = 0;
        int payload = 0, use_pagemap = 0;
        uint64_t valid = m->end - m->start;
        if (strcmp(name, "[vsyscall]") == 0) continue;
        if (strcmp(name, "[vdso]") == 0) {
            flags = MANA_REG_VDSO;
        } else if (strncmp(name, "[vvar", 5) == 0) {
            flags = MANA_REG_VVAR;
        } else if (in_lower) {
            flags = MANA_REG_LOWER;
        } else {
            struct stat st;
            int regular_file = name[0] == '/' && m->inode && !is_deleted(name) && stat(name, &st) == 0 &&
                               S_ISREG(st.st_mode) && st.st_ino == m->inode;
            flags = regular_file ? MANA_REG_FILE : MANA_REG_ANON;
            if (m->shared) flags |= MANA_REG_SHARED;
            if (strcmp(name, "[heap]") == 0) flags |= MANA_REG_HEAP;
            if (strcmp(name, "[stack]") == 0 || mana_range_overlaps(&mana_pl.uh_stack, 1, m->start, m->end))
                flags |= MANA_REG_STACK;
            for (int k = 0; k < mana_pl.n_thr && !(flags & MANA_REG_STACK); k++) {
                uint64_t sp = (uint64_t)mana_pl.thr[k].uc;
                if (sp >= m->start && sp < m->end) flags |= MANA_REG_STACK;
            }
            if (m->prot == 0) {
                flags |= MANA_REG_GUARD;
            } else if ((flags & MANA_REG_FILE) && (flags & MANA_REG_SHARED) && m->end - m->start > SHARED_COPY_MAX) {
                payload = 0;                           /* the file holds the data */
            } else if (in_scratch) {
                payload = 0;                           /* our own work area */
            } else {
                /* a small shared file mapping is copied too: its file may be gone at restart (a JVM's
                 * hsperfdata file, deleted by the next JVM of the user), and is then rebuilt from it */
                payload = 1;
                if (flags & MANA_REG_FILE) {
                    /* pages past the end of the file cannot be read (SIGBUS) and are zero */
                    uint64_t fsz = (uint64_t)st.st_size;
                    valid = fsz > m->offset ? fsz - m->offset : 0;
                    if (valid > m->end - m->start) valid = m->end - m->start;
                    use_pagemap = 0;
                } else {
                    /* untouched pages are zero only in truly anonymous memory (not in a private
                     * mapping of a deleted file, e.g. the image a restart mapped) */
                    use_pagemap = !m->shared && w->pm_fd >= 0 && m->inode == 0 && name[0] != '/';
                }
            }
        }
        w->cur_region = out->count;
        if (write_region(w, m, flags, payload, valid, use_pagemap, res) != 0) return -1;
        out->count++;
    }
    out->len = w->sec_len - out->at;
    res->zstd_threads = w->zp ? w->zp->nworkers : w->zc ? 1 : 0;
    if (w->zp) zpool_stop(w->zp);
    return 0;
}

/* ---- section table, sections, header, fsync ---- */
static int finish_image(struct wctx *w, const char *path, uint32_t generation, const struct parts *x,
                        struct mana_write_result *res)
{
    const struct mana_incr *inc = w->inc;
    uint64_t sections_at = (x->fdata_at + x->fdata_len + 7) & ~7UL;
    int nsec = x->mpi.len ? 6 : 5, incr = x->par.len != 0;
    int nextra = (x->fdata_count ? 1 : 0) + (x->obj.count ? 1 : 0) + (incr ? 1 : 0) + (w->nz ? 1 : 0);
    struct mana_img_section *tab = sec_put(w, NULL, (size_t)(nsec + nextra) * sizeof *tab);
    if (!tab) return small(w);
    size_t tab_at = (size_t)((char *)tab - w->sec);
    struct { uint32_t type; size_t at, len; uint32_t count; } s[6] = {
        { MANA_SEC_PROCESS, x->proc.at, x->proc.len, 1 },
        { MANA_SEC_MEMORY, x->mem.at, x->mem.len, x->mem.count },
        { MANA_SEC_THREADS, x->thr.at, x->thr.len, x->thr.count },
        { MANA_SEC_FILES, x->files.at, x->files.len, x->files.count },
        { MANA_SEC_SIGNALS, x->sig.at, x->sig.len, x->sig.count },
        { MANA_SEC_MPI, x->mpi.at, x->mpi.len, 1 },
    };
    tab = (struct mana_img_section *)(w->sec + tab_at);
    for (int i = 0; i < nsec; i++)
        put_le_section(&tab[i], s[i].type, sections_at + s[i].at, s[i].len,
                       mana_crc32c_update(0, w->sec + s[i].at, s[i].len), s[i].count);
    if (x->fdata_count)
        put_le_section(&tab[nsec], MANA_SEC_FILEDATA, x->fdata_at, x->fdata_len, x->fdata_crc, x->fdata_count);
    if (x->obj.count)
        put_le_section(&tab[nsec + (x->fdata_count ? 1 : 0)], MANA_SEC_MPI_OBJECTS, sections_at + x->obj.at,
                       x->obj.len, mana_crc32c_update(0, w->sec + x->obj.at, x->obj.len), x->obj.count);
    if (incr)
        put_le_section(&tab[nsec + nextra - 1 - (w->nz ? 1 : 0)], MANA_SEC_PARENT, sections_at + x->par.at, x->par.len,
                       mana_crc32c_update(0, w->sec + x->par.at, x->par.len), 1);
    if (w->nz)
        put_le_section(&tab[nsec + nextra - 1], MANA_SEC_ZSTD, sections_at + x->zstd.at, x->zstd.len,
                       mana_crc32c_update(0, w->sec + x->zstd.at, x->zstd.len), w->nz);
    uint64_t file_size = sections_at + w->sec_len;
    if (pwrite_all(w->fd, w->sec, w->sec_len, sections_at) != 0) {
        w_fail(w, "cannot write the image: %s", strerror(errno));
        return -1;
    }
    struct mana_img_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MANA_IMG_MAGIC, 8);
    h.version = MANA_IMG_VERSION;
    h.header_size = MANA_IMG_HEADER_SIZE;
    h.file_size = file_size;
    h.section_table_offset = sections_at + tab_at;
    h.section_count = (uint32_t)(nsec + nextra);
    if (mana_pl.mpi) h.flags |= MANA_IMG_F_MPI;
    if (incr) h.flags |= MANA_IMG_F_INCREMENTAL;
    else if (inc && inc->untracked) h.flags |= MANA_IMG_F_UNTRACKED;
    h.section_entry_size = sizeof(struct mana_img_section);
    h.page_size = PAGE;
    h.rank = (uint32_t)mana_pl.cfg.rank;
    h.nranks = (uint32_t)mana_pl.cfg.nranks;
    h.generation = generation;
    h.pid = x->pid;                  /* the program's, also when the forked writer writes this */
    h.time_unix_ns = mana_realtime_ns();
    h.mapped_bytes = res->mapped_bytes;
    h.stored_bytes = res->stored_bytes;
    struct utsname u;
    if (uname(&u) == 0) {
        size_t hl = strlen(u.nodename);
        memcpy(h.host, u.nodename, hl < sizeof h.host - 1 ? hl : sizeof h.host - 1);
    }
    const struct lh_info *lh = mana_lh_info;
    /* the MPI this rank was launched with, which the lower half runs: also before the program's first MPI
     * call (a restart must run that MPI's lower half, which the program's MPI_Init will then find) */
    uint32_t kind = lh ? lh->mpi.kind : MANA_MPI_NONE;
    snprintf(h.mpi, sizeof h.mpi, "%s", kind == MANA_MPI_OPENMPI ? "openmpi" : kind == MANA_MPI_MPICH ? "mpich" : "none");
    const char *b = strrchr(mana_pl.app_path, '/');
    const char *prog = b ? b + 1 : mana_pl.app_path;
    size_t pl = strlen(prog);
    memcpy(h.program, prog, pl < sizeof h.program - 1 ? pl : sizeof h.program - 1);
    h.header_crc = mana_crc32c_update(0, &h, sizeof h);
    res->header_crc = h.header_crc;
    if (pwrite_all(w->fd, &h, sizeof h, 0) != 0) {
        w_fail(w, "cannot write the image header: %s", strerror(errno));
        return -1;
    }
    if (fsync(w->fd) != 0) {
        w_fail(w, "cannot sync %s: %s", path, strerror(errno));
        return -1;
    }
    res->file_bytes = file_size;
    return 0;
}

/* The image of this process.  fw NULL: written here, start to end.  fw set (forked): everything but
 * memory is taken here, with the program stopped (process, threads, descriptors and their offsets,
 * the saved files' contents, signals, the MPI summary); then a child process, a copy-on-write copy of
 * this one made by clone without SIGCHLD, writes the memory and finishes the file while this process
 * returns to its program.  A process that cannot be copied faithfully is written here (fw->pid 0,
 * fw->why says why). */
static int write_image(const char *path, uint32_t generation, const struct mana_incr *inc,
                       struct mana_write_result *res, char *err, size_t errlen, struct mana_fork_writer *fw)
{
    int64_t t0 = mana_now_ns();
    int in_child = 0;
    struct mana_fork_shared *sh = NULL;
    struct wctx w;
    memset(&w, 0, sizeof w);
    w.inc = inc;
    w.err = err;
    w.errlen = errlen;
    struct parts x;
    memset(&x, 0, sizeof x);
    x.pid = getpid();
    char *maps_text;
    size_t maps_cap;
    struct mana_map *maps;
    if (lay_out_work_area(&w, &maps_text, &maps_cap, &maps) != 0) return -1;

    long n = mana_read_file("/proc/self/maps", maps_text, maps_cap);
    if (n < 0) return w_fail(&w, "cannot read /proc/self/maps: %s", strerror((int)-n));
    int nm = mana_parse_maps(maps_text, maps, MAX_MAPS);
    if (nm < 0) return w_fail(&w, "more than %d mappings", MAX_MAPS);

    w.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (w.fd < 0) return w_fail(&w, "cannot create %s: %s", path, strerror(errno));
    w.dfd = mana_direct_io && !w.zc ? open(path, O_WRONLY | O_DIRECT | O_CLOEXEC) : -1;
    w.pm_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    w.off = PAGE;
    struct lh_info *lh = mana_lh_info;

    /* Incremental, unless most pages changed (then full: see mostly_changed) */
    struct mana_incr inc_full;
    if (inc && inc->incremental && w.pm_fd >= 0 && mostly_changed(&w, maps, nm, lh)) {
        inc_full = *inc;
        inc_full.incremental = 0;
        inc = w.inc = &inc_full;
    }
    res->incremental = inc && inc->incremental;

    /* [vdso] and [vvar]: PROCESS names them before the memory is written */
    for (int i = 0; i < nm; i++) {
        if (strcmp(maps[i].name, "[vdso]") == 0) {
            x.vdso_s = maps[i].start;
            x.vdso_e = maps[i].end;
        } else if (strncmp(maps[i].name, "[vvar", 5) == 0) {
            if (!x.vvar_s || maps[i].start < x.vvar_s) x.vvar_s = maps[i].start;
            if (maps[i].end > x.vvar_e) x.vvar_e = maps[i].end;
        }
    }

    x.proc.at = w.sec_len;
    if (put_process(&w, &x) != 0) goto fail;
    x.proc.len = w.sec_len - x.proc.at;
    x.thr.at = w.sec_len;
    if (put_threads(&w, maps, nm, x.pid, &x.thr) != 0) goto fail;
    x.thr.len = w.sec_len - x.thr.at;
    x.files.at = w.sec_len;
    if (put_files(&w, &x.files) != 0) goto fail;
    x.files.len = w.sec_len - x.files.at;
    /* forked: the contents of the files written in place are read now, with the program stopped */
    if (fw) {
        size_t need = fdata_bound(&w, x.files.at, x.files.len);
        if (need) {
            void *b = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (b == MAP_FAILED) {
                w_fail(&w, "cannot map %zu bytes for the saved files: %s", need, strerror(errno));
                goto fail;
            }
            w.fbuf = b;
            w.fcap = need;
            if (save_file_contents(&w, x.files.at, x.files.len, &x.fdata_len, &x.fdata_count, &x.fdata_crc) != 0)
                goto fail;
        }
    }
    x.sig.at = w.sec_len;
    if (put_signals(&w, &x.sig) != 0) goto fail;
    x.sig.len = w.sec_len - x.sig.at;
    if (put_mpi(&w, &x.mpi, &x.obj) != 0) goto fail;

    if (fw) {
        int r = start_writer_process(&w, maps, nm, lh, x.pid, fw, &sh, &in_child);
        if (r < 0) goto fail;
        if (r > 0) return 0;                  /* the writer process goes on from here */
    }

    if (!in_child) writer_test_hold();        /* unforked: this rank writes, its program stopped */
    if (put_memory(&w, maps, nm, lh, &x.mem, res) != 0) goto fail;

    /* ---- FILEDATA: contents of files written in place, after the payloads ---- */
    x.fdata_at = w.off;
    if (w.fbuf) {
        if (x.fdata_len && pwrite_all(w.fd, w.fbuf, x.fdata_len, x.fdata_at) != 0) {
            w_fail(&w, "cannot write the image: %s", strerror(errno));
            goto fail;
        }
    } else if (save_file_contents(&w, x.files.at, x.files.len, &x.fdata_len, &x.fdata_count, &x.fdata_crc) != 0) {
        goto fail;
    }

    /* ---- PARENT (incremental images): the image this one completes ---- */
    x.par.at = w.sec_len;
    if (inc && inc->incremental) {
        struct mana_img_parent p = inc->parent;
        p.name_len = (uint32_t)strlen(inc->parent_name);
        if (!sec_put(&w, &p, sizeof p) || !sec_put(&w, inc->parent_name, p.name_len)) {
            small(&w);
            goto fail;
        }
        x.par.len = w.sec_len - x.par.at;
    }

    /* ---- ZSTD (compressed regions): their compressed lengths ---- */
    x.zstd.at = w.sec_len;
    if (w.nz) {
        if (!sec_put(&w, w.ztab, (size_t)w.nz * sizeof *w.ztab)) {
            small(&w);
            goto fail;
        }
        x.zstd.len = w.sec_len - x.zstd.at;
    }

    if (finish_image(&w, path, generation, &x, res) != 0) goto fail;
    res->regions = x.mem.count;
    if (w.dfd >= 0) close(w.dfd);
    close(w.fd);
    if (w.pm_fd >= 0) close(w.pm_fd);
    if (w.fbuf) munmap(w.fbuf, w.fcap);
    res->ns = mana_now_ns() - t0;
    if (in_child) writer_exit(sh, 0, res, NULL);
    return 0;
fail:
    if (w.zp) zpool_stop(w.zp);
    if (w.dfd >= 0) close(w.dfd);
    close(w.fd);
    if (w.pm_fd >= 0) close(w.pm_fd);
    if (w.fbuf) munmap(w.fbuf, w.fcap);
    if (in_child) writer_exit(sh, 1, NULL, err);
    return -1;
}

int mana_write_image(const char *path, uint32_t generation, const struct mana_incr *inc,
                     struct mana_write_result *res, char *err, size_t errlen)
{
    return write_image(path, generation, inc, res, err, errlen, NULL);
}

int mana_write_image_forked(const char *path, uint32_t generation, struct mana_write_result *res,
                            struct mana_fork_writer *fw, char *err, size_t errlen)
{
    memset(fw, 0, sizeof *fw);
    return write_image(path, generation, NULL, res, err, errlen, fw);
}

int mana_fork_writer_wait(struct mana_fork_writer *fw, struct mana_write_result *res, char *err, size_t errlen)
{
    int st = 0, rc = -1;
    long r;
    do r = mana_sys4(SYS_wait4, fw->pid, (long)&st, __WALL, 0); while (r == -EINTR);
    struct mana_fork_shared *sh = fw->shared;
    if (r < 0)
        snprintf(err, errlen, "cannot wait for the writer process %d: %s", fw->pid, strerror((int)-r));
    else if (WIFSIGNALED(st))
        snprintf(err, errlen, "the writer process %d was killed by signal %d before the image was complete",
                 fw->pid, WTERMSIG(st));
    else if (WEXITSTATUS(st) != 0 || sh->done != 1)
        snprintf(err, errlen, "%s", sh->done == 2 && sh->err[0] ? sh->err : "the writer process failed");
    else {
        *res = sh->res;
        rc = 0;
    }
    munmap(sh, sizeof *sh);
    fw->shared = NULL;
    fw->pid = 0;
    return rc;
}
