! bench_mpi_f - `make bench-mpi`'s Fortran figure (core-native/bench/bench_mpi.sh): a small-message
! (8 bytes) ping-pong through `use mpi_f08`, the binding with the most layers (Open MPI: mpi_f08 ->
! libmpi_mpifh -> the C library).  Rank 0 prints "f_rtt_us X": the round trip in microseconds.
!   bench_mpi_f N
program bench_mpi_f
  use mpi_f08
  implicit none
  integer :: rank, peer, i, n
  integer(8) :: buf
  character(len=32) :: arg
  double precision :: t0, t1

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  n = 1000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  peer = ieor(rank, 1)
  buf = 0
  call MPI_Barrier(MPI_COMM_WORLD)
  t0 = MPI_Wtime()
  do i = 1, n
    if (mod(rank, 2) == 0) then
      call MPI_Send(buf, 1, MPI_INTEGER8, peer, 0, MPI_COMM_WORLD)
      call MPI_Recv(buf, 1, MPI_INTEGER8, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    else
      call MPI_Recv(buf, 1, MPI_INTEGER8, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      call MPI_Send(buf, 1, MPI_INTEGER8, peer, 0, MPI_COMM_WORLD)
    end if
  end do
  t1 = MPI_Wtime()
  if (rank == 0) write (*, '(a,f0.3)') 'f_rtt_us ', (t1 - t0) * 1.0d6 / n
  call MPI_Finalize()
end program bench_mpi_f
