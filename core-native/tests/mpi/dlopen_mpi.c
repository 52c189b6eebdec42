/* dlopen_mpi LIBPATH - reaches MPI only through dlopen of LIBPATH by absolute path (as an interpreter's
 * MPI module may), then sums the ranks with MPI_Allreduce; rank 0 prints "dlopen_mpi: sum=S". */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: dlopen_mpi LIBPATH\n"); return 2; }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!h) { fprintf(stderr, "dlopen_mpi: %s\n", dlerror()); return 1; }
    int (*init)(int *, char ***) = (int (*)(int *, char ***))dlsym(h, "MPI_Init");
    int (*fin)(void) = (int (*)(void))dlsym(h, "MPI_Finalize");
    int (*rank)(void *, int *) = (int (*)(void *, int *))dlsym(h, "MPI_Comm_rank");
    int (*allreduce)(const void *, void *, int, void *, void *, void *) =
        (int (*)(const void *, void *, int, void *, void *, void *))dlsym(h, "MPI_Allreduce");
    if (!init || !fin || !rank || !allreduce) { fprintf(stderr, "dlopen_mpi: missing symbols\n"); return 1; }
    /* The predefined handles, as each ABI spells them: Open MPI's are addresses of exported objects,
     * MPICH's are constants. */
    void *world, *type_int, *op_sum;
    void *ow = dlsym(h, "ompi_mpi_comm_world");
    if (ow) {
        world = ow;
        type_int = dlsym(h, "ompi_mpi_int");
        op_sum = dlsym(h, "ompi_mpi_op_sum");
    } else {
        world = (void *)(long)0x44000000;      /* MPICH: MPI_COMM_WORLD */
        type_int = (void *)(long)0x4c000405;   /* MPI_INT */
        op_sum = (void *)(long)0x58000003;     /* MPI_SUM */
    }
    init(&argc, &argv);
    int me = 0, sum = 0;
    rank(world, &me);
    allreduce(&me, &sum, 1, type_int, op_sum, world);
    if (me == 0) printf("dlopen_mpi: sum=%d\n", sum);
    fflush(stdout);
    fin();
    return 0;
}
