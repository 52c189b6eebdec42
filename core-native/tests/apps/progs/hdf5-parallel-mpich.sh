# Parallel HDF5 on MPICH (libhdf5-mpich, MPI-IO through ROMIO): hdf5-parallel.sh's program and checks,
# built with h5pcc.mpich and run on MPICH.
. "$(dirname -- "${BASH_SOURCE[0]}")/hdf5-parallel.sh"
APP_PACKAGES="libhdf5-mpich-dev hdf5-tools"
APP_MPI=mpich
APP_PROG=$APPS_BUILD/phdf5-mpich
app_build() { HDF5_CC=mpicc.mpich h5pcc.mpich -O2 -o "$APP_PROG" "$APPS_SRC/phdf5.c"; }
