/*
 * compute [ITERS=1000000000] - a CPU-bound loop (integer and floating point,
 * no system calls) for the runtime-overhead benchmark.  stdout:
 *   "compute done: iters=N result=X"   (deterministic)
 * stderr: "compute loop_s=T" (the loop's own wall time, so process start-up
 * and the runtime's launch cost stay out of the comparison).
 */
#include "prog.h"

int main(int argc, char **argv)
{
    long n = arg_long(argc, argv, 1, 1000000000L);
    uint64_t x = 88172645463325252ULL;
    double f = 1.0;

    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        f = f * 0.999999 + (double)(x & 0xff) * 1e-9;
    }
    double t = now_s() - t0;
    out("compute done: iters=%ld result=%016llx %.6f\n", n, (unsigned long long)x, f);
    fprintf(stderr, "compute loop_s=%.6f\n", t);
    return 0;
}
