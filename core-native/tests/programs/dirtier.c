/*
 * dirtier SIZE DIR [mixed] - SIZE bytes of live data (K, M, G suffix) that change on request, and the
 * longest pause the program saw (for make bench-process: incremental and compressed checkpoints).
 *
 * Every word is set from its index (no zero page): a hash of it, which no compressor shrinks, or with
 * `mixed` every other word a small count (index / 64), as arrays of indices and flags beside values
 * are: zstd makes that about 2x smaller.  The main loop sleeps 1 ms per iteration and keeps
 * the longest gap between two iterations: a checkpoint that stops the program shows up there.  Between
 * iterations it looks for DIR/req_K (K = 1, 2, ...), reads its one line and answers "done K ...":
 *   dirty P   change one word in P % of the pages (every 100/P-th page; P in 1..100, 0: none)
 *   reset     forget the longest gap so far
 *   report    "done K maxgap_us=G": the longest gap since the last reset
 * A gap longer than 200 ms (a restart) prints "resumed at_ns=T" (CLOCK_REALTIME) when the loop
 * goes on, so that a benchmark can time a restart to it.
 */
#include <sys/mman.h>

#include "prog.h"

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3 && !(argc == 4 && strcmp(argv[3], "mixed") == 0))
        fail("usage: dirtier SIZE DIR [mixed]");
    int mixed = argc == 4;
    char *end;
    unsigned long long size = strtoull(argv[1], &end, 10);
    if (*end == 'K' || *end == 'k') size <<= 10;
    else if (*end == 'M' || *end == 'm') size <<= 20;
    else if (*end == 'G' || *end == 'g') size <<= 30;
    size &= ~4095ULL;
    if (!size)
        fail("bad size '%s'", argv[1]);
    const char *dir = argv[2];
    uint64_t *d = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (d == MAP_FAILED)
        fail("mmap: %s", strerror(errno));
    uint64_t words = size / 8, pages = size / 4096;
    for (uint64_t i = 0; i < words; i++)
        d[i] = mixed && !(i & 1) ? (i >> 6) + 1 : i * 0x9e3779b97f4a7c15ULL + 1;
    out("dirtier ready size=%llu\n", size);
    int64_t prev = mono_ns(), maxgap = 0;
    for (unsigned k = 1;;) {
        sleep_ms(1);
        int64_t now = mono_ns(), gap = now - prev;
        prev = now;
        if (gap > maxgap)
            maxgap = gap;
        if (gap > 200000000LL) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            out("resumed at_ns=%lld%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
        }
        char path[4200], line[64];
        snprintf(path, sizeof path, "%s/req_%u", dir, k);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (!fgets(line, sizeof line, f)) {
            fclose(f);                 /* being written: next time */
            continue;
        }
        fclose(f);
        int pct;
        if (sscanf(line, "dirty %d", &pct) == 1 && pct >= 0 && pct <= 100) {
            uint64_t n = 0;
            if (pct > 0)
                for (uint64_t p = 0; p < pages; p += (uint64_t)(100 / pct)) {
                    d[p * 512 + (k % 512)] ^= 0x5555555555555555ULL;
                    n++;
                }
            out("done %u dirtied=%llu\n", k, (unsigned long long)n);
        } else if (strncmp(line, "reset", 5) == 0) {
            maxgap = 0;
            out("done %u\n", k);
        } else if (strncmp(line, "report", 6) == 0) {
            out("done %u maxgap_us=%lld\n", k, (long long)(maxgap / 1000));
        } else {
            fail("bad request '%s'", line);
        }
        prev = mono_ns();              /* the request's own work is not a pause */
        k++;
    }
}
