/*
 * vecregs.c - threads that keep their whole state in vector registers (AVX-512 where the CPU has it,
 * else AVX2, else SSE2) for seconds at a time.  A checkpoint lands in the middle of the loops; the
 * final line is only right if every register of every thread came back exactly.
 *   vecregs [ITERS=400000000]
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NT 6
static double res[NT];
static long iters = 400000000;

__attribute__((target("avx512f"))) static double run512(long id)
{
    __m512d acc = _mm512_set1_pd((double)id), inc = _mm512_set_pd(1e-9, 2e-9, 3e-9, 4e-9, 5e-9, 6e-9, 7e-9, 8e-9);
    __m512d mul = _mm512_set1_pd(0.9999999);
    for (long i = 0; i < iters; i++) acc = _mm512_fmadd_pd(acc, mul, inc);
    double o[8];
    _mm512_storeu_pd(o, acc);
    return o[0] + 3 * o[1] + 7 * o[7];
}

__attribute__((target("avx2,fma"))) static double run256(long id)
{
    __m256d acc = _mm256_set1_pd((double)id), inc = _mm256_set_pd(1e-9, 2e-9, 3e-9, 4e-9);
    __m256d mul = _mm256_set1_pd(0.9999999);
    for (long i = 0; i < iters; i++) acc = _mm256_fmadd_pd(acc, mul, inc);
    double o[4];
    _mm256_storeu_pd(o, acc);
    return o[0] + 3 * o[1] + 7 * o[3];
}

static double run128(long id)
{
    __m128d acc = _mm_set1_pd((double)id), inc = _mm_set_pd(1e-9, 2e-9), mul = _mm_set1_pd(0.9999999);
    for (long i = 0; i < iters; i++) acc = _mm_add_pd(_mm_mul_pd(acc, mul), inc);
    double o[2];
    _mm_storeu_pd(o, acc);
    return o[0] + 3 * o[1];
}

static int level;

static void *work(void *arg)
{
    long id = (long)arg;
    res[id] = level == 2 ? run512(id) : level == 1 ? run256(id) : run128(id);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) iters = atol(argv[1]);
    level = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
    pthread_t t[NT];
    for (long i = 0; i < NT; i++) pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < NT; i++) pthread_join(t[i], NULL);
    /* With a GO file, the result waits until the harness says so: a checkpoint taken after the
     * launch is always taken before the end, however fast the machine computes. */
    if (argc > 2)
        while (access(argv[2], F_OK) != 0) {
            struct timespec ts = { 0, 10000000 };
            nanosleep(&ts, NULL);
        }
    double s = 0;
    for (int i = 0; i < NT; i++) s += res[i] * (i + 1);
    char line[128];
    int n = snprintf(line, sizeof line, "vecregs done: level=%d sum=%.17g\n", level, s);
    return write(1, line, (size_t)n) == n ? 0 : 1;
}
