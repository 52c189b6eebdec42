package dev.mana.eclipse.core;

import java.io.File;
import java.util.List;
import java.util.Map;

/**
 * A command the launch runs: the command line, the complete environment, and the working directory.
 *
 * @param commandLine program and arguments
 * @param environment the complete environment of the launcher process
 * @param workingDirectory where it runs
 */
public record ManaCommand(List<String> commandLine, Map<String, String> environment, File workingDirectory) {

    public ManaCommand {
        commandLine = List.copyOf(commandLine);
        environment = Map.copyOf(environment);
    }

    /** Environment as {@code NAME=value} strings, sorted, for {@link org.eclipse.debug.core.DebugPlugin#exec}. */
    public String[] environmentArray() {
        return environment.entrySet().stream().sorted(Map.Entry.comparingByKey())
            .map(e -> e.getKey() + "=" + e.getValue()).toArray(String[]::new);
    }

    /** The command line as a person would type it (for the console and the process label). */
    public String toShellString() {
        return shellLine(commandLine);
    }

    /** Words as one shell line: each quoted where the shell would split or expand it. */
    public static String shellLine(List<String> words) {
        StringBuilder b = new StringBuilder();
        for (String a : words) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(a.isEmpty() || a.matches(".*[\\s'\"$`\\\\;&|<>()*?#~\\[\\]{}!].*")
                ? "'" + a.replace("'", "'\\''") + "'" : a);
        }
        return b.toString();
    }
}
