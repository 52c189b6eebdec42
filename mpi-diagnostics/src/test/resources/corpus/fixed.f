C     Corpus: fixed-form Fortran (include 'mpif.h', column 6 continuation, column 72)
      PROGRAM FIXED
      INCLUDE 'mpif.h'
      INTEGER IERR, WIN
c     CALL MPI_COMM_ACCEPT(WIN, IERR) is a comment line
*     so is this: CALL MPI_COMM_JOIN()
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_SPAWN(0, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
     &                    WIN, IERR)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)                            MPI_COMM_JOIN(1)
      CALLMPI_LOOKUP_NAME(0, WIN, IERR)
      CALL MPI_COMM_ACCEPT(WIN,
     1  IERR)
! mana-lint: ignore MPI_Close_port
      CALL MPI_CLOSE_PORT(WIN, IERR)
	CALL MPI_OPEN_PORT(0, 0, 0, 0, 0, 0, 0, WIN, IERR)
      CALL MPI_FINALIZE(IERR)
      END
