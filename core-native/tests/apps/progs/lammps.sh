# LAMMPS (lmp, Debian's build on Open MPI): a Lennard-Jones liquid, 864 atoms in an fcc box, 2000 steps
# of NVE dynamics on a 1x1x2 processor grid; thermodynamics printed every 100 steps. Input: ours.
APP_PACKAGES=lammps
APP_MPI=openmpi
APP_PROG=lmp
APP_ARGS=(-in in.lj -log log.lammps)
APP_EVENT='^ +700 '
APP_DONE='^Loop time'
app_setup() {
    cat > in.lj <<'IN'
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 6 0 6 0 6
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
thermo 100
run 2000
IN
}
# the thermo table (step, temperature, energies, pressure) and the neighbor-list statistics
app_result() { grep -a -E '^ +[0-9]+ +-?[0-9.]+ ' out.txt; grep -a -E '^(Total # of neighbors|Ave neighs|Neighbor list builds)' out.txt; }
