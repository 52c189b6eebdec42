/*
 * pairtest.h - what the two-rank programs of the script tests share (bottom.c, fin_wait.c, made_hold.c,
 * probe_hold.c; their NAME.sh drives them, not cr_mpi.sh): output lines of one write(2) each (the
 * scripts wait for them: see tests/programs/README.md), a failure that ends the job, MPI_Init with the
 * check for two ranks, and the wait for the go file a script creates when the program may go on.
 */
#ifndef MANA_PAIRTEST_H
#define MANA_PAIRTEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((format(printf, 1, 2))) static inline void pt_out(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof line) n = sizeof line - 1;
    if (write(1, line, (size_t)n) != n) exit(3);
}

/* "FAIL: ..." and the end of the job */
__attribute__((noreturn, format(printf, 1, 2))) static inline void pt_fail(const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    pt_out("FAIL: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* MPI_Init; the job must have two ranks and the program at least `args` arguments.  Returns the rank. */
static inline int pt_init(int *argc, char ***argv, const char *name, int args)
{
    MPI_Init(argc, argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || *argc < 1 + args) {
        if (rank == 0) pt_out("FAIL: %s needs 2 ranks%s\n", name, args ? " and a file name" : "");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return rank;
}

/* Wait outside MPI until `path` exists (120 s at most, then the job fails). */
static inline void pt_await_file(const char *path)
{
    struct timespec ts = { 0, 10000000 };
    for (int i = 0; access(path, F_OK) != 0; i++) {
        if (i == 12000) pt_fail("no %s within 120 s", path);
        nanosleep(&ts, NULL);
    }
}

#endif
