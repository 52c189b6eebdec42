/*
 * legacy.c - the MPI-1 functions MPI-3 removed that both libraries still export (MPI_Address,
 * MPI_Type_extent, _lb, _ub, MPI_Type_hindexed, _hvector, _struct, MPI_Errhandler_create, _get, _set).
 *
 * Many older C programs (and Fortran-era codes translated to C) still call them.  Each is the same
 * operation as its MPI-2 replacement, so each is written here on top of this library's wrapper of that
 * replacement (PMPI_Get_address, PMPI_Type_get_extent, PMPI_Type_create_hindexed...): the objects they
 * make are the replacement's, with its replay recipe, and nothing here is kept of its own.  The only
 * differences are of type: MPI-1 arrays are not const, and MPI_Handler_function is the communicator
 * error handler's function under its old name (Open MPI's mpi.h spells it so; MPICH's already declares
 * MPI_Errhandler_create with MPI_Comm_errhandler_function).
 */
/* Open MPI's mpi.h declares the removed functions only when asked (OMPI_OMIT_MPI1_COMPAT_DECLS=0). */
#define OMPI_OMIT_MPI1_COMPAT_DECLS 0
#include "mpi_int.h"

int PMPI_Address(void *location, MPI_Aint *address)
{
    return PMPI_Get_address(location, address);
}
ALIAS(Address)

int PMPI_Type_extent(MPI_Datatype type, MPI_Aint *extent)
{
    MPI_Aint lb;
    return PMPI_Type_get_extent(type, &lb, extent);
}
ALIAS(Type_extent)

int PMPI_Type_lb(MPI_Datatype type, MPI_Aint *lb)
{
    MPI_Aint extent;
    return PMPI_Type_get_extent(type, lb, &extent);
}
ALIAS(Type_lb)

/* The upper bound: the lower bound plus the extent (MPI-1's MPI_Type_ub). */
int PMPI_Type_ub(MPI_Datatype type, MPI_Aint *ub)
{
    MPI_Aint lb, extent;
    int rc = PMPI_Type_get_extent(type, &lb, &extent);
    if (rc == MPI_SUCCESS) *ub = lb + extent;
    return rc;
}
ALIAS(Type_ub)

int PMPI_Type_hindexed(int count, int blens[], MPI_Aint displs[], MPI_Datatype old, MPI_Datatype *out)
{
    return PMPI_Type_create_hindexed(count, blens, displs, old, out);
}
ALIAS(Type_hindexed)

int PMPI_Type_hvector(int count, int blen, MPI_Aint stride, MPI_Datatype old, MPI_Datatype *out)
{
    return PMPI_Type_create_hvector(count, blen, stride, old, out);
}
ALIAS(Type_hvector)

int PMPI_Type_struct(int count, int blens[], MPI_Aint displs[], MPI_Datatype types[], MPI_Datatype *out)
{
    return PMPI_Type_create_struct(count, blens, displs, types, out);
}
ALIAS(Type_struct)

#ifdef OPEN_MPI
int PMPI_Errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *eh)
#else
int PMPI_Errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh)
#endif
{
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn, eh);
}
ALIAS(Errhandler_create)

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *eh)
{
    return PMPI_Comm_get_errhandler(comm, eh);
}
ALIAS(Errhandler_get)

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler eh)
{
    return PMPI_Comm_set_errhandler(comm, eh);
}
ALIAS(Errhandler_set)
