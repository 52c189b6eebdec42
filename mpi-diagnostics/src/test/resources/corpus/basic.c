/* Corpus: C. Expected findings are in expected.txt (file:line:col severity rule function). */
#include <mpi.h>
#include <stdio.h>

/* MPI_Comm_spawn(...) in a block comment
   MPI_Open_port(...) on its second line */
// MPI_Win_test(...) in a line comment \
   MPI_Win_wait(...) still in it (spliced)

#define WINDOW(buf, w) MPI_Comm_spawn(buf, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, w)
#define FREE_IT MPI_Win_post
#define NESTED(w) WINDOW(NULL, w)
#define COMM MPI_COMM_WORLD

static const char *s = "MPI_Comm_spawn(\"quoted\") MPI_Win_test(";
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
    MPI_Win_start(0, win); // mana-lint: ignore MPI_Win_start
    // mana-lint: ignore MPI_Win_test, MPI_Win_wait
    MPI_Win_test(NULL, 0, MPI_INT, 0, 0, 0, MPI_INT, win); MPI_Win_wait(NULL, 0, MPI_INT, 0, 0, 0, MPI_INT, win);
    MPI_Comm_spawn(NULL, 0, MPI_INT, 0, 0, 0, MPI_INT, MPI_SUM, win); /* mana-lint: ignore */
    MPI_Win_\
wait(MPI_LOCK_SHARED, 0, 0, win);
    int (*fp)(MPI_Win *) = MPI_Win_post;
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Close_port(0, win);
    MPI_Mystery_call(1);
    MPI_CHECK_ERRORS(rank);
    printf("%s %c %c\n", s, q, r);
    MPI_Finalize();
    return fp == NULL;
}
