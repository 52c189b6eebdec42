! Corpus: use mpi_f08 (derived types are not functions)
program f08
  use mpi_f08
  implicit none
  type(MPI_Win) :: win
  type(MPI_Comm) :: comm
  type(MPI_Status) :: status
  integer :: n
  call MPI_Init()
  comm = MPI_COMM_WORLD
  call MPI_Comm_connect(8_MPI_ADDRESS_KIND, 1, MPI_INFO_NULL, comm, n, win)
  call MPI_Recv(n, 1, MPI_INTEGER, 0, 0, comm, status)
  call MPI_Finalize()
end program f08
