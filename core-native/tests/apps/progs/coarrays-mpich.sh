# OpenCoarrays (libcaf-mpich): our src/coarray.f90, built with caf.mpich; a heat rod split over 2
# images, the halo read through coarrays (one-sided gets: MPI windows), sync all, co_sum every 500 steps.
APP_PACKAGES="libcoarrays-mpich-dev gfortran"
APP_MPI=mpich
APP_PROG=$APPS_BUILD/coarray-mpich
APP_EVENT='^step 2000 '
APP_DONE='^done:'
APP_EXPECT=pass
app_build() { caf.mpich -O2 -o "$APP_PROG" "$APPS_SRC/coarray.f90"; }
app_setup() { :; }
app_result() { grep -a -E '^(step|done:) ' out.txt; }
