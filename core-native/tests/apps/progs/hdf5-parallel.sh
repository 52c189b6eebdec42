# Parallel HDF5 (libhdf5-openmpi, MPI-IO driver): our src/phdf5.c, built with h5pcc.openmpi; every
# step a collective write of each rank's hyperslab into one shared file, a read back and a checksum.
APP_PACKAGES=libhdf5-openmpi-dev
APP_MPI=openmpi
APP_PROG=$APPS_BUILD/phdf5
APP_ARGS=(60)
APP_EVENT='^step 20 '
APP_DONE='^done:'
APP_EXPECT=known-failure
APP_REASON='MPI-IO: H5Fcreate opens the file with MPI_File_open, which the runtime refuses (MPI-IO cannot be checkpointed yet)'
APP_REASON_RE='MANA: MPI_File_open is not supported'
app_build() { HDF5_CC=mpicc.openmpi h5pcc.openmpi -O2 -o "$APP_PROG" "$APPS_SRC/phdf5.c"; }
app_setup() { :; }
app_result() { grep -a -E '^(step|done:) ' out.txt; }
