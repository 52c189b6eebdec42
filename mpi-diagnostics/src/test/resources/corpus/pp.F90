! Corpus: preprocessed free-form Fortran
program pp
  use mpi
  integer :: ierr, fh
  call MPI_Init(ierr)
#if 0
  call MPI_Open_port(MPI_COMM_WORLD, 'x', 0, MPI_INFO_NULL, fh, ierr)
#else
  call MPI_Close_port(fh, ierr)
#endif
  call MPI_Finalize(ierr)
end program pp
