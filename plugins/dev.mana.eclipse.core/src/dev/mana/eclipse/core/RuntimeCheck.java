package dev.mana.eclipse.core;

import java.io.File;
import java.util.List;

/**
 * What a check of the MANA runtime and the MPI it needs found.
 *
 * @param runtimeRoot the runtime checked (may be null when none was found)
 * @param mpi the MPI implementation that will run the job (AUTO resolved), or AUTO when none was found
 * @param launcherExecutable the mpirun or srun found, or null
 * @param errors what prevents a launch, as sentences that say what to do
 * @param warnings what is missing but does not prevent a launch
 */
public record RuntimeCheck(File runtimeRoot, MpiImplementation mpi, String launcherExecutable,
        List<String> errors, List<String> warnings) {

    public boolean isOk() {
        return errors.isEmpty();
    }

    /** Everything found, one sentence a line. */
    public String report() {
        StringBuilder b = new StringBuilder();
        b.append("MANA runtime: ").append(runtimeRoot == null ? "(none)" : runtimeRoot.getPath()).append('\n');
        b.append("MPI: ").append(mpi == MpiImplementation.AUTO ? "(none found)" : mpi.label());
        if (launcherExecutable != null) {
            b.append(" (").append(launcherExecutable).append(')');
        }
        b.append('\n');
        errors.forEach(e -> b.append("Error: ").append(e).append('\n'));
        warnings.forEach(w -> b.append("Warning: ").append(w).append('\n'));
        if (errors.isEmpty() && warnings.isEmpty()) {
            b.append("Everything needed is present.\n");
        }
        return b.toString();
    }
}
