/*
 * test_zstd_crc - mana_zstd_crc (src/lower-half/image_check.c), the one decompressor of image payloads
 * (lower-half --check and the restore), on single zstd frames as the image writer makes them (one frame
 * per region): every output size around the decompressor's 128 KiB output buffer, compressible and not.
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

/* Writes `n` bytes compressed as one frame to a temp file; checks mana_zstd_crc over `cut` bytes less. */
static void one(size_t n, int compressible, size_t cut)
{
    unsigned char *src = malloc(n ? n : 1);
    uint64_t x = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        src[i] = compressible ? (unsigned char)(i / 4096) : (unsigned char)x;
    }
    size_t cap = ZSTD_compressBound(n);
    void *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, src, n, 1);
    if (ZSTD_isError(zn)) { fprintf(stderr, "compress: %s\n", ZSTD_getErrorName(zn)); exit(2); }
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
        if (rc == 0) { printf("FAIL: %zu %s bytes, frame cut by %zu: accepted\n", n, kind, cut); failures++; }
    } else if (rc != 0) {
        printf("FAIL: %zu %s bytes: %s\n", n, kind, im.err);
        failures++;
    } else if (out != n || crc != mana_crc32c_update(0, src, n)) {
        printf("FAIL: %zu %s bytes: %llu bytes out, crc %08x\n", n, kind, (unsigned long long)out, crc);
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
            one(sizes[i], c, 0);
            one(sizes[i], c, 1);
            checks += 2;
        }
    }
    if (failures) { printf("%d of %d checks failed\n", failures, checks); return 1; }
    printf("ok: %d checks\n", checks);
    return 0;
}
