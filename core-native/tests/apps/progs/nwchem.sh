# NWChem (nwchem-mpich: Global Arrays over ARMCI over MPI, on MPICH): a closed-shell SCF energy of
# water in the cc-pVDZ basis, then a B3LYP DFT energy; integrals in memory, scratch in the run folder.
# Input: ours.
APP_PACKAGES=nwchem-mpich
APP_MPI=mpich
APP_PROG=nwchem.mpich
APP_ARGS=(h2o.nw)
APP_EVENT='Total SCF energy'
APP_DONE='Total times'
app_setup() {
    mkdir -p scratch
    cat > h2o.nw <<'IN'
start h2o
scratch_dir ./scratch
permanent_dir ./scratch
geometry units angstrom noautosym
  O   0.000000   0.000000   0.117790
  H   0.000000   0.755453  -0.471161
  H   0.000000  -0.755453  -0.471161
end
basis
  * library cc-pvdz
end
scf
  thresh 1e-8
end
task scf energy
dft
  xc b3lyp
  convergence energy 1e-9
end
task dft energy
IN
}
# the converged energies (printed to 10 decimals) and the dipole moments
app_result() { grep -a -E 'Total (SCF|DFT) energy|Nuclear repulsion energy|One-electron energy|Two-electron energy|Dipole moment +[0-9]' out.txt; }
