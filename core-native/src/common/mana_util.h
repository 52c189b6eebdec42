/*
 * mana_util.h - helpers shared by the lower half and the upper-half plugin.
 *
 * Each half links its own copy (a static library), so these functions run on the libc of the half
 * that calls them.  Nothing here allocates memory: callers that run while other threads are frozen
 * (the checkpoint thread) or before the upper half is restored (the restore code) depend on that.
 */
#ifndef MANA_UTIL_H
#define MANA_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

/* ---- logging: one line per call, written with a single write(2) to stderr ---- */
struct mana_log_cfg {
    int debug;
    int timing;
    int quiet;
    const char *who;        /* "lower-half", "mana" ... */
};
extern struct mana_log_cfg mana_log_cfg;

void mana_log_setup(const char *who, int debug, int timing, int quiet);
/* Always printed (errors): "who: message". */
void mana_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed unless MANA_QUIET: warnings and notices. */
void mana_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* MANA_DEBUG only. */
void mana_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* MANA_TIMING only: "who: timing: what 12.345 ms". */
void mana_timing(const char *what, int64_t ns);
/* Format into a buffer (vsnprintf), never fails. */
void mana_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

int64_t mana_now_ns(void);            /* CLOCK_MONOTONIC, raw syscall */
int64_t mana_realtime_ns(void);       /* CLOCK_REALTIME, raw syscall */

/* ---- CRC-32C (Castagnoli), as java.util.zip.CRC32C ---- */
/* crc = mana_crc32c_update(0, p, n) for a whole buffer; pass the previous result to continue. */
uint32_t mana_crc32c_update(uint32_t crc, const void *buf, size_t len);
/* The CRC of A followed by B from crc(A) and crc(B), B being len_b bytes (pieces checked in parallel). */
uint32_t mana_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

/* ---- /proc/self/maps ---- */
struct mana_map {
    uint64_t start, end;
    uint32_t prot;          /* PROT_* */
    int      shared;        /* 's' */
    uint64_t offset;
    uint32_t dev_major, dev_minor;
    uint64_t inode;
    const char *name;       /* points into the caller's buffer, NUL-terminated ("" if none) */
};

/*
 * Read a whole /proc file into buf (raw syscalls; NUL-terminated).  Returns bytes read, or -errno;
 * -E2BIG if it does not fit.
 */
long mana_read_file(const char *path, char *buf, size_t cap);

/*
 * Parse a maps text in place (it is modified: lines get NUL-terminated) into maps[0..cap).
 * Returns the number of entries, or -1 if there were more than cap.
 */
int mana_parse_maps(char *text, struct mana_map *maps, int cap);

/* 1 if [start,end) overlaps any of the sorted ranges. */
struct mana_range;
int mana_range_overlaps(const struct mana_range *r, uint32_t n, uint64_t start, uint64_t end);

/*
 * Split [start,end) by the ranges: returns the end of the piece that starts at `start` and sets
 * *inside to 1 if that piece lies inside one of the ranges (0 if it lies outside all of them).
 */
uint64_t mana_range_piece(const struct mana_range *r, uint32_t n, uint64_t start, uint64_t end, int *inside);

/* The image file names of docs/image-format.md. */
void mana_image_name(char *buf, size_t len, const char *dir, int rank, const char *program,
                     uint32_t generation, int tmp);
/* Generation N if name is "ckpt_<anything>_gen<N>.mana" (exactly), else 0. */
uint32_t mana_image_generation(const char *name);

#endif
