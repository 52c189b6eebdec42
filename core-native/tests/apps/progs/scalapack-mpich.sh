# ScaLAPACK's LU test driver on MPICH: the Open MPI definition (its input, event and result filter,
# and why the estimator tests are off), with MPICH's build of xdlu.
# shellcheck disable=SC1091
. "$(dirname -- "${BASH_SOURCE[0]}")/scalapack-openmpi.sh"
APP_MPI=mpich
APP_PROG=/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests/xdlu
