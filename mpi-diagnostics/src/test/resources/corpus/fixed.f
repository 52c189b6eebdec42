C     Corpus: fixed-form Fortran (include 'mpif.h', column 6 continuation, column 72)
      PROGRAM FIXED
      INCLUDE 'mpif.h'
      INTEGER IERR, WIN
c     CALL MPI_WIN_FREE(WIN, IERR) is a comment line
*     so is this: CALL MPI_PUT()
      CALL MPI_INIT(IERR)
      CALL MPI_WIN_CREATE(0, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
     &                    WIN, IERR)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)                            MPI_PUT(1)
      CALLMPI_WIN_FENCE(0, WIN, IERR)
      CALL MPI_WIN_FREE(WIN,
     1  IERR)
! mana-lint: ignore MPI_File_close
      CALL MPI_FILE_CLOSE(WIN, IERR)
	CALL MPI_GET(0, 0, 0, 0, 0, 0, 0, WIN, IERR)
      CALL MPI_FINALIZE(IERR)
      END
