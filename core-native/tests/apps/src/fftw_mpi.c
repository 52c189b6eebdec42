/* fftw_mpi.c - FFTW's MPI transforms (libfftw3-mpi): a 3-D complex field of 64^3 points distributed
 * over the ranks by slabs (fftw_mpi_local_size_3d), transformed forward and back N times (argv[1], default 40) with a
 * point-wise update between (a spectral diffusion step), so each step's result depends on the last.
 * Every 5 steps rank 0 prints the step and a global checksum (MPI_Allreduce); at the end the final
 * checksum.  Plans use FFTW_ESTIMATE, so the arithmetic is the same in every run on the same ranks. */
#include <fftw3-mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const ptrdiff_t N0 = 64, N1 = 64, N2 = 64;
    int steps = argc > 1 ? atoi(argv[1]) : 40, rank;
    ptrdiff_t local_n0, local_0_start;
    MPI_Init(&argc, &argv);
    fftw_mpi_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ptrdiff_t alloc = fftw_mpi_local_size_3d(N0, N1, N2, MPI_COMM_WORLD, &local_n0, &local_0_start);
    fftw_complex *data = fftw_alloc_complex(alloc);
    fftw_plan fwd = fftw_mpi_plan_dft_3d(N0, N1, N2, data, data, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan bwd = fftw_mpi_plan_dft_3d(N0, N1, N2, data, data, MPI_COMM_WORLD, FFTW_BACKWARD, FFTW_ESTIMATE);
    for (ptrdiff_t i = 0; i < local_n0; i++)
        for (ptrdiff_t j = 0; j < N1; j++)
            for (ptrdiff_t k = 0; k < N2; k++) {
                ptrdiff_t g = ((local_0_start + i) * N1 + j) * N2 + k, l = (i * N1 + j) * N2 + k;
                data[l][0] = sin(0.001 * (double)g) + (double)((g * 7919) % 113) / 113.0;
                data[l][1] = cos(0.002 * (double)g);
            }
    double sums[2], all[2];
    for (int s = 1; s <= steps; s++) {
        fftw_execute(fwd);
        for (ptrdiff_t i = 0; i < local_n0; i++)
            for (ptrdiff_t j = 0; j < N1; j++)
                for (ptrdiff_t k = 0; k < N2; k++) {
                    ptrdiff_t l = (i * N1 + j) * N2 + k, ki = local_0_start + i;
                    double kk = (double)((ki < N0 / 2 ? ki : ki - N0) * (ki < N0 / 2 ? ki : ki - N0) +
                                         (j < N1 / 2 ? j : j - N1) * (j < N1 / 2 ? j : j - N1) +
                                         (k < N2 / 2 ? k : k - N2) * (k < N2 / 2 ? k : k - N2));
                    double f = exp(-1e-4 * kk) / (double)(N0 * N1 * N2);
                    data[l][0] *= f;
                    data[l][1] *= f;
                }
        fftw_execute(bwd);
        sums[0] = sums[1] = 0;
        for (ptrdiff_t l = 0; l < local_n0 * N1 * N2; l++) {
            sums[0] += data[l][0] * data[l][0] + data[l][1] * data[l][1];
            sums[1] += fabs(data[l][0]) * (double)(l % 17);
        }
        MPI_Allreduce(sums, all, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0 && s % 5 == 0) {
            printf("step %d energy %.17g weighted %.17g\n", s, all[0], all[1]);
            fflush(stdout);
        }
    }
    if (rank == 0) printf("done: steps=%d energy %.17g weighted %.17g\n", steps, all[0], all[1]);
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
    fftw_free(data);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return 0;
}
