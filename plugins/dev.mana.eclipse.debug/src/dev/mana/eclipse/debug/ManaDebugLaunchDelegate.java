package dev.mana.eclipse.debug;

import dev.mana.eclipse.core.DebugRanks;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaJobSettings;
import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.command.MiGdbSet;
import dev.mana.gdb.mi.command.MiTargetAttach;
import dev.mana.gdb.split.LhInfo;
import dev.mana.gdb.split.MemorySource;
import dev.mana.gdb.split.ProcMaps;
import dev.mana.gdb.split.RankLocator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchDelegate;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.LaunchConfigurationDelegate;

/**
 * Debug mode of the "MANA MPI Job" launch type. For a configuration that restarts from a checkpoint: the
 * job is restarted by the type's own run delegate with {@code MANA_RESTART_PAUSE=N}; then a Job finds
 * each rank's process ({@code lower-half --restore DIR} and its rank variable), attaches a
 * {@link RankDebugTarget} to the ranks to debug (suspended at the pause, breakpoints inserted) and
 * releases the others. Resume on a target releases its pause. For a launch: the job starts with
 * {@code MANA_LAUNCH_PAUSE=1}, every rank waits before its program is loaded; the ranks to debug are run
 * to their program's {@code main} and shown suspended there, breakpoints inserted; the others are released.
 */
public final class ManaDebugLaunchDelegate extends LaunchConfigurationDelegate {
    /** int: the restart pause level for the debugged ranks (2-4; default 2). */
    public static final String ATTR_PAUSE_LEVEL = ManaCore.ATTR_DEBUG_PAUSE_LEVEL;
    /** String: the ranks to debug, e.g. "0" (default) or "0,3". */
    public static final String ATTR_DEBUG_RANKS = ManaCore.ATTR_DEBUG_RANKS;
    /** At most this many gdb sessions per launch: each holds ~60 MiB. */
    public static final int MAX_DEBUGGED_RANKS = DebugRanks.MAX;

    @Override
    public void launch(ILaunchConfiguration cfg, String mode, ILaunch launch, IProgressMonitor monitor)
            throws CoreException {
        SubMonitor sm = SubMonitor.convert(monitor, "Restarting " + cfg.getName() + " for debugging", 3);
        boolean restart = cfg.getAttribute(ManaCore.ATTR_RESTART, false);
        int level = cfg.getAttribute(ATTR_PAUSE_LEVEL, 2);
        if (level < 2 || level > 4) {
            throw ManaDebugModel.error("Restart pause level " + level + ": breakpoints need level 2, 3 or 4", null);
        }
        ManaJobSettings s = ManaJobSettings.from(cfg);
        if (s.slurm() != null) {
            throw ManaDebugModel.error(slurmRefusal(cfg.getName()), null);
        }
        Set<Integer> ranks = parseRanks(cfg.getAttribute(ATTR_DEBUG_RANKS, "0"), s.ranks());

        ILaunchConfigurationWorkingCopy wc = cfg.getWorkingCopy();
        Map<String, String> env = new LinkedHashMap<>(wc.getAttribute(ILaunchManager.ATTR_ENVIRONMENT_VARIABLES,
                Map.<String, String>of()));
        if (restart) {
            env.put("MANA_RESTART_PAUSE", Integer.toString(level));
        } else {
            env.put("MANA_LAUNCH_PAUSE", "1");
        }
        wc.setAttribute(ILaunchManager.ATTR_ENVIRONMENT_VARIABLES, env);
        ILaunchDelegate[] run = cfg.getType().getDelegates(Set.of(ILaunchManager.RUN_MODE));
        if (run.length == 0) {
            throw ManaDebugModel.error("no run delegate for " + cfg.getType().getName(), null);
        }
        if (!(launch.getSourceLocator() instanceof ManaSourceLookupDirector)) {
            launch.setSourceLocator(ManaSourceLookupDirector.of(cfg)); // the Source tab's path, path mappings
        }
        run[0].getDelegate().launch(wc, ILaunchManager.RUN_MODE, launch, sm.split(2));

        Path dir = restart ? s.restartDirectory().toPath() : s.checkpointDirectory().toPath();
        Job attach = new Job("Attaching gdb to " + cfg.getName()) {
            @Override
            protected IStatus run(IProgressMonitor m) {
                return restart ? attachAll(launch, dir, s.ranks(), ranks, level, m)
                        : attachAtLaunch(launch, dir, s.ranks(), ranks, m);
            }
        };
        attach.setUser(true);
        attach.schedule();
        sm.done();
    }

    /**
     * Why a configuration that targets a Slurm cluster is not debugged, and what to do instead. Refused
     * before anything is submitted: gdb attaches to processes of this machine, found through /proc, and
     * the ranks would wait at their launch pause on the cluster's nodes for a release that never comes.
     */
    public static String slurmRefusal(String config) {
        return "Debug is not available for " + config + ": it runs on a Slurm cluster, and the debugger attaches "
            + "gdb to the ranks' processes on this machine. Run it (Run As), checkpoint it, and debug a restart of "
            + "the checkpoint on this machine (a configuration with the Slurm tab's target off), or attach gdb "
            + "on the node (bin/mana_gdb).";
    }

    /** The ranks to debug from "0", "0,3" or "1 2"; an empty spec means rank 0 ({@link DebugRanks}). */
    public static Set<Integer> parseRanks(String spec, int nranks) throws CoreException {
        try {
            return DebugRanks.parse(spec, nranks);
        } catch (IllegalArgumentException e) {
            throw ManaDebugModel.error(e.getMessage(), e);
        }
    }

    /** Finds every rank's process, debugs the chosen ones, releases the others. */
    static IStatus attachAll(ILaunch launch, Path dir, int nranks, Set<Integer> debugged, int level, IProgressMonitor m) {
        SubMonitor sm = SubMonitor.convert(m, "Attaching gdb", nranks);
        Map<Integer, Long> pids = new HashMap<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try {
            while (pids.size() < nranks) {
                if (sm.isCanceled() || launch.isTerminated()) {
                    return Status.CANCEL_STATUS;
                }
                for (RankLocator.Restarting r : RankLocator.restarting(dir)) {
                    if (r.rank() >= 0 && r.rank() < nranks && published(r.pid())) {
                        pids.putIfAbsent(r.rank(), r.pid());
                    }
                }
                if (pids.size() < nranks) {
                    if (System.nanoTime() > deadline) {
                        return Status.error("only " + pids.size() + " of " + nranks + " ranks restoring " + dir
                                + " appeared within 60 s");
                    }
                    Thread.sleep(50); // processes to appear: /proc has no event to wait on
                }
            }
            for (int rank = 0; rank < nranks; rank++) {
                long pid = pids.get(rank);
                sm.subTask("rank " + rank + " (pid " + pid + ")");
                if (debugged.contains(rank)) {
                    RankDebugTarget.attach(launch, rank, pid, RankLocator.imageOf(pid, dir, rank), level);
                } else {
                    release(pid, "mana_restart_pause_wait");
                }
                sm.worked(1);
            }
            return Status.OK_STATUS;
        } catch (CoreException e) {
            return e.getStatus();
        } catch (IOException | MiException e) {
            return Status.error("attaching gdb: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Status.CANCEL_STATUS;
        }
    }

    /** Launch-time: finds every launched rank in its launch pause, runs the chosen ones to main, releases the others. */
    static IStatus attachAtLaunch(ILaunch launch, Path ckptDir, int nranks, Set<Integer> debugged, IProgressMonitor m) {
        SubMonitor sm = SubMonitor.convert(m, "Attaching gdb", nranks);
        Map<Integer, Long> pids = new HashMap<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try {
            while (pids.size() < nranks) {
                if (sm.isCanceled() || launch.isTerminated()) {
                    return Status.CANCEL_STATUS;
                }
                for (RankLocator.Launched r : RankLocator.launched(ckptDir)) {
                    if (r.rank() >= 0 && r.rank() < nranks && RankLocator.inLaunchPause(r.pid())) {
                        pids.putIfAbsent(r.rank(), r.pid());
                    }
                }
                if (pids.size() < nranks) {
                    if (System.nanoTime() > deadline) {
                        return Status.error("only " + pids.size() + " of " + nranks + " ranks checkpointing into "
                                + ckptDir + " reached their launch pause within 60 s");
                    }
                    Thread.sleep(50); // processes to appear: /proc has no event to wait on
                }
            }
            // The lower half initializes MPI (collective) before it maps the program: the ranks not debugged
            // go first, then the debugged ones run to main together, each in its own thread.
            for (int rank = 0; rank < nranks; rank++) {
                if (!debugged.contains(rank)) {
                    sm.subTask("releasing rank " + rank + " (pid " + pids.get(rank) + ")");
                    release(pids.get(rank), "mana_launch_pause_wait");
                    sm.worked(1);
                }
            }
            sm.subTask("running ranks " + debugged + " to main");
            ExecutorService pool = Executors.newFixedThreadPool(debugged.size());
            try {
                List<Future<RankDebugTarget>> attached = new ArrayList<>();
                for (int rank : debugged) {
                    long pid = pids.get(rank);
                    attached.add(pool.submit(() -> RankDebugTarget.attachAtLaunch(launch, rank, pid)));
                }
                for (Future<RankDebugTarget> f : attached) {
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof CoreException ce) {
                            throw ce;
                        }
                        return Status.error("attaching gdb: " + e.getCause(), e.getCause());
                    }
                    sm.worked(1);
                }
            } finally {
                pool.shutdown();
            }
            return Status.OK_STATUS;
        } catch (CoreException e) {
            return e.getStatus();
        } catch (IOException | MiException e) {
            return Status.error("attaching gdb: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Status.CANCEL_STATUS;
        }
    }

    /** The lower half has published its settings (it re-executes itself once first: earlier writes would be lost). */
    private static boolean published(long pid) {
        try {
            Path exe = Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe"));
            LhInfo lh = LhInfo.read(MemorySource.ofPid(pid), ProcMaps.read(pid), exe);
            return lh.restartPause() > 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** A rank not to debug: clear its pause variable and let it go (gdb attaches for a moment). */
    private static void release(long pid, String variable) throws IOException, MiException {
        try (GdbMi gdb = GdbMi.start(ManaDebugModel.gdbOptions())) {
            CompletableFuture<GdbEvent.Stopped> stop = gdb.expect(GdbEvent.Stopped.class, x -> true);
            gdb.execute(new MiTargetAttach(pid), Duration.ofSeconds(60));
            gdb.await(stop, Duration.ofSeconds(30), "stop after attaching to " + pid);
            gdb.execute(MiGdbSet.variable(variable, "0"));
        }
    }

    @Override
    public boolean buildForLaunch(ILaunchConfiguration configuration, String mode, IProgressMonitor monitor) {
        return false;
    }

    static void log(IStatus s) {
        DebugPlugin.log(s);
    }
}
