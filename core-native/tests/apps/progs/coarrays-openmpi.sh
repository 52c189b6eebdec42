# OpenCoarrays (libcaf-openmpi): our src/coarray.f90, built with caf.openmpi; a heat rod split over 2
# images, the halo read through coarrays (one-sided gets: MPI windows), sync all, co_sum every 500 steps.
APP_PACKAGES="libcoarrays-openmpi-dev gfortran"
APP_MPI=openmpi
APP_PROG=$APPS_BUILD/coarray-openmpi
APP_EVENT='^step 2000 '
APP_DONE='^done:'
APP_EXPECT=pass
app_build() { caf.openmpi -O2 -o "$APP_PROG" "$APPS_SRC/coarray.f90"; }
app_setup() { :; }
app_result() { grep -a -E '^(step|done:) ' out.txt; }
