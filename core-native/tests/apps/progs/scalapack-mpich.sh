# ScaLAPACK's LU test driver (xdlu from scalapack-mpi-test, on BLACS over MPICH): 18 random dense
# systems of 400..900 unknowns (6 sizes, block sizes 8, 16 and 32) factored and solved on a 1x2 process grid, each checked against its
# scaled residual. LU.dat: ours. gfortran writes unit 6 unbuffered (GFORTRAN_UNBUFFERED_PRECONNECTED),
# so each result line arrives as it is computed.
# The condition-estimate and iterative-refinement tests are off (F on the last line of LU.dat): with
# them on, xdlu fails NATIVELY on both MPIs, in about 5 runs of 12 on a loaded machine ("On entry to
# PDGETRS parameter number 1 had an illegal value", then MPI_ERR_TRUNCATE or a hang). A trace of a
# failing run showed process (0,0) calling PDGETRS with TRANS='T' while the other disagreed: PDGERFS's
# estimator (PDLACON) chooses between solving with A and with A**T on each process from its own data,
# and the processes chose differently. It depends on timing, not on the runtime (under the runtime
# it failed at a similar rate); with F, 0 failures in 10 runs natively and 10 under the runtime.
APP_PACKAGES=scalapack-mpi-test
APP_MPI=mpich
APP_PROG=/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests/xdlu
APP_EVENT='^WALL +400 '
APP_EVENT_COUNT=1
APP_DONE='^END OF TESTS'
export GFORTRAN_UNBUFFERED_PRECONNECTED=y
app_setup() {
    cat > LU.dat <<'IN'
'SCALAPACK, LU factorization input file'
'MPI Machine'
'LU.out'		output file name (if any)
6			device out
6			number of problems sizes
400 600 800 900 900 900		values of M
400 600 800 900 900 900		values of N
3			number of NB's
8 16 32			values of NB
1			number of NRHS's
1			values of NRHS
1			Number of NBRHS's
1			values of NBRHS
1			number of process grids (ordered pairs of P & Q)
1			values of P
2			values of Q
1.0			threshold
F			(T or F) Test Cond. Est. and Iter. Ref. Routines
IN
}
# each test's sizes, grid and verdict (the timing columns cut out), and the summary
app_result() {
    grep -a -E '^WALL ' out.txt | awk '{ print $2, $3, $4, $5, $6, $7, $8, $NF }'
    grep -a -E 'tests (completed|skipped)|^Finished' out.txt
}
