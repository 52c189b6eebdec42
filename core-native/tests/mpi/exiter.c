/* exiter - the mpitest.h protocol, then an exit the runtime must carry through both halves:
 * after MPI_Finalize the program's own exit handler prints a line through a fully buffered stdout
 * (it is out only if the upper stdio is flushed at exit), and every rank exits with status
 * EXIT_CODE (the first argument after the mode).  exit_mpi.sh checks the status, the line and
 * that the lower half's own exit handlers ran, at launch and after a restart. */
#include "mpitest.h"

static void program_handler(void)
{
    printf("exiter: the program's exit handler ran\n");     /* buffered: flushed at exit, or lost */
}

int main(int argc, char **argv)
{
    static char buf[4096];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    struct mt_run r;
    mt_init(&r, &argc, &argv);
    int code = r.argc > 0 ? atoi(r.argv[0]) : 0;
    double x = r.rank;
    uint64_t h = MT_HASH0;
    long it = 0;
    do {
        it++;
        double sum = 0;
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        x = sum * 0.5 + 1.0;
        h = mt_hash(h, &x, sizeof x);
    } while (!mt_done(&r, it));
    mt_finish(&r, "exiter", it, h);
    atexit(program_handler);
    exit(code);
}
