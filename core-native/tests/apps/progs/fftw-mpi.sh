# FFTW's MPI transforms (libfftw3-mpi, Debian's build on Open MPI): our src/fftw_mpi.c, a 64^3
# complex field in slabs, 150 forward/backward 3-D transforms (fftw_mpi_plan_dft_3d: the transposes
# are MPI_Alltoall(v)), a checksum every 5 steps (MPI_Allreduce).
APP_PACKAGES="libfftw3-mpi-dev libfftw3-dev"
APP_MPI=openmpi
APP_PROG=$APPS_BUILD/fftw_mpi
APP_ARGS=(150)
APP_EVENT="^step 50 "
APP_DONE='^done:'
app_build() { mpicc.openmpi -O2 -o "$APP_PROG" "$APPS_SRC/fftw_mpi.c" -lfftw3_mpi -lfftw3 -lm; }
app_setup() { :; }
app_result() { grep -a -E '^(step|done:) ' out.txt; }
