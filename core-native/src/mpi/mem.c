/*
 * mem.c - MPI_Alloc_mem and MPI_Free_mem.
 *
 * The real MPI would allocate in the lower half, which a checkpoint does not save and a restart
 * builds anew: memory the program keeps in such a buffer would be gone after a restart.  The upper
 * half's malloc gives memory that is saved and restored with the rest of the program.  The info hints
 * (e.g. MPI's "mpi_minimum_memory_alignment") only tune the real allocator; glibc's malloc already
 * aligns to 16 bytes, and larger alignments requested through the hint are honoured below.
 */
#include "mpi_int.h"

#include <stdlib.h>
#include <string.h>

/* The alignment the program asks for with the MPI 4.1 hint, 0 if none (or no valid one). */
static size_t wanted_alignment(MPI_Info info)
{
    if (info == MPI_INFO_NULL) return 0;
    char v[32];
    int flag = 0;
    if (PMPI_Info_get(info, "mpi_minimum_memory_alignment", (int)sizeof v - 1, v, &flag) != MPI_SUCCESS || !flag)
        return 0;
    char *end;
    unsigned long a = strtoul(v, &end, 10);
    if (*end || a < sizeof(void *) || (a & (a - 1))) return 0;
    return a;
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    MANA_CHECK_INIT();
    if (size < 0) return MPI_ERR_SIZE;
    size_t align = wanted_alignment(info);
    void *p = NULL;
    if (align > 16) {
        if (posix_memalign(&p, align, size ? (size_t)size : 1) != 0) p = NULL;
    } else {
        p = malloc(size ? (size_t)size : 1);
    }
    if (!p) return MPI_ERR_NO_MEM;
    memcpy(baseptr, &p, sizeof p);          /* baseptr is a void ** passed as void * */
    return MPI_SUCCESS;
}
ALIAS(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    MANA_CHECK_INIT();
    free(base);
    return MPI_SUCCESS;
}
ALIAS(Free_mem)
