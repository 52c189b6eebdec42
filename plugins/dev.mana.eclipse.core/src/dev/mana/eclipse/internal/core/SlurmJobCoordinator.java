package dev.mana.eclipse.internal.core;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.function.Consumer;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;
import dev.mana.eclipse.core.CoordinatorEndpoint;
import dev.mana.eclipse.core.IManaCoordinator;

/**
 * A coordinator that runs on the cluster, found through the status file it writes there:
 * <ul>
 * <li>a Slurm batch job's, started by the job's batch script on its first node, writing
 * {@code ~/.mana-slurm-ID.rc};</li>
 * <li>an interactive step's ({@code srun} through the command prefix), which the launch starts on the cluster's
 * login node before the step ({@link #onCluster}) with the status file the ranks are given ({@code MANA_RC}):
 * the IDE's own host is seldom reachable from compute nodes, the login node is.</li>
 * </ul>
 * Until that file is there (the job is pending, or starting) every call fails with "not started yet"; once it
 * is, the file is copied here (mode 0600, the one parser reads it) and every call goes to that coordinator as
 * to a joined one: directly, or through the command prefix's {@link CoordinatorRelay} when the cluster is
 * reached through one. Closing it leaves a batch job's coordinator alone (it ends with the job's last rank);
 * an interactive step's is told to quit (its step is over) and its status file removed.
 */
final class SlurmJobCoordinator implements IManaCoordinator {
    private final SlurmCommands commands;
    private final boolean relayed;
    private final String jobId;
    private final String jobName;
    private final File localCopy;
    private final String statusPath;      // an interactive step's coordinator: its status file; null: a batch job's
    private volatile ClientCoordinator client;
    private volatile CoordinatorEndpoint endpoint;
    private CoordinatorRelay relay;

    /**
     * @param commands the cluster's commands
     * @param relayed whether the coordinator is reached through the command prefix (not directly)
     * @param jobId the Slurm job id
     * @param jobName the coordinator job the ranks register with (MANA_JOB)
     * @param localCopy where the status file is copied (in the IDE's private state folder)
     */
    SlurmJobCoordinator(SlurmCommands commands, boolean relayed, String jobId, String jobName, File localCopy) {
        this(commands, relayed, jobId, jobName, localCopy, null);
    }

    private SlurmJobCoordinator(SlurmCommands commands, boolean relayed, String jobId, String jobName, File localCopy,
            String statusPath) {
        this.commands = commands;
        this.relayed = relayed;
        this.jobId = jobId;
        this.jobName = jobName;
        this.localCopy = localCopy;
        this.statusPath = statusPath;
    }

    /**
     * The coordinator of an interactive step, started on the cluster by the launch ({@code mana_coordinator
     * --status-file statusPath}).
     *
     * @param commands the cluster's commands, through the command prefix
     * @param statusPath its status file, a path on the cluster
     */
    static SlurmJobCoordinator onCluster(SlurmCommands commands, String statusPath, String jobName, File localCopy) {
        // started through the command prefix, so reached through it too
        return new SlurmJobCoordinator(commands, true, null, jobName, localCopy, statusPath);
    }

    /** What it is, for the job's log: the batch job's, or the one whose status file is named. */
    String describe() {
        return statusPath == null ? "coordinator of Slurm job " + jobId : "coordinator on the cluster (" + statusPath + ")";
    }

    /** The Slurm job; null for an interactive step's coordinator. */
    String jobId() {
        return jobId;
    }

    /** The coordinator's client once its status file is there; IOException before. */
    private synchronized ClientCoordinator client() throws IOException {
        if (client != null) {
            return client;
        }
        String text = statusPath != null ? commands.statusFileAt(statusPath) : commands.statusFile(jobId);
        if (text == null) {
            throw new IOException("the " + describe() + " has not started yet");
        }
        Files.deleteIfExists(localCopy.toPath());
        Files.writeString(localCopy.toPath(), text, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        Files.setPosixFilePermissions(localCopy.toPath(), PosixFilePermissions.fromString("rw-------"));
        CoordinatorEndpoint real = StatusFiles.endpoint(localCopy);
        CoordinatorEndpoint reach = real;
        if (relayed) {
            relay = new CoordinatorRelay(commands, real.host(), real.port());
            reach = new CoordinatorEndpoint("127.0.0.1", relay.port(), real.secret(), localCopy);
        }
        endpoint = real;
        client = new ClientCoordinator(reach, jobName);
        return client;
    }

    /** Whether the coordinator's status file has been found. */
    boolean found() {
        return client != null;
    }

    @Override
    public CoordinatorEndpoint endpoint() {
        CoordinatorEndpoint e = endpoint;
        return e != null ? e
            : new CoordinatorEndpoint(statusPath == null ? "(Slurm job " + jobId + ", starting)" : "(on the cluster, starting)",
                0, "", null);
    }

    @Override
    public boolean isHosted() {
        return false;
    }

    @Override
    public String job() {
        return jobName;
    }

    /** LIST and STATUS over one connection. */
    ClientCoordinator.Snapshot snapshot() throws IOException {
        return client().snapshot();
    }

    @Override
    public List<RankInfo> list() throws IOException {
        return client().list();
    }

    @Override
    public JobStatus status() throws IOException {
        return client().status();
    }

    @Override
    public CheckpointResult checkpoint(boolean exit, Consumer<CheckpointProgress> progress) throws IOException {
        return client().checkpoint(exit, progress);
    }

    @Override
    public void setInterval(int seconds) throws IOException {
        client().setInterval(seconds);
    }

    @Override
    public void kill() throws IOException {
        client().kill();
    }

    @Override
    public synchronized void close() {
        if (statusPath != null) {
            // the step is over: its coordinator would wait for ranks for good where none ever registered
            try {
                if (client != null) {
                    client.quit();
                }
            } catch (IOException e) {
                // gone already (it exits after its last rank)
            }
            try {
                commands.remove(statusPath);
            } catch (IOException e) {
                // the cluster is not reachable now: the coordinator removes status files older than 7 days
            }
        }
        if (relay != null) {
            relay.close();
        }
        try {
            Files.deleteIfExists(localCopy.toPath());
        } catch (IOException e) {
            // the state folder is cleaned with the workspace
        }
    }
}
