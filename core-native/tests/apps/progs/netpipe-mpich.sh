# NetPIPE's MPI module (NPmpich2): ping-pong of 5 B .. 2 MiB messages between 2 ranks, each size sent
# 200 times (-n: fixed, not timed, repeats) with its contents checked (-i: integrity mode). One line per
# size on stderr, written as it goes.
APP_PACKAGES=netpipe-mpich2
APP_MPI=mpich
APP_PROG=NPmpich2
APP_ARGS=(-i -n 200 -u 2097152 -o np.out)
APP_EVENT='^ *28: '
APP_EVENT_IN=err
APP_DONE='^ *37: '
app_setup() { :; }
# the sizes, repeat counts and integrity verdicts (nothing timed is printed in -i mode)
app_result() { grep -a -E '^ *[0-9]+: .*bytes' err.txt; cat np.out; }
