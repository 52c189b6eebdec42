/* Corpus: C. Expected findings are in expected.txt (file:line:col severity rule function). */
#include <mpi.h>
#include <stdio.h>

/* MPI_Comm_spawn(...) in a block comment
   MPI_Open_port(...) on its second line */
// MPI_Comm_join(...) in a line comment \
   MPI_Open_port(...) still in it (spliced)

#define WINDOW(buf, w) MPI_Comm_spawn(buf, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, w)
#define FREE_IT MPI_Comm_accept
#define NESTED(w) WINDOW(NULL, w)
#define COMM MPI_COMM_WORLD

static const char *s = "MPI_Comm_spawn(\"quoted\") MPI_Comm_join(";
static char q = '"';
static char r = '\'';

int main(int argc, char **argv)
{
    MPI_Win win;
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(COMM, &rank);
#if 0
    MPI_Comm_spawn(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
#  if 1
    MPI_Open_port(COMM, "f", 0, MPI_INFO_NULL, NULL);
#  endif
#else
    WINDOW(NULL, &win);
#endif
    NESTED(&win);
    FREE_IT(&win);
    MPI_Lookup_name(0, win); // mana-lint: ignore MPI_Lookup_name
    // mana-lint: ignore MPI_Comm_join, MPI_Open_port
    MPI_Comm_join(NULL, 0, MPI_INT, 0, 0, 0, MPI_INT, win); MPI_Open_port(NULL, 0, MPI_INT, 0, 0, 0, MPI_INT, win);
    MPI_Comm_spawn(NULL, 0, MPI_INT, 0, 0, 0, MPI_INT, MPI_SUM, win); /* mana-lint: ignore */
    MPI_Open_\
port(MPI_LOCK_SHARED, 0, 0, win);
    int (*fp)(MPI_Win *) = MPI_Comm_accept;
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Close_port(0, win);
    MPI_Mystery_call(1);
    MPI_CHECK_ERRORS(rank);
    printf("%s %c %c\n", s, q, r);
    MPI_Finalize();
    return fp == NULL;
}
