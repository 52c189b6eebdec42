/* Corpus: C. Expected findings are in expected.txt (file:line:col severity rule function). */
#include <mpi.h>
#include <stdio.h>

/* MPI_Win_create(...) in a block comment
   MPI_File_open(...) on its second line */
// MPI_Put(...) in a line comment \
   MPI_Get(...) still in it (spliced)

#define WINDOW(buf, w) MPI_Win_create(buf, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, w)
#define FREE_IT MPI_Win_free
#define NESTED(w) WINDOW(NULL, w)
#define COMM MPI_COMM_WORLD

static const char *s = "MPI_Win_create(\"quoted\") MPI_Put(";
static char q = '"';
static char r = '\'';

int main(int argc, char **argv)
{
    MPI_Win win;
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(COMM, &rank);
#if 0
    MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
#  if 1
    MPI_File_open(COMM, "f", 0, MPI_INFO_NULL, NULL);
#  endif
#else
    WINDOW(NULL, &win);
#endif
    NESTED(&win);
    FREE_IT(&win);
    MPI_Win_fence(0, win); // mana-lint: ignore MPI_Win_fence
    // mana-lint: ignore MPI_Put, MPI_Get
    MPI_Put(NULL, 0, MPI_INT, 0, 0, 0, MPI_INT, win); MPI_Get(NULL, 0, MPI_INT, 0, 0, 0, MPI_INT, win);
    MPI_Accumulate(NULL, 0, MPI_INT, 0, 0, 0, MPI_INT, MPI_SUM, win); /* mana-lint: ignore */
    MPI_Win_\
lock(MPI_LOCK_SHARED, 0, 0, win);
    int (*fp)(MPI_Win *) = MPI_Win_free;
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Win_unlock(0, win);
    MPI_Mystery_call(1);
    MPI_CHECK_ERRORS(rank);
    printf("%s %c %c\n", s, q, r);
    MPI_Finalize();
    return fp == NULL;
}
