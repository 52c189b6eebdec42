package dev.mana.eclipse.internal.core;

import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.Status;
import org.eclipse.debug.core.ILaunch;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.RankState;
import dev.mana.eclipse.core.IManaCoordinator;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaFormat;
import dev.mana.eclipse.core.ManaJobSettings;

/** A running MANA job: polls its coordinator, runs checkpoints, stops the hosted coordinator at the end. */
public final class ManaJob implements IManaJob {
    private final ILaunch launch;
    private final ManaJobSettings settings;
    private final IManaCoordinator coordinator;
    private final ManaProcess process;
    private final Thread poller;
    private volatile List<RankInfo> ranks = List.of();
    private volatile JobStatus status;
    private volatile CheckpointResult lastCheckpoint;
    private volatile boolean terminated;
    private final long pollMillis;

    public ManaJob(ILaunch launch, ManaJobSettings settings, IManaCoordinator coordinator, ManaProcess process,
            long pollMillis) {
        this.launch = launch;
        this.settings = settings;
        this.coordinator = coordinator;
        this.process = process;
        this.pollMillis = pollMillis;
        this.poller = new Thread(this::poll, "MANA job monitor: " + settings.jobName());
        poller.setDaemon(true);
    }

    /** Starts following the coordinator (the launch delegate, and tests that make a job of their own). */
    public void start() {
        process.setJob(this);
        poller.start();
    }

    private void poll() {
        int failures = 0;
        while (!terminated) {
            boolean ended = process.isTerminated();
            try {
                if (coordinator instanceof ClientCoordinator c) {
                    ClientCoordinator.Snapshot s = c.snapshot();
                    update(s.ranks(), s.status());
                } else if (coordinator instanceof SlurmJobCoordinator c) {
                    boolean found = c.found();
                    ClientCoordinator.Snapshot s = c.snapshot(); // "not started yet" while the job is pending
                    if (!found) {
                        log(c.describe() + " at " + c.endpoint());
                    }
                    update(s.ranks(), s.status());
                } else {
                    update(coordinator.list(), coordinator.status());
                }
                failures = 0;
            } catch (IOException e) {
                failures++;
            }
            if (ended) {
                finish();
                return;
            }
            try {
                Thread.sleep(pollMillis);
            } catch (InterruptedException e) {
                finish();
                return;
            }
        }
    }

    private void update(List<RankInfo> r, JobStatus s) {
        boolean changed = !Objects.equals(r, ranks) || !Objects.equals(s, status);
        ranks = r;
        status = s;
        if (changed) {
            JobRegistry.fireChanged(this);
        }
    }

    private synchronized void finish() {
        if (terminated) {
            return;
        }
        terminated = true;
        // what the coordinator last said stays visible; ranks of a finished job are EXITED
        ranks = ranks.stream()
            .map(r -> new RankInfo(r.job(), r.rank(), r.host(), r.pid(), RankState.EXITED, r.generation(), r.mpi(),
                r.clientId(), r.program(), r.ckptdir()))
            .toList();
        coordinator.close();
        JobRegistry.fireTerminated(this);
    }

    void killRanksQuietly() {
        Thread t = new Thread(() -> {
            try {
                coordinator.kill();
            } catch (IOException e) {
                // mpirun is killed next anyway
            }
        }, "MANA kill");
        t.setDaemon(true);
        t.start();
        try {
            t.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public CheckpointResult checkpoint(boolean stop, Consumer<CheckpointProgress> progress) throws CoreException {
        if (terminated || process.isTerminated()) {
            throw new CoreException(Status.error("The job " + getName() + " has ended: there is nothing to checkpoint."));
        }
        refuseWhileSuspendedInDebugger(stop);
        CheckpointResult r;
        try {
            log((stop ? "checkpoint and stop" : "checkpoint") + " requested");
            // the caller's progress, and every listener's (the job view shows the phases)
            r = coordinator.checkpoint(stop, p -> {
                if (progress != null) {
                    progress.accept(p);
                }
                JobRegistry.fireCheckpointProgress(this, p);
            });
        } catch (IOException e) {
            throw new CoreException(Status.error("Checkpoint of " + getName() + " failed: " + e.getMessage(), e));
        }
        if (r.ok()) {
            lastCheckpoint = r;
        }
        log(ManaFormat.summary(r));
        JobRegistry.fireCheckpointDone(this, r);
        JobRegistry.fireChanged(this);
        return r;
    }

    /**
     * A rank suspended in the debugger never reaches its checkpoint point: the coordinator would wait for it
     * (and every other rank with it) until it is resumed. So a checkpoint is refused, with the ranks to resume,
     * while any debug target of the job's launch is suspended; nothing is asked of the coordinator.
     */
    private void refuseWhileSuspendedInDebugger(boolean stop) throws CoreException {
        java.util.List<String> held = new java.util.ArrayList<>();
        for (org.eclipse.debug.core.model.IDebugTarget t : launch.getDebugTargets()) {
            if (!t.isTerminated() && t.isSuspended()) {
                try {
                    held.add(t.getName());
                } catch (org.eclipse.debug.core.DebugException e) {
                    held.add(String.valueOf(t));
                }
            }
        }
        if (!held.isEmpty()) {
            String what = stop ? "Checkpoint and stop" : "Checkpoint";
            String msg = what + " of " + getName() + " refused: " + String.join(", ", held)
                    + (held.size() == 1 ? " is" : " are") + " suspended in the debugger, and a checkpoint needs every"
                    + " rank to reach its checkpoint point. Resume the ranks (Resume All Ranks) and checkpoint again.";
            log(msg);
            throw new CoreException(Status.error(msg));
        }
    }

    @Override
    public void log(String line) {
        try {
            process.streams().output().append("[mana] " + line + System.lineSeparator());
        } catch (RuntimeException e) {
            // console gone
        }
    }

    @Override
    public ILaunch getLaunch() {
        return launch;
    }

    @Override
    public String getName() {
        return settings.jobName();
    }

    @Override
    public ManaJobSettings getSettings() {
        return settings;
    }

    @Override
    public IManaCoordinator getCoordinator() {
        return coordinator;
    }

    @Override
    public List<RankInfo> getRanks() {
        return ranks;
    }

    @Override
    public JobStatus getStatus() {
        return status;
    }

    @Override
    public CheckpointResult getLastCheckpoint() {
        return lastCheckpoint;
    }

    @Override
    public File getCheckpointDirectory() {
        return settings.checkpointDirectory();
    }

    @Override
    public boolean isTerminated() {
        return terminated || process.isTerminated();
    }

    @Override
    public boolean isRestart() {
        return settings.restart();
    }

    public ManaProcess process() {
        return process;
    }

    @Override
    public String toString() {
        return getName() + (status != null && status.generation() > 0
            ? " (checkpoint " + status.generation() + ", " + ManaFormat.bytes(status.lastCheckpointBytes()) + ")" : "");
    }
}
