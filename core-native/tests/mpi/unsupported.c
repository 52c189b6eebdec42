/* unsupported - calls MPI_Open_port (dynamic processes), which the runtime cannot checkpoint: under the
 * runtime the job must end with "MANA: MPI_Open_port is not supported under checkpointing (...)" and a
 * non-zero exit. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char port[MPI_MAX_PORT_NAME];
    /* mana-lint: ignore MPI_Open_port (on purpose: the runtime must refuse it) */
    MPI_Open_port(MPI_INFO_NULL, port);
    printf("unsupported: MPI_Open_port returned\n");
    MPI_Close_port(port); /* mana-lint: ignore MPI_Close_port */
    MPI_Finalize();
    return 0;
}
