# NetPIPE's MPI module for MPICH (NPmpich2): the same run as netpipe-openmpi.sh.
. "$(dirname -- "${BASH_SOURCE[0]}")/netpipe-openmpi.sh"
APP_PACKAGES=netpipe-mpich2
APP_MPI=mpich
APP_PROG=NPmpich2
