package dev.mana.eclipse.core;

import java.util.List;

/** Which MPI implementation runs the job. {@link #AUTO} takes the first one installed. */
public enum MpiImplementation {
    AUTO("Automatic", "auto", List.of("mpirun")),
    OPEN_MPI("Open MPI", "openmpi", List.of("mpirun.openmpi", "mpirun")),
    MPICH("MPICH", "mpich", List.of("mpirun.mpich", "mpiexec.hydra", "mpirun"));

    private final String label;
    private final String runtimeName;
    private final List<String> mpirunNames;

    MpiImplementation(String label, String runtimeName, List<String> mpirunNames) {
        this.label = label;
        this.runtimeName = runtimeName;
        this.mpirunNames = mpirunNames;
    }

    /** Name shown to people. */
    public String label() {
        return label;
    }

    /** Name used by the runtime and the coordinator protocol ({@code openmpi}, {@code mpich}). */
    public String runtimeName() {
        return runtimeName;
    }

    /** Executable names of this implementation's mpirun, most specific first. */
    public List<String> mpirunNames() {
        return mpirunNames;
    }

    public static MpiImplementation fromName(String name) {
        for (MpiImplementation m : values()) {
            if (m.name().equals(name) || m.runtimeName.equals(name)) {
                return m;
            }
        }
        return AUTO;
    }
}
