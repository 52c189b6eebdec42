/*
 * test_zstd_crc - mana_zstd_crc (src/lower-half/image_check.c), the one decompressor of image payloads
 * (lower-half --check and the restore), on single zstd frames as the image writer makes them (one frame
 * per region, or several concatenated when the writer's threads compress it in chunks): every output size
 * around the decompressor's 128 KiB output buffer, compressible and not, in 1, 2 and 7 frames.
 * A frame that ends exactly when the output buffer is full (a region of 128 KiB stored, or a multiple)
 * was reported as "the last frame is cut short"; a frame really cut short must still be refused.
 */
#include "image_check.h"
#include "mana_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

static int failures;

/* Writes `n` bytes compressed as `frames` concatenated frames to a temp file; checks mana_zstd_crc over
 * `cut` bytes less (and that it counted the frames). */
static void one(size_t n, int compressible, size_t cut, int frames)
{
    unsigned char *src = malloc(n ? n : 1);
    uint64_t x = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        src[i] = compressible ? (unsigned char)(i / 4096) : (unsigned char)x;
    }
    size_t cap = ZSTD_compressBound(n) * (size_t)frames, zn = 0, piece = n / (size_t)frames;
    char *z = malloc(cap);
    for (int f = 0; f < frames; f++) {
        size_t from = piece * (size_t)f, len = f == frames - 1 ? n - from : piece;
        size_t k = ZSTD_compress(z + zn, cap - zn, src + from, len, 1);
        if (ZSTD_isError(k)) { fprintf(stderr, "compress: %s\n", ZSTD_getErrorName(k)); exit(2); }
        zn += k;
    }
    char path[] = "/tmp/test_zstd_crc.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, z, zn) != (ssize_t)zn) { perror("temp file"); exit(2); }
    unlink(path);
    struct mana_image im;
    memset(&im, 0, sizeof im);
    im.fd = fd;
    im.path = "frame";
    im.size = zn;
    uint32_t crc = 0;
    uint64_t out = 0;
    int rc = mana_zstd_crc(&im, 0, zn - cut, &crc, &out, NULL, NULL);
    const char *kind = compressible ? "compressible" : "random";
    if (cut) {
        if (rc == 0) { printf("FAIL: %zu %s bytes in %d frames, cut by %zu: accepted\n", n, kind, frames, cut); failures++; }
    } else if (rc != 0) {
        printf("FAIL: %zu %s bytes in %d frames: %s\n", n, kind, frames, im.err);
        failures++;
    } else if (out != n || crc != mana_crc32c_update(0, src, n)) {
        printf("FAIL: %zu %s bytes in %d frames: %llu bytes out, crc %08x\n", n, kind, frames, (unsigned long long)out, crc);
        failures++;
    } else if (im.zframes != (uint64_t)frames) {
        printf("FAIL: %zu %s bytes in %d frames: %llu frames counted\n", n, kind, frames, (unsigned long long)im.zframes);
        failures++;
    }
    close(fd);
    free(z);
    free(src);
}

int main(void)
{
    const size_t K = 1024;
    size_t sizes[] = { 4 * K, 124 * K, 128 * K - 1, 128 * K, 128 * K + 1, 132 * K, 256 * K, 384 * K, 1024 * K,
                       1024 * K + 4 * K };
    int checks = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        for (int c = 0; c < 2; c++) {
            for (int f = 1; f <= 7; f += f < 2 ? 1 : 5) {    /* 1, 2 and 7 frames */
                one(sizes[i], c, 0, f);
                one(sizes[i], c, 1, f);
                checks += 2;
            }
        }
    }
    if (failures) { printf("%d of %d checks failed\n", failures, checks); return 1; }
    printf("ok: %d checks\n", checks);
    return 0;
}
