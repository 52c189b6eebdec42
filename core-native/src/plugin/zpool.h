/*
 * zpool.h - the checkpoint writer's parallel zstd compressors (zpool.c).
 *
 * A region's stored bytes are cut into chunks of ZPOOL_CHUNK bytes; each chunk becomes one zstd
 * frame, compressed by one of several worker threads, and the frames are handed back in order, so a
 * region's payload is their concatenation (docs/image-format.md: "one or more frames").  Everything
 * lives in a caller-given part of the writer's work area: no malloc, no libc threads (the program's
 * threads are parked, possibly holding libc's locks), workers made with a raw clone and joined before
 * the writer returns.
 */
#ifndef MANA_ZPOOL_H
#define MANA_ZPOOL_H

#include <stddef.h>
#include <stdint.h>

#define ZPOOL_CHUNK   (4UL << 20)   /* input bytes per frame: large enough to cost < 0.1 % of ratio */
#define ZPOOL_MAX     8             /* workers */
#define ZPOOL_SEGS    64            /* pieces of memory one frame may gather (runs of stored pages) */

struct ZSTD_CCtx_s;

struct zjob {
    volatile int state;             /* ZJ_FREE, ZJ_READY (filled), ZJ_DONE (compressed) */
    int nseg;
    const char *seg[ZPOOL_SEGS];
    size_t seg_len[ZPOOL_SEGS];
    size_t in_len;
    char *out;
    size_t out_cap, out_len;
    const char *err;                /* ZSTD's error name when compression failed */
};

struct zworker {
    struct zpool *pool;
    int index;
    volatile int tid;               /* nonzero while the thread lives (CLONE_CHILD_CLEARTID) */
    struct ZSTD_CCtx_s *cctx;
    char *stack;                    /* its lowest page is the guard */
    size_t stack_len;
};

/* Called with each finished frame, in order; returns 0, or -1 with the writer's error set.  zpool_add
 * and zpool_finish return -1 when it did, or when a frame could not be compressed (p->failed says
 * why; the sink's error is the caller's own). */
typedef int (*zpool_sink)(void *ctx, const void *frame, size_t len);

struct zpool {
    int nworkers, nslots;           /* nslots = 2 * nworkers: each slot belongs to one worker */
    uint64_t submitted, written;    /* jobs handed to workers / frames given to the sink */
    int filling;                    /* slots[submitted % nslots] holds a job not handed over yet */
    struct zjob slots[2 * ZPOOL_MAX];
    struct zworker workers[ZPOOL_MAX];
    zpool_sink sink;
    void *sink_ctx;
    const char *failed;             /* zstd's error name when a frame could not be compressed */
    char *area;
    size_t area_len;
};

/* Bytes of work area zpool_start needs for n workers at this zstd level. */
size_t zpool_area_size(int level, int nworkers);

/* Start n (2..ZPOOL_MAX) workers with their contexts, buffers and stacks in area (page-aligned, at
 * least zpool_area_size bytes). 0, or -1 with a message in err (nothing left running). */
int zpool_start(struct zpool *p, char *area, size_t area_len, int level, int nworkers, zpool_sink sink,
                void *sink_ctx, char *err, size_t errlen);

/* Add len bytes at src (stable until zpool_finish returns) to the current frame; full frames are
 * handed to workers, and finished ones to the sink. */
int zpool_add(struct zpool *p, const void *src, size_t len);

/* Hand over the partial frame and wait for every frame, all given to the sink in order: the end of a
 * region (or before src memory is reused). */
int zpool_finish(struct zpool *p);

/* Stop and join the workers (also after a failure); the area may be reused afterwards. */
void zpool_stop(struct zpool *p);

/* Worker threads wanted for MANA_COMPRESS_THREADS (-1: not set, one per CPU up to ZPOOL_MAX). */
int zpool_workers_for(int setting);

#endif
