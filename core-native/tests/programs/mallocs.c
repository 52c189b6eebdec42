/*
 * mallocs [STEPS=60] [DELAY_MS=50] - malloc/free of small blocks (16 B ..
 * 4 KiB) and large ones (256 KiB .. 4 MiB, over the mmap threshold, so glibc
 * gives them their own mappings), chosen by a seeded generator.  Every block
 * is filled from the generator; each step frees or allocates in 64 slots and
 * prints "mallocs step S live=L bytes=B checksum=X" with X computed over all
 * live data (memory restored wrong changes it).  Final line:
 *   "mallocs done: steps=S live=L bytes=B checksum=X"
 */
#include <malloc.h>

#include "prog.h"

#define SLOTS 64

static unsigned char *blk[SLOTS];
static size_t len[SLOTS];

int main(int argc, char **argv)
{
    long steps = arg_long(argc, argv, 1, 60);
    long delay = arg_long(argc, argv, 2, 50);
    uint64_t seed = 0x9e3779b97f4a7c15ULL;

    /* Fix the threshold: glibc raises it dynamically after frees, which
     * would make "large" blocks land in the heap on some steps. */
    if (!mallopt(M_MMAP_THRESHOLD, 128 * 1024))
        fail("mallopt");

    for (long s = 1; s <= steps; s++) {
        for (int k = 0; k < 4; k++) {
            int i = (int)(rnd(&seed) % SLOTS);
            if (blk[i]) {
                free(blk[i]);
                blk[i] = NULL;
                len[i] = 0;
                continue;
            }
            uint64_t r = rnd(&seed);
            size_t n = (r & 7) == 0 ? 256 * 1024 + (r >> 8) % (4 * 1024 * 1024 - 256 * 1024)
                                    : 16 + (r >> 8) % 4080;
            blk[i] = malloc(n);
            if (!blk[i])
                fail("malloc(%zu)", n);
            len[i] = n;
            uint64_t fill = rnd(&seed);
            for (size_t b = 0; b < n; b += 8) {
                uint64_t v = rnd(&fill);
                memcpy(blk[i] + b, &v, n - b < 8 ? n - b : 8);
            }
        }
        uint64_t h = FNV_INIT;
        size_t live = 0, bytes = 0;
        for (int i = 0; i < SLOTS; i++)
            if (blk[i]) {
                h = fnv(h, blk[i], len[i]);
                live++;
                bytes += len[i];
            }
        out("mallocs step %ld live=%zu bytes=%zu checksum=%016llx\n", s, live, bytes,
            (unsigned long long)h);
        if (s == steps) {
            hold_before_done();
            out("mallocs done: steps=%ld live=%zu bytes=%zu checksum=%016llx\n", s, live, bytes,
                (unsigned long long)h);
        }
        sleep_ms(delay);
    }
    return 0;
}
