/*
 * mpitest.h - what the MPI checkpoint/restart test programs share.
 *
 *   PROGRAM --stop-file F [ARGS]   runs until told to stop: rank 0 prints "ready" after the first
 *                                  iteration; once F exists (it holds a number E), every rank stops
 *                                  E iterations after rank 0 first saw it.
 *   PROGRAM --iters K [ARGS]       runs exactly K iterations (the uninterrupted reference run).
 * Both end with rank 0 printing one line "NAME done: iters=K ..." that depends only on K, so the
 * harness (cr_mpi.sh) compares a checkpointed-and-restarted run with a native run of the same K.
 * Every iteration agrees on stopping through one MPI_Allreduce, in both modes alike.
 * With MT_PREINIT_HOLD_FILE naming a file that exists, every process says "holding before MPI_Init" and
 * waits, making no MPI call, until the file is gone (preinit.sh checkpoints it there).
 * Lines go out with one write(2) each (see tests/programs/README.md).
 */
#ifndef MANA_MPITEST_H
#define MANA_MPITEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((format(printf, 1, 2))) static inline void mt_out(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof line) n = sizeof line - 1;
    for (char *p = line; n > 0;) {
        ssize_t w = write(1, p, (size_t)n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) exit(3);
        p += w;
        n -= (int)w;
    }
}

__attribute__((noreturn, format(printf, 1, 2))) static inline void mt_fail(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    mt_out("FAIL: %s\n", line);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

struct mt_run {
    const char *stop_file;
    long iters;           /* fixed mode: K */
    long stop_at;         /* stop-file mode: set once rank 0 has seen the file */
    int rank, size;
    int argc;             /* program arguments after the mode */
    char **argv;
};

/* The launcher's rank of this process, before MPI_Init (Open MPI's mpirun, Hydra, Slurm), or -1. */
static inline int mt_launcher_rank(void)
{
    const char *names[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v) return atoi(v);
    }
    return -1;
}

/* MT_PREINIT_HOLD_FILE: wait before the first MPI call while that file exists (10 ms naps); with
 * MT_PREINIT_HOLD_RANK=R only the rank the launcher calls R waits. */
static inline void mt_preinit_hold(void)
{
    const char *f = getenv("MT_PREINIT_HOLD_FILE");
    const char *only = getenv("MT_PREINIT_HOLD_RANK");
    if (only && *only && atoi(only) != mt_launcher_rank()) return;
    if (!f || access(f, F_OK) != 0) return;
    mt_out("holding before MPI_Init\n");
    while (access(f, F_OK) == 0) {
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
}

/* level < 0: MPI_Init; else MPI_Init_thread, which must grant that level. */
static inline void mt_init_level(struct mt_run *r, int *argc, char ***argv, int level)
{
    mt_preinit_hold();
    if (level < 0) {
        if (MPI_Init(argc, argv) != MPI_SUCCESS) {
            fprintf(stderr, "MPI_Init failed\n");
            exit(2);
        }
    } else {
        int got = -1;
        MPI_Init_thread(argc, argv, level, &got);   /* mana-lint: ignore MPI_Init_thread (threads.c: the level is the test) */
        if (got != level) {
            fprintf(stderr, "MPI_Init_thread granted thread level %d, asked for %d\n", got, level);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    if (getenv("MT_SAY_INIT")) mt_out("rank %d in MPI\n", r->rank);   /* tests that need to know it has */
    r->stop_file = NULL;
    r->iters = 0;
    r->stop_at = -1;
    if (*argc >= 3 && strcmp((*argv)[1], "--stop-file") == 0) r->stop_file = (*argv)[2];
    else if (*argc >= 3 && strcmp((*argv)[1], "--iters") == 0) r->iters = strtol((*argv)[2], NULL, 10);
    else {
        if (r->rank == 0) fprintf(stderr, "usage: %s --stop-file F | --iters K [ARGS]\n", (*argv)[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    r->argc = *argc - 3;
    r->argv = *argv + 3;
}

static inline void mt_init(struct mt_run *r, int *argc, char ***argv) { mt_init_level(r, argc, argv, -1); }

/* Call after iteration `it` (1-based) is complete.  1: stop now (every rank agrees). */
static inline int mt_done(struct mt_run *r, long it)
{
    int stop = 0;
    if (r->rank == 0) {
        if (r->stop_file) {
            if (it == 1) mt_out("ready\n");
            if (r->stop_at < 0) {
                FILE *f = fopen(r->stop_file, "r");
                if (f) {
                    long extra = 0;
                    if (fscanf(f, "%ld", &extra) != 1) extra = 0;
                    fclose(f);
                    r->stop_at = it + extra;
                }
            }
            stop = r->stop_at >= 0 && it >= r->stop_at;
        } else {
            stop = it >= r->iters;
        }
    }
    int all = 0;
    MPI_Allreduce(&stop, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

/* FNV-1a over bytes, for checksums of program state. */
static inline uint64_t mt_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}
#define MT_HASH0 14695981039346656037ULL

/* Rank 0 prints the combined checksum of every rank's hash (gathered in rank order). */
static inline void mt_finish(struct mt_run *r, const char *name, long iters, uint64_t h)
{
    uint64_t *all = (uint64_t *)malloc(sizeof *all * (size_t)r->size);
    MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (r->rank == 0) {
        uint64_t t = mt_hash(MT_HASH0, all, sizeof *all * (size_t)r->size);
        mt_out("%s done: iters=%ld ranks=%d checksum=%016llx\n", name, iters, r->size, (unsigned long long)t);
    }
    free(all);
    MPI_Finalize();
}

#endif
