/*
 * bench_mpi - the MPI micro-benchmarks of `make bench-mpi`, run natively and under the runtime in the
 * same session (core-native/bench/bench_mpi.sh).  Rank 0 prints one "key value" line per figure.
 *   bench_mpi rtt N        small-message (8 bytes) ping-pong: round trip in microseconds
 *   bench_mpi allreduce N  1-int MPI_Allreduce: microseconds per call
 *   bench_mpi bw N         1 MiB ping-pong: MB/s (one direction)
 *   bench_mpi init         nothing but MPI_Init and MPI_Finalize (startup)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *what = argc > 1 ? argv[1] : "init";
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 1000;
    int peer = rank ^ 1;
    if (strcmp(what, "rtt") == 0 || strcmp(what, "bw") == 0) {
        size_t len = strcmp(what, "rtt") == 0 ? 8 : (1u << 20);
        char *buf = calloc(len, 1);
        for (int warm = 0; warm < 2; warm++) {
            long iters = warm ? n : n / 10 + 1;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (long i = 0; i < iters && peer < size; i++) {
                if (rank % 2 == 0) {
                    MPI_Send(buf, (int)len, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                    MPI_Recv(buf, (int)len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, (int)len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)len, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                }
            }
            double t = MPI_Wtime() - t0;
            if (warm && rank == 0) {
                if (len == 8) printf("rtt_us %.3f\n", t / (double)iters * 1e6);
                else printf("bw_mbs %.1f\n", 2.0 * (double)len * (double)iters / t / 1e6);
            }
        }
        free(buf);
    } else if (strcmp(what, "allreduce") == 0) {
        int x = rank, y = 0;
        for (int warm = 0; warm < 2; warm++) {
            long iters = warm ? n : n / 10 + 1;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (long i = 0; i < iters; i++) MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            double t = MPI_Wtime() - t0;
            if (warm && rank == 0) printf("allreduce_us %.3f\n", t / (double)iters * 1e6);
        }
    }
    MPI_Finalize();
    return 0;
}
