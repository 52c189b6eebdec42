# Parallel HDF5 (libhdf5-openmpi, MPI-IO driver): our src/phdf5.c, built with h5pcc.openmpi; every
# step a collective write of each rank's hyperslab into one shared file, a read back and a checksum.
APP_PACKAGES="libhdf5-openmpi-dev hdf5-tools"
APP_MPI=openmpi
APP_PROG=$APPS_BUILD/phdf5
APP_ARGS=(1500)
APP_EVENT='^step 20 '
APP_DONE='^done:'
app_build() { HDF5_CC=mpicc.openmpi h5pcc.openmpi -O2 -o "$APP_PROG" "$APPS_SRC/phdf5.c"; }
app_setup() { :; }
# the run's lines, and the file as h5dump reads it: the number of datasets and a hash of the last one's values
app_result() {
    grep -a -E '^(step|done:) ' out.txt
    echo "datasets: $(h5dump -H phdf5.h5 | grep -c 'DATASET "step_')"
    echo "last dataset: $(h5dump -d "/step_${APP_ARGS[0]}" phdf5.h5 | sed -n '/DATA {/,$p' | md5sum | cut -c1-16)"
}
