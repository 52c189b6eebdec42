/*
 * restore_zstd.h - a compressed region's frames decompressed on several threads at restart
 * (restore_zstd.c).
 *
 * The writer's compression threads (plugin/zpool.c) cut a region into frames of a few MiB that state
 * their decompressed size; each frame is then an independent piece of the region's stored bytes, and
 * can be decompressed straight into place, beside the others.  A payload whose frames do not state
 * their size (a single-threaded writer streams one frame) is left to the streaming decoder
 * (image_check.c: mana_zstd_crc).
 */
#ifndef MANA_RESTORE_ZSTD_H
#define MANA_RESTORE_ZSTD_H

#include <stddef.h>
#include <stdint.h>

#define ZPAR_MAX_FRAME (64UL << 20)   /* a larger frame is streamed: no buffer that size per thread */
#define ZPAR_MAX_THREADS 8

/* Where a frame's output goes; `off` and `len` are in the region's stored bytes. */
struct zpar_ops {
    /* the address of [off, off+len) when it is one contiguous loadable range, else NULL */
    void *(*direct)(void *ctx, uint64_t off, uint64_t len);
    /* put [off, off+len) from buf wherever it belongs; 0, or nonzero (said why) */
    int (*scatter)(void *ctx, uint64_t off, const void *buf, uint64_t len);
    void *ctx;
    uint32_t frames;                    /* out: how many frames, on how many threads */
    int threads;
};

/*
 * Decompress the frames of the payload at [p, p+len), `total` bytes of output in all, on up to
 * `threads` threads (the caller's among them); *crc = CRC32C of the whole output.
 * 0 done; 1 not done, nothing written (a frame without its size, or larger than ZPAR_MAX_FRAME,
 * or no memory for the threads): stream it instead; -1 corrupt or scatter failed (err says why).
 */
int mana_zstd_par(const char *p, size_t len, uint64_t total, int threads, struct zpar_ops *ops, uint32_t *crc,
                  char *err, size_t errlen);

/*
 * Map [addr, addr+len) in before it is written (MADV_POPULATE_WRITE, Linux 5.14), so that its pages
 * cost one system call rather than one page fault each; a fault is the larger part of writing a
 * fresh page where the kernel runs under a hypervisor (PVM: 4 s of a 6 s restart of 1 GiB).  Only
 * faster: where the kernel refuses, the writes fault the pages in as before.  Raw system call: safe
 * on the raw threads.
 */
void mana_prefault_write(void *addr, size_t len);

/* Threads for restart: MANA_COMPRESS_THREADS if set, else one per CPU, at most ZPAR_MAX_THREADS. */
int mana_zstd_par_threads(void);

#endif
