! Corpus: free-form Fortran (use mpi; mixed case; & continuations; strings; ';')
program free_form
  use mpi
  implicit none
  integer :: ierr, win, provided, rank
  character(len=40) :: msg = 'call MPI_Comm_spawn(x) ! not a call'
  character(len=40) :: two = "it""s MPI_Comm_join(" // 'MPI_Open_port('
  call mpi_init_thread(MPI_THREAD_SINGLE, &
       provided, ierr)
  call MPI_Init_Thread( &
       & mpi_thread_multiple, provided, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)  ! MPI_Comm_accept(win) in a comment
  call Mpi_Comm_spawn(0, 0, 1, MPI_INFO_NULL, &
                      MPI_COMM_WORLD, win, ierr)
  call mpi_lookup_name(0, win, ierr); call MPI_COMM_ACCEPT(win, ierr)
  call mpi_comm_join(0, 0, MPI_INTEGER, 0, 0, 0, MPI_INTEGER, win, ierr) ! mana-lint: ignore MPI_Comm_join
  ! mana-lint: ignore mpi_open_port
  call mpi_open_port(0, 0, MPI_INTEGER, 0, 0, 0, MPI_INTEGER, win, ierr)
  call MPI_Unheard_of(ierr)
  call pmpi_barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program free_form
