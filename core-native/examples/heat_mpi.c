/*
 * heat_mpi [STEPS=60] [DELAY_MS=100] - heat.c split across MPI ranks: each
 * rank owns a contiguous block of the 4096 cells and swaps one halo cell
 * with each neighbour (MPI_Sendrecv) before every sweep; the total comes
 * from MPI_Allreduce and rank 0 prints.  Every cell sees the same operations
 * in the same order as in heat.c, so the field, and with it the final
 * checksum (rank 0 gathers the field), is bitwise the serial one:
 *   "heat done: steps=N total=T checksum=X"
 * The demo runs it when MANA_DEMO_MPIRUN is set (e.g. "mpirun -n 2").  Tests that checkpoint it set
 * TEST_HOLD_FILE: every rank then waits before its last step until that file exists, so the job is
 * still running when it is checkpointed, however slow or fast the machine.
 * CELLS must be divisible by the number of ranks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CELLS 4096

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

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long steps = argc > 1 ? strtol(argv[1], NULL, 10) : 60;
    long delay = argc > 2 ? strtol(argv[2], NULL, 10) : 100;
    if (CELLS % size) {
        if (rank == 0)
            fprintf(stderr, "heat_mpi: %d cells do not split over %d ranks\n", CELLS, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int n = CELLS / size, lo = rank * n;
    const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    const double alpha = 0.25;
    /* u[0] and u[n + 1] are halo cells. */
    double *u = calloc((size_t)n + 2, sizeof *u), *v = calloc((size_t)n + 2, sizeof *v);
    double *all = rank == 0 ? calloc(CELLS, sizeof *all) : NULL;
    if (!u || !v || (rank == 0 && !all))
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < n; i++)
        if (lo + i >= CELLS / 2 - 8 && lo + i < CELLS / 2 + 8)
            u[i + 1] = 100.0;

    const char *hold = getenv("TEST_HOLD_FILE");
    for (long s = 1; s <= steps; s++) {
        while (s == steps && hold && *hold && access(hold, F_OK) != 0) {
            struct timespec w = {0, 10 * 1000000L};
            nanosleep(&w, NULL);
        }
        for (int k = 0; k < 100; k++) {
            MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 1; i <= n; i++) {
                int g = lo + i - 1;
                if (g == 0)
                    v[i] = u[i] + alpha * (u[i + 1] - u[i]);
                else if (g == CELLS - 1)
                    v[i] = u[i] + alpha * (u[i - 1] - u[i]);
                else
                    v[i] = u[i] + alpha * (u[i - 1] - 2 * u[i] + u[i + 1]);
            }
            memcpy(&u[1], &v[1], (size_t)n * sizeof *u);
        }
        MPI_Gather(&u[1], n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double total = 0;
            for (int i = 0; i < CELLS; i++)
                total += all[i];
            say("heat step %3ld/%ld: center=%9.5f near=%9.5f far=%9.5f total=%.6f\n", s, steps,
                all[CELLS / 2], all[CELLS / 2 + 24], all[CELLS / 2 + 96], total);
        }
        struct timespec ts = {delay / 1000, (delay % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
            ;
    }
    if (rank == 0) {
        uint64_t h = 14695981039346656037ULL;
        const unsigned char *b = (const unsigned char *)all;
        for (size_t i = 0; i < CELLS * sizeof *all; i++)
            h = (h ^ b[i]) * 1099511628211ULL;
        double total = 0;
        for (int i = 0; i < CELLS; i++)
            total += all[i];
        say("heat done: steps=%ld total=%.6f checksum=%016llx\n", steps, total, (unsigned long long)h);
    }
    MPI_Finalize();
    return 0;
}
