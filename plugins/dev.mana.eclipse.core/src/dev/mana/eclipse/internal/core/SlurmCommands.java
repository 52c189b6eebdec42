package dev.mana.eclipse.internal.core;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Slurm's commands (sbatch, squeue, scancel) and the reads of a batch job's status file, run where the cluster
 * is: through the configuration's command prefix (a wrapper reaching the login node), or here when it is empty.
 * Each run is bounded: a cluster that does not answer is an error, never a hung launch.
 */
final class SlurmCommands {
    /** A Slurm command's bound (slurmctld answers in milliseconds; a busy controller in seconds). */
    static final long TIMEOUT_SECONDS = 30;

    private final List<String> prefix;
    private final Map<String, String> environment;
    private final File workingDirectory;

    /**
     * @param prefix what the commands run through (may be empty)
     * @param environment the complete environment of the commands (the job's: SLURM_CONF, HOME, PATH)
     * @param workingDirectory where they run
     */
    SlurmCommands(List<String> prefix, Map<String, String> environment, File workingDirectory) {
        this.prefix = List.copyOf(prefix);
        this.environment = Map.copyOf(environment);
        this.workingDirectory = workingDirectory;
    }

    /** The process of {@code command} through the prefix, started (stdin, stdout and stderr are pipes). */
    Process start(List<String> command) throws IOException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(command);
        return startAsIs(cmd);
    }

    /** The process of a command line that already holds the prefix (the builder's sbatch line). */
    Process startAsIs(List<String> cmd) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(workingDirectory);
        pb.environment().clear();
        pb.environment().putAll(environment);
        return pb.start();
    }

    /** Runs {@code command}; its standard output, or an IOException with its error output when it fails. */
    String run(List<String> command) throws IOException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(command);
        return runAsIs(cmd);
    }

    /** Runs a command line that already holds the prefix; its standard output (IOException when it fails). */
    String runAsIs(List<String> command) throws IOException {
        Process p = startAsIs(command);
        p.getOutputStream().close();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread errReader = drain(p.getErrorStream(), err);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread outReader = drain(p.getInputStream(), out);
        try {
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not answer in " + TIMEOUT_SECONDS + " s");
            }
            outReader.join(2000);
            errReader.join(2000);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + String.join(" ", command), e);
        }
        if (p.exitValue() != 0) {
            String e = err.toString(StandardCharsets.UTF_8).strip();
            throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + ")"
                + (e.isEmpty() ? "" : ": " + e));
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** A Slurm job's state as squeue names it (RUNNING, PENDING, COMPLETED, CANCELLED, ...); "" once Slurm forgot it. */
    String jobState(String jobId) throws IOException {
        try {
            return run(List.of("squeue", "-h", "-j", jobId, "-t", "all", "-o", "%T")).strip();
        } catch (IOException e) {
            // squeue refuses an id the controller no longer holds (MinJobAge after the end): the job is gone
            if (e.getMessage() != null && e.getMessage().contains("Invalid job id")) {
                return "";
            }
            throw e;
        }
    }

    /** Cancels a Slurm job (its ranks get SIGTERM, then SIGKILL after KillWait), as a time limit would. */
    void cancel(String jobId) throws IOException {
        run(List.of("scancel", jobId));
    }

    /**
     * The text of the status file a batch job's coordinator writes, {@code $HOME/.mana-slurm-ID.rc}, read where
     * the job runs (HOME as the cluster has it); null while it is not there or not complete.
     */
    String statusFile(String jobId) throws IOException {
        return statusText("cat \"$HOME/.mana-slurm-$1.rc\"", jobId);
    }

    /**
     * The text of a coordinator's status file at {@code path} on the cluster (the coordinator the IDE starts
     * there for an interactive step); null while it is not there or not complete.
     */
    String statusFileAt(String path) throws IOException {
        return statusText("cat \"$1\"", path);
    }

    /** What {@code cat} (a shell command of $1) prints, where the cluster is, once it holds the secret; else null. */
    private String statusText(String cat, String arg) throws IOException {
        String text = run(List.of("sh", "-c", cat + " 2>/dev/null || true", "sh", arg));
        return text.contains("Secret:") ? text : null;
    }

    /** Removes a file on the cluster (a status file the IDE's coordinator there wrote); no error when it is gone. */
    void remove(String path) throws IOException {
        run(List.of("rm", "-f", "--", path));
    }

    private static Thread drain(InputStream in, ByteArrayOutputStream to) {
        Thread t = new Thread(() -> {
            try (in) {
                in.transferTo(to);
            } catch (IOException e) {
                // the process ended
            }
        }, "MANA slurm command output");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
