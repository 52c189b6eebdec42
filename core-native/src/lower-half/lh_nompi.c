/* lh_nompi.c - the plain bin/lower-half has no MPI: an MPI program or image goes to the lower half
 * built against its MPI (main.c re-executes bin/lower-half-<mpi>). */
#include "lower_half.h"

const char lh_mpi_name[] = "none";

int lh_mpi_init(void) { return 0; }
