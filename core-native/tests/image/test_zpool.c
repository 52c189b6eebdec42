/*
 * test_zpool - the checkpoint writer's compression threads (src/plugin/zpool.c) on their own: regions of
 * every size around the chunk and the ring of slots (a region of exactly one chunk per slot hung the
 * writer: its finish handed the oldest job over twice), gathered from pieces as the writer's runs are,
 * with 2 and 3 workers. Every region's frames must come back in order, each stating its size, and
 * decompress to the region's bytes. A hang fails by ctest's timeout.
 */
#define _GNU_SOURCE
#include "zpool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zstd.h>

static int failures;

struct collected {
    char *buf;
    size_t len, cap;
    unsigned frames;
};

static int sink(void *ctx, const void *frame, size_t len)
{
    struct collected *c = ctx;
    if (c->len + len > c->cap) {
        c->cap = (c->len + len) * 2;
        c->buf = realloc(c->buf, c->cap);
        if (!c->buf) { perror("realloc"); exit(2); }
    }
    memcpy(c->buf + c->len, frame, len);
    c->len += len;
    c->frames++;
    return 0;
}

/* One region of `len` bytes at src, handed over in pieces of `piece` bytes, every other piece skipped
 * over a gap when `gaps` (runs of stored pages with zero pages between them: the pieces are not adjacent). */
static void region(struct zpool *p, struct collected *c, const char *src, size_t len, size_t piece, int gaps,
                   const char *what)
{
    c->len = 0;
    c->frames = 0;
    char *want = malloc(len ? len : 1);
    size_t got = 0;
    const char *at = src;
    while (got < len) {
        size_t k = len - got < piece ? len - got : piece;
        if (zpool_add(p, at, k) != 0) { printf("FAIL: %s: zpool_add\n", what); failures++; free(want); return; }
        memcpy(want + got, at, k);
        got += k;
        at += k + (gaps ? 4096 : 0);
    }
    if (zpool_finish(p) != 0) { printf("FAIL: %s: zpool_finish\n", what); failures++; free(want); return; }
    /* the frames, in order, each with its size */
    char *out = malloc(len ? len : 1);
    size_t o = 0, in = 0;
    unsigned frames = 0;
    while (in < c->len) {
        size_t cs = ZSTD_findFrameCompressedSize(c->buf + in, c->len - in);
        unsigned long long ds = ZSTD_getFrameContentSize(c->buf + in, c->len - in);
        if (ZSTD_isError(cs) || ds == ZSTD_CONTENTSIZE_UNKNOWN || ds == ZSTD_CONTENTSIZE_ERROR || o + ds > len) {
            printf("FAIL: %s: frame %u at %zu: bad header\n", what, frames, in);
            failures++;
            break;
        }
        size_t r = ZSTD_decompress(out + o, ds, c->buf + in, cs);
        if (ZSTD_isError(r) || r != ds) { printf("FAIL: %s: frame %u does not decompress\n", what, frames); failures++; break; }
        o += ds;
        in += cs;
        frames++;
    }
    if (o != len || memcmp(out, want, len) != 0) {
        printf("FAIL: %s: %zu bytes back of %zu, or different\n", what, o, len);
        failures++;
    }
    unsigned chunks = (unsigned)((len + ZPOOL_CHUNK - 1) / ZPOOL_CHUNK);
    if (!gaps && frames != chunks) {
        printf("FAIL: %s: %u frames, want %u\n", what, frames, chunks);
        failures++;
    }
    free(out);
    free(want);
}

int main(void)
{
    const size_t C = ZPOOL_CHUNK, K = 4096;
    size_t most = 3 * 2 * 3 * C + 64 * K + (3 * 2 * 3 * C / K) * K;       /* data plus gaps */
    char *src = malloc(most);
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < most; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        src[i] = (i / 64) % 3 ? (char)x : (char)(i / 4096);        /* partly compressible */
    }
    int checks = 0;
    for (int n = 2; n <= 3; n++) {
        size_t area_len = zpool_area_size(1, n);
        char *area = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (area == MAP_FAILED) { perror("mmap"); return 2; }
        static struct zpool pool;
        struct collected c = { 0 };
        char err[160];
        if (zpool_start(&pool, area, area_len, 1, n, sink, &c, err, sizeof err) != 0) { printf("FAIL: %s\n", err); return 1; }
        size_t slots = 2 * (size_t)n;
        struct { size_t len, piece; int gaps; } cases[] = {
            { K, K, 0 }, { C - K, 64 * K, 0 }, { C, C, 0 }, { C + K, 3 * K, 0 },
            { slots * C, C, 0 },             /* one chunk per slot, handed over whole */
            { slots * C, 7 * K, 0 },         /* the same in pieces */
            { slots * C + K, C, 0 }, { 3 * slots * C, 5 * C / 2, 0 },
            { 200 * K, K, 1 },               /* 200 runs apart: more than a frame's pieces (ZPOOL_SEGS) */
            { 2 * C, 16 * K, 1 },
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            char what[128];
            snprintf(what, sizeof what, "%d workers, %zu bytes in pieces of %zu%s", n, cases[i].len, cases[i].piece,
                     cases[i].gaps ? " with gaps" : "");
            region(&pool, &c, src, cases[i].len, cases[i].piece, cases[i].gaps, what);
            checks++;
        }
        zpool_stop(&pool);
        free(c.buf);
        munmap(area, area_len);
    }
    free(src);
    if (failures) { printf("%d of %d checks failed\n", failures, checks); return 1; }
    printf("ok: %d regions\n", checks);
    return 0;
}
