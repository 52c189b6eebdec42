/*
 * bench_mpi - the MPI micro-benchmarks of `make bench-mpi`, run natively and under the runtime in the
 * same session (core-native/bench/bench_mpi.sh).  Rank 0 prints one "key value" line per figure.
 *   bench_mpi rtt N        small-message (8 bytes) ping-pong: round trip in microseconds
 *   bench_mpi allreduce N  1-int MPI_Allreduce: microseconds per call
 *   bench_mpi bw N         1 MiB ping-pong: MB/s (one direction)
 *   bench_mpi init         nothing but MPI_Init and MPI_Finalize (startup)
 *   bench_mpi rtt_c N      the small-message ping-pong with MPI 4.0's large-count MPI_Send_c/MPI_Recv_c
 *                          (prints rtt_c_us; where the MPI has no _c calls, rtt_c_us none)
 *   bench_mpi mt N         MPI_THREAD_MULTIPLE: 4 threads per rank, each a small-message ping-pong with
 *                          its partner thread on a communicator of its own, all at once: mt_rtt_us is
 *                          the wall time per round trip of one thread (all four run concurrently)
 *   bench_mpi io N         MPI-IO: N collective writes (MPI_File_write_at_all) of 4 MiB per rank into one
 *                          file through a view that interleaves the ranks' 64 KiB blocks, then N collective
 *                          reads back; io_write_mbs and io_read_mbs over all ranks (the file is in the page
 *                          cache: this measures the MPI-IO path, not the disk), then the file is deleted
 *   bench_mpi put N        one-sided: rank 0 puts into rank 1's window (MPI_Win_allocate) inside one
 *                          MPI_Win_lock_all epoch: put_us is an 8-byte MPI_Put completed by MPI_Win_flush
 *                          (latency), put_mbs 1 MiB puts each flushed (bandwidth, N/10 of them)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MT_THREADS 4

struct mt_arg { MPI_Comm comm; int rank; long n; };

static void *mt_pingpong(void *p)
{
    struct mt_arg *a = p;
    char buf[8] = { 0 };
    int peer = a->rank ^ 1;
    for (long i = 0; i < a->n; i++) {
        if (a->rank % 2 == 0) {
            MPI_Send(buf, 8, MPI_BYTE, peer, 0, a->comm);
            MPI_Recv(buf, 8, MPI_BYTE, peer, 0, a->comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, 8, MPI_BYTE, peer, 0, a->comm, MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_BYTE, peer, 0, a->comm);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "init";
    if (strcmp(what, "mt") == 0) {
        int got = 0;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &got);
        if (got != MPI_THREAD_MULTIPLE) {
            printf("mt_rtt_us none\n");
            MPI_Finalize();
            return 0;
        }
    } else {
        MPI_Init(&argc, &argv);
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
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
    } else if (strcmp(what, "rtt_c") == 0) {
#if MPI_VERSION >= 4
        char buf[8] = { 0 };
        for (int warm = 0; warm < 2; warm++) {
            long iters = warm ? n : n / 10 + 1;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (long i = 0; i < iters && peer < size; i++) {
                if (rank % 2 == 0) {
                    MPI_Send_c(buf, (MPI_Count)8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                    MPI_Recv_c(buf, (MPI_Count)8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv_c(buf, (MPI_Count)8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send_c(buf, (MPI_Count)8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                }
            }
            double t = MPI_Wtime() - t0;
            if (warm && rank == 0) printf("rtt_c_us %.3f\n", t / (double)iters * 1e6);
        }
#else
        if (rank == 0) printf("rtt_c_us none\n");
#endif
    } else if (strcmp(what, "mt") == 0) {
        MPI_Comm comms[MT_THREADS];
        struct mt_arg args[MT_THREADS];
        pthread_t th[MT_THREADS];
        for (int t = 0; t < MT_THREADS; t++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
        for (int warm = 0; warm < 2; warm++) {
            long iters = warm ? n : n / 10 + 1;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int t = 0; t < MT_THREADS; t++) {
                args[t] = (struct mt_arg){ comms[t], rank, peer < size ? iters : 0 };
                pthread_create(&th[t], NULL, mt_pingpong, &args[t]);
            }
            for (int t = 0; t < MT_THREADS; t++) pthread_join(th[t], NULL);
            double t = MPI_Wtime() - t0;
            if (warm && rank == 0) printf("mt_rtt_us %.3f\n", t / (double)iters * 1e6);
        }
        for (int t = 0; t < MT_THREADS; t++) MPI_Comm_free(&comms[t]);
    } else if (strcmp(what, "io") == 0) {
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        const int block = 16384, blocks = 64;          /* 64 KiB of ints, 64 of them: 4 MiB per rank per call */
        MPI_Datatype vec, tile;
        MPI_Type_vector(blocks, block, block * size, MPI_INT, &vec);
        MPI_Type_create_resized(vec, 0, (MPI_Aint)blocks * block * size * (MPI_Aint)sizeof(int), &tile);
        MPI_Type_commit(&tile);
        MPI_Type_free(&vec);
        int *buf = malloc((size_t)block * blocks * sizeof(int));
        for (long k = 0; k < (long)block * blocks; k++) buf[k] = (int)(k + rank);
        char name[64];
        int tag = (int)MPI_Wtime();
        MPI_Bcast(&tag, 1, MPI_INT, 0, MPI_COMM_WORLD);
        snprintf(name, sizeof name, "bench_io_%d.dat", tag);
        MPI_File f;
        MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &f);
        MPI_File_set_view(f, (MPI_Offset)rank * block * (MPI_Offset)sizeof(int), MPI_INT, tile, "native", MPI_INFO_NULL);
        double mb = (double)size * block * blocks * sizeof(int) * (double)n / 1e6;
        for (int pass = 0; pass < 2; pass++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (long i = 0; i < n; i++) {
                MPI_Status st;
                MPI_Offset at = (MPI_Offset)i * block * blocks;
                if (pass == 0) MPI_File_write_at_all(f, at, buf, block * blocks, MPI_INT, &st);
                else MPI_File_read_at_all(f, at, buf, block * blocks, MPI_INT, &st);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            double t = MPI_Wtime() - t0;
            if (rank == 0) printf("%s %.1f\n", pass == 0 ? "io_write_mbs" : "io_read_mbs", mb / t);
        }
        MPI_File_close(&f);
        MPI_Type_free(&tile);
        free(buf);
    } else if (strcmp(what, "put") == 0) {
        const size_t big = 1u << 20;
        char *base, *src = calloc(big, 1);
        MPI_Win win;
        MPI_Win_allocate((MPI_Aint)big, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        MPI_Win_lock_all(0, win);
        for (int kind = 0; kind < 2; kind++) {
            size_t len = kind == 0 ? 8 : big;
            long total = kind == 0 ? n : n / 10 + 1;
            for (int warm = 0; warm < 2; warm++) {
                long iters = warm ? total : total / 10 + 1;
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (long i = 0; i < iters && rank == 0 && peer < size; i++) {
                    MPI_Put(src, (int)len, MPI_BYTE, peer, 0, (int)len, MPI_BYTE, win);
                    MPI_Win_flush(peer, win);
                }
                double t = MPI_Wtime() - t0;
                MPI_Barrier(MPI_COMM_WORLD);
                if (warm && rank == 0) {
                    if (kind == 0) printf("put_us %.3f\n", t / (double)iters * 1e6);
                    else printf("put_mbs %.1f\n", (double)len * (double)iters / t / 1e6);
                }
            }
        }
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
        free(src);
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
