/*
 * heat [STEPS=60] [DELAY_MS=100] - the demo's example program: explicit 1-D
 * heat diffusion on 4096 cells with a hot spot in the middle.  Prints one
 * line per step (the temperature at a few probes and the total heat, which
 * diffusion conserves) and ends with
 *   "heat done: steps=N total=T checksum=X"
 * All state is in memory and each line is one write(2) (no stdio buffer to
 * be flushed twice around a checkpoint), so a run that is checkpointed,
 * killed and restarted ends with exactly the line of an uninterrupted run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CELLS 4096

static double u[CELLS], v[CELLS];

static void say(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof line)
        n = sizeof line - 1;
    for (char *p = line; n > 0;) {
        ssize_t w = write(1, p, (size_t)n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            exit(3);
        p += w;
        n -= (int)w;
    }
}

static long arg(int argc, char **argv, int i, long dflt)
{
    if (i >= argc)
        return dflt;
    char *end;
    long x = strtol(argv[i], &end, 10);
    if (*end || x < 0) {
        fprintf(stderr, "heat: bad argument '%s'\n", argv[i]);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    long steps = arg(argc, argv, 1, 60);
    long delay = arg(argc, argv, 2, 100);
    const double alpha = 0.25;          /* stable for the explicit scheme (< 0.5) */

    for (int i = CELLS / 2 - 8; i < CELLS / 2 + 8; i++)
        u[i] = 100.0;

    for (long s = 1; s <= steps; s++) {
        /* 100 sweeps per printed step; insulated ends (heat is conserved). */
        for (int k = 0; k < 100; k++) {
            v[0] = u[0] + alpha * (u[1] - u[0]);
            for (int i = 1; i < CELLS - 1; i++)
                v[i] = u[i] + alpha * (u[i - 1] - 2 * u[i] + u[i + 1]);
            v[CELLS - 1] = u[CELLS - 1] + alpha * (u[CELLS - 2] - u[CELLS - 1]);
            memcpy(u, v, sizeof u);
        }
        double total = 0;
        for (int i = 0; i < CELLS; i++)
            total += u[i];
        say("heat step %3ld/%ld: center=%9.5f near=%9.5f far=%9.5f total=%.6f\n", s, steps,
            u[CELLS / 2], u[CELLS / 2 + 24], u[CELLS / 2 + 96], total);
        struct timespec ts = {delay / 1000, (delay % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
            ;
    }

    uint64_t h = 14695981039346656037ULL;          /* FNV-1a over the final field */
    const unsigned char *b = (const unsigned char *)u;
    for (size_t i = 0; i < sizeof u; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    double total = 0;
    for (int i = 0; i < CELLS; i++)
        total += u[i];
    say("heat done: steps=%ld total=%.6f checksum=%016llx\n", steps, total, (unsigned long long)h);
    return 0;
}
