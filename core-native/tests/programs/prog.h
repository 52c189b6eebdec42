/*
 * prog.h - helpers shared by the test programs.
 *
 * Every line goes out with ONE write(2) and no stdio buffer.  A checkpoint
 * that lands between printf() and the flush would otherwise keep the line in
 * the image's memory: the original process flushes it, the restarted one
 * flushes it again, and the combined output shows a repeat that the program
 * never made.  With one write per line, a line is either out before the
 * checkpoint or printed after the restart, never both.
 */
#ifndef MANA_TEST_PROG_H
#define MANA_TEST_PROG_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((format(printf, 1, 2))) static inline void out(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    for (char *p = line; n > 0;) {
        ssize_t w = write(1, p, (size_t)n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            exit(3);        /* stdout is gone: nobody can check us anyway */
        p += w;
        n -= (int)w;
    }
}

__attribute__((noreturn, format(printf, 1, 2))) static inline void fail(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    out("FAIL: %s\n", line);
    exit(1);
}

/* Sleep the whole time even when signals (timers) interrupt it. */
static inline void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Tests that must checkpoint mid-run set TEST_HOLD_FILE: the program then waits before its final
 * line until that file exists, so however fast the machine, it is still running when the harness
 * checkpoints it, and it ends only when told to.  A restarted program holds the same way (its
 * environment comes back with it).  Without the variable (uninterrupted reference runs) nothing waits.
 */
static inline void hold_before_done(void)
{
    const char *f = getenv("TEST_HOLD_FILE");
    if (!f || !*f)
        return;
    while (access(f, F_OK) != 0)
        sleep_ms(10);
}

/* A non-negative integer argument, or the default when absent. */
static inline long arg_long(int argc, char **argv, int i, long dflt)
{
    if (i >= argc)
        return dflt;
    char *end;
    errno = 0;
    long v = strtol(argv[i], &end, 10);
    if (errno || end == argv[i] || *end || v < 0)
        fail("bad argument '%s'", argv[i]);
    return v;
}

/* FNV-1a, 64-bit: a checksum that any byte change moves. */
static inline uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h;
}
#define FNV_INIT 14695981039346656037ULL

/* xorshift64*: deterministic pseudo-random numbers; the state is data. */
static inline uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

#endif
