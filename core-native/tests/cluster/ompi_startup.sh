# ompi_startup.sh - sourced by the Slurm cases (cr_slurm.sh, cr_requeue.sh): the one third-party crash
# they may retry, once per job, saying so.
#
# Open MPI 4.1.4 (Debian 12) started by `srun --mpi=pmix` (Slurm 22.05) on a loaded 2-core machine now
# and then loses a rank to SIGSEGV inside MPI_Init, before any line of the program: in CI (2026-12-04)
# two Open MPI Slurm cases out of three, here about one launch in 30 with three cores' worth of busy
# loops. It is not the runtime's: the test's own native reference run (no runtime at all) died the same
# way. Its core: the main thread in ompi_mpi_init -> opal_progress -> btl/tcp's receive handler, which
# called a null pointer: mca_btl_base_active_message_trigger[0x41] (ob1's MATCH) had no callback yet.
# The rank was still waiting in one of MPI_Init's PMIx fences, before pml/ob1's add_procs registers its
# callbacks, while a peer had already left MPI_Init and sent it its first message; a fence that did not
# hold (ompi_mpi_init does not check the fence's status: open-mpi/ompi#5086).
#
# The signature, in the job's stderr: Open MPI's own SIGSEGV report at address (nil) (its handler is the
# one installed during MPI_Init; the runtime's faults are reported by the runtime), and Slurm's line for
# the task that died of it.
#
#   ompi_startup_crash FILE   true when FILE (a job's stderr) shows that crash (MPI openmpi only)
#   ompi_retry FILE WHAT      true once per test, when FILE shows it; says so (WHAT names the job lost)
ompi_startup_crash() {
    [ "$mpi" = openmpi ] || return 1
    grep -q 'Signal: Segmentation fault (11)' "$1" 2>/dev/null &&
        grep -q 'Failing at address: (nil)' "$1" 2>/dev/null &&
        grep -Eq 'tasks? [0-9,-]+: Segmentation fault' "$1" 2>/dev/null
}
ompi_retried=
ompi_retry() {
    [ -z "$ompi_retried" ] && ompi_startup_crash "$1" || return 1
    ompi_retried=1
    say "$2 lost a rank to Open MPI's startup crash under srun (ompi_startup.sh): once more"
}
