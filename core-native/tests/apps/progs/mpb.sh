# MPB (mpb-mpi: the MIT Photonic-Bands eigensolver, on Open MPI and FFTW's MPI transforms): the TM
# bands of a square lattice of dielectric rods (resolution 64, 6 bands) at 34 k-points around the
# Brillouin zone; the eigenvectors are distributed over the ranks. Input: ours.
APP_PACKAGES=mpb-mpi
APP_MPI=openmpi
APP_PROG=mpb-mpi
APP_ARGS=(rods.ctl)
APP_EVENT='^tmfreqs:, 5,'
APP_DONE='^done'
app_setup() {
    cat > rods.ctl <<'IN'
(set! num-bands 6)
(set! k-points (interpolate 10 (list (vector3 0 0 0) (vector3 0.5 0 0) (vector3 0.5 0.5 0) (vector3 0 0 0))))
(set! geometry (list (make cylinder (center 0 0 0) (radius 0.2) (height infinity)
                           (material (make dielectric (epsilon 12))))))
(set! geometry-lattice (make lattice (size 1 1 no-size)))
(set! resolution 64)
(run-tm)
(print "done\n")
IN
}
# the band frequencies at each k-point (MPB prints them with 6 significant digits), and the gaps cut to
# 6 decimals: MPB prints those with 16 digits, and FFTW's plans (chosen by timing, FFTW_MEASURE) differ
# from run to run in the last bits, natively too
app_result() { grep -a -E '^tm(freqs|-gaps|velocity):' out.txt; grep -a -E 'Gap from band' out.txt | sed -E 's/([0-9]+\.[0-9]{6})[0-9]*/\1/g'; }
