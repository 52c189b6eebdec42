/* unsupported - calls MPI_Win_create, which the runtime cannot checkpoint: under the runtime the job
 * must end with "MANA: MPI_Win_create is not supported under checkpointing (...)" and a non-zero exit. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int buf[4];
    MPI_Win w;
    /* mana-lint: ignore MPI_Win_create (on purpose: the runtime must refuse it) */
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    printf("unsupported: MPI_Win_create returned\n");
    MPI_Win_free(&w); /* mana-lint: ignore MPI_Win_free */
    MPI_Finalize();
    return 0;
}
