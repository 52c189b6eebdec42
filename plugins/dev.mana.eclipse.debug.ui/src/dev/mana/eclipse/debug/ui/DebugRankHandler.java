package dev.mana.eclipse.debug.ui;

import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.RankState;
import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankGroups;
import dev.mana.eclipse.internal.debug.ui.Messages;
import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.commands.ExecutionException;
import org.eclipse.core.runtime.Adapters;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.handlers.HandlerUtil;

/**
 * Debug Rank (the MANA Job view's context menu): attaches gdb to the selected running rank of the job (its
 * process on this machine), both halves' symbols loaded, and adds it to the job's launch: the Debug view shows
 * it stopped where it was. Ranks on other hosts (the rank's host, as it registered with the coordinator, is
 * not this machine's name), not running, gone, or already debugged are refused with why.
 */
public final class DebugRankHandler extends AbstractHandler {
    public static final String COMMAND = "dev.mana.eclipse.debug.ui.debugRank";

    /** Why {@code rank} of {@code launch} cannot be debugged now, or null. */
    public static String refusal(RankInfo rank, ILaunch launch) {
        if (rank == null || launch == null) {
            return Messages.DebugRank_noRank;
        }
        if (rank.state() != RankState.RUNNING || rank.pid() <= 0) {
            return NLS.bind(Messages.DebugRank_notRunning, rank.rank(), rank.state());
        }
        // the host first: a pid of another machine may well be some other process here
        String here = localHost();
        if (rank.host() != null && !rank.host().isBlank() && !sameHost(rank.host(), here)) {
            return NLS.bind(Messages.DebugRank_notHere, new Object[] {rank.rank(), rank.pid(), rank.host(), here});
        }
        if (!java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc", Integer.toString(rank.pid())))) {
            return NLS.bind(Messages.DebugRank_gone, new Object[] {rank.rank(), rank.pid(), here});
        }
        for (RankDebugTarget t : RankGroups.ranks(launch)) {
            if (t.rank() == rank.rank()) {
                return NLS.bind(Messages.DebugRank_already, t.getName());
            }
        }
        return null;
    }

    /**
     * This machine's name as a rank reports it (the runtime sends gethostname(2), which is the kernel's
     * {@code /proc/sys/kernel/hostname}); Java's name of the local host where that cannot be read.
     */
    public static String localHost() {
        try {
            String name = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname")).trim();
            if (!name.isEmpty()) {
                return name;
            }
        } catch (java.io.IOException e) {
            // not Linux: Java's name below
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    /** Whether two host names name one machine: equal, or equal up to the first dot (node7 and node7.cluster). */
    static boolean sameHost(String a, String b) {
        if (a.equalsIgnoreCase(b)) {
            return true;
        }
        String sa = a.contains(".") ? a.substring(0, a.indexOf('.')) : a;
        String sb = b.contains(".") ? b.substring(0, b.indexOf('.')) : b;
        return sa.equalsIgnoreCase(sb);
    }

    @Override
    public Object execute(ExecutionEvent event) throws ExecutionException {
        Object first = HandlerUtil.getCurrentSelection(event) instanceof IStructuredSelection s ? s.getFirstElement() : null;
        RankInfo rank = Adapters.adapt(first, RankInfo.class);
        ILaunch launch = Adapters.adapt(first, ILaunch.class);
        String why = refusal(rank, launch);
        if (why != null) {
            org.eclipse.jface.dialogs.MessageDialog.openInformation(HandlerUtil.getActiveShell(event),
                    Messages.DebugRank_title, why);
            return null;
        }
        attach(launch, rank);
        return null;
    }

    /** Attaches in a job (gdb's attach and symbol loading take seconds); the job (tests join it). */
    public static Job attach(ILaunch launch, RankInfo rank) {
        Job job = Job.create(NLS.bind(Messages.DebugRank_job, rank.rank(), rank.pid()), (IProgressMonitor m) -> {
            try {
                RankDebugTarget.attachRunning(launch, rank.rank(), rank.pid());
                return Status.OK_STATUS;
            } catch (CoreException e) {
                return e.getStatus();
            }
        });
        job.setUser(true);
        job.schedule();
        return job;
    }
}
