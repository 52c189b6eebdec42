/*
 * data SIZE [SECONDS=0] [TICK_MS=0] - holds SIZE bytes of live data (suffix
 * K, M or G: 1M, 100M, 1G) in one anonymous mapping, every 8-byte word set
 * from its index (no zero pages: the image has to store all of it).
 * Prints "data ready size=S", then idles for SECONDS (0: until killed), in
 * steps of TICK_MS (default 100) printing "data tick K" when TICK_MS was
 * given, with a CLOCK_REALTIME stamp (the benchmark times a restart to the
 * first tick after it), then
 * checks every word and prints "data done: size=S checksum=X".
 */
#include <sys/mman.h>

#include "prog.h"

static uint64_t word(uint64_t i)
{
    uint64_t z = i + 0x9e3779b97f4a7c15ULL;     /* splitmix64: never 0 in practice */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        fail("bad size '%s'", s);
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    }
    if (*end || v < 8)
        fail("bad size '%s'", s);
    return (size_t)v & ~(size_t)7;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        fail("usage: data SIZE [SECONDS] [TICK_MS]");
    size_t size = parse_size(argv[1]);
    long seconds = arg_long(argc, argv, 2, 0);
    long tick_ms = arg_long(argc, argv, 3, 0);
    int ticks = tick_ms > 0;
    if (!ticks)
        tick_ms = 100;

    uint64_t *d = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (d == MAP_FAILED)
        fail("mmap %zu bytes: %s", size, strerror(errno));
    size_t words = size / 8;
    for (size_t i = 0; i < words; i++)
        d[i] = word(i);
    out("data ready size=%zu\n", size);

    double end = now_s() + (double)seconds;
    for (long k = 1; seconds == 0 || now_s() < end; k++) {
        sleep_ms(tick_ms);
        if (ticks) {
            /* Wall-clock stamp: the benchmark times a restart to this line
             * without polling error. */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            out("data tick %ld at_ns=%lld%09ld\n", k, (long long)ts.tv_sec, ts.tv_nsec);
        }
    }

    uint64_t h = FNV_INIT;
    for (size_t i = 0; i < words; i++) {
        if (d[i] != word(i))
            fail("word %zu changed", i);
        if ((i & 4095) == 0)
            h = fnv(h, &d[i], 8);
    }
    out("data done: size=%zu checksum=%016llx\n", size, (unsigned long long)h);
    return 0;
}
