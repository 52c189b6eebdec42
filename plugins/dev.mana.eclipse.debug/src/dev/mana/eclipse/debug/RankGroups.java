package dev.mana.eclipse.debug;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.model.IDebugElement;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.IProcess;

/**
 * The debugged ranks of one launch as a group: Resume All Ranks and Suspend All Ranks act on each of them, and
 * a rank that runs while others of its group are suspended is said to wait for them: MPI's collective calls
 * (and any receive from a suspended rank) cannot complete until every rank they involve takes part, so a rank
 * released alone stops making progress at its next collective. The platform's Resume acts on one rank only.
 */
public final class RankGroups {
    private RankGroups() {
    }

    /** The launch an element of the Debug view belongs to (a launch, a rank, its thread or frame, a process), or null. */
    public static ILaunch launchOf(Object element) {
        if (element instanceof ILaunch l) {
            return l;
        }
        if (element instanceof IDebugElement d) {
            return d.getLaunch();
        }
        if (element instanceof IProcess p) {
            return p.getLaunch();
        }
        return null;
    }

    /** The ranks of {@code launch} being debugged (not ended), by rank. */
    public static List<RankDebugTarget> ranks(ILaunch launch) {
        List<RankDebugTarget> out = new ArrayList<>();
        if (launch != null) {
            for (IDebugTarget t : launch.getDebugTargets()) {
                if (t instanceof RankDebugTarget r && !r.isTerminated()) {
                    out.add(r);
                }
            }
        }
        out.sort(Comparator.comparingInt(RankDebugTarget::rank));
        return out;
    }

    /** Resumes every suspended rank of {@code launch} (releasing restart pauses); how many were resumed. */
    public static int resumeAll(ILaunch launch) throws DebugException {
        int n = 0;
        for (RankDebugTarget r : ranks(launch)) {
            if (r.canResume()) {
                r.resume();
                n++;
            }
        }
        return n;
    }

    /** Suspends every running rank of {@code launch}; how many were asked to (each reports its stop). */
    public static int suspendAll(ILaunch launch) throws DebugException {
        int n = 0;
        for (RankDebugTarget r : ranks(launch)) {
            if (r.canSuspend()) {
                r.suspend();
                n++;
            }
        }
        return n;
    }

    /** Whether some rank of the launch can be resumed / suspended (the commands' enablement). */
    public static boolean canResumeAll(ILaunch launch) {
        return ranks(launch).stream().anyMatch(RankDebugTarget::canResume);
    }

    public static boolean canSuspendAll(ILaunch launch) {
        return ranks(launch).stream().anyMatch(RankDebugTarget::canSuspend);
    }

    /**
     * The ranks {@code rank} waits for if it enters a collective call: the suspended ranks of its launch while it
     * runs; empty while it is suspended itself or none of the others is.
     */
    public static List<Integer> waitsFor(RankDebugTarget rank) {
        List<Integer> out = new ArrayList<>();
        if (rank.isTerminated() || rank.isSuspended()) {
            return out;
        }
        for (RankDebugTarget r : ranks(rank.getLaunch())) {
            if (r != rank && r.isSuspended()) {
                out.add(r.rank());
            }
        }
        return out;
    }
}
