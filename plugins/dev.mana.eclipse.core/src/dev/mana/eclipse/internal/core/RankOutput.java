package dev.mana.eclipse.internal.core;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the labels the MPI launchers put before each rank's lines into one form, {@code [rank N] }:
 * Open MPI's {@code --tag-output} ({@code [1,0]<stdout>:}), MPICH's {@code -prepend-rank}
 * ({@code [0] }) and Slurm's {@code --label} ({@code 0: }).
 */
public final class RankOutput {
    private static final Pattern OMPI = Pattern.compile("^\\[\\d+,(\\d+)\\]<std(?:out|err|diag)>:\\s?");
    private static final Pattern MPICH = Pattern.compile("^\\[(\\d+)\\]\\s");
    private static final Pattern SRUN = Pattern.compile("^\\s*(\\d+):\\s");

    private RankOutput() {}

    public static String normalize(String line) {
        Matcher m = OMPI.matcher(line);
        if (m.find()) {
            return "[rank " + m.group(1) + "] " + line.substring(m.end());
        }
        m = MPICH.matcher(line);
        if (m.find()) {
            return "[rank " + m.group(1) + "] " + line.substring(m.end());
        }
        m = SRUN.matcher(line);
        if (m.find()) {
            return "[rank " + m.group(1) + "] " + line.substring(m.end());
        }
        return line;
    }
}
