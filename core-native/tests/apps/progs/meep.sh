# Meep (meep-openmpi: the Scheme/libctl front end of the FDTD solver, on Open MPI): a 2-D dielectric
# waveguide (16x8, resolution 10, PML) driven by a continuous Ez source, 160 time units; the grid is
# split in chunks over the ranks, whose boundaries are exchanged every step. Every 10 time units the
# field at one point is printed (get-field-point: a reduction over the ranks). Input: ours.
APP_PACKAGES=meep-openmpi
APP_MPI=openmpi
APP_PROG=meep
APP_ARGS=(wg.ctl)
APP_EVENT="^field: 60"
APP_DONE='^run [0-9]+ finished'
app_setup() {
    cat > wg.ctl <<'IN'
(set! geometry-lattice (make lattice (size 16 8 no-size)))
(set! geometry (list (make block (center 0 0) (size infinity 1 infinity)
                           (material (make dielectric (epsilon 12))))))
(set! sources (list (make source (src (make continuous-src (frequency 0.15)))
                          (component Ez) (center -7 0))))
(set! pml-layers (list (make pml (thickness 1.0))))
(set! resolution 10)
(run-until 160 (at-every 10 (lambda () (print "field: " (meep-time) " " (get-field-point Ez (vector3 3 0)) "\n"))))
IN
}
app_result() { grep -a -E '^field: ' out.txt; }
