package dev.mana.eclipse.core;

/** How a job on a Slurm cluster is started. */
public enum SlurmSubmit {
    /** {@code srun}: an interactive job step (in an allocation, or a new one), its ranks joining the IDE's coordinator. */
    SRUN("srun (interactive step)"),
    /**
     * {@code sbatch}: a batch script written by the plug-in; it starts the coordinator on the job's first node
     * (status file {@code ~/.mana-slurm-$SLURM_JOB_ID.rc}) and {@code srun}s the ranks; the IDE finds that
     * coordinator and follows the job with {@code squeue}.
     */
    SBATCH("sbatch (batch script)");

    private final String label;

    SlurmSubmit(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static SlurmSubmit fromName(String name) {
        for (SlurmSubmit s : values()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return SBATCH;
    }
}
