package dev.mana.eclipse.core;

/** The program that starts the ranks. */
public enum MpiLauncher {
    MPIRUN("mpirun"), SRUN("srun (Slurm)");

    private final String label;

    MpiLauncher(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static MpiLauncher fromName(String name) {
        for (MpiLauncher l : values()) {
            if (l.name().equals(name)) {
                return l;
            }
        }
        return MPIRUN;
    }
}
