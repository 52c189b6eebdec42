/*
 * compute [ITERS=1000000000] - a CPU-bound loop (integer and floating point,
 * no system calls) for the runtime-overhead benchmark.  stdout:
 *   "compute done: iters=N result=X"   (deterministic)
 * stderr: "compute loop_s=T cpu_s=C": the loop's own wall time, and the CPU
 * time the whole process (every thread, the runtime's included) used during
 * it.  Both leave process start-up and the runtime's launch cost out; the
 * CPU time also stays meaningful on a machine shared with other work.
 */
#include "prog.h"

int main(int argc, char **argv)
{
    long n = arg_long(argc, argv, 1, 1000000000L);
    uint64_t x = 88172645463325252ULL;
    double f = 1.0;

    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        f = f * 0.999999 + (double)(x & 0xff) * 1e-9;
    }
    double t = now_s() - t0;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) / 1e9;
    out("compute done: iters=%ld result=%016llx %.6f\n", n, (unsigned long long)x, f);
    fprintf(stderr, "compute loop_s=%.6f cpu_s=%.6f\n", t, cpu);
    return 0;
}
