# NetPIPE's MPI module (NPopenmpi): ping-pong of 5 B .. 2 MiB messages between 2 ranks, each size sent
# 2,000 times (-n: fixed, not timed, repeats) with its contents checked (-i: integrity mode). One line per
# size on stderr, written as it goes.  (200 repeats took under a second natively on a quiet machine: the
# program ended before a checkpoint asked at line 28 could land.)
APP_PACKAGES=netpipe-openmpi
APP_MPI=openmpi
APP_PROG=NPopenmpi
APP_ARGS=(-i -n 2000 -u 2097152 -o np.out)
APP_EVENT='^ *28: '
APP_EVENT_IN=err
APP_DONE='^ *37: '
app_setup() { :; }
# the sizes and repeat counts, how many integrity checks passed, and the output file (nothing timed is
# printed in -i mode).  The verdict is counted, not read off each size's line: a checkpoint lands in the
# middle of a line, whose verdict the restart prints on a line of its own after mpirun's notice.
app_result() {
    grep -a -o -E '^ *[0-9]+: +[0-9]+ bytes +[0-9]+ times' err.txt
    echo "integrity checks passed: $(grep -a -c 'Integrity check passed' err.txt)"
    cat np.out
}
