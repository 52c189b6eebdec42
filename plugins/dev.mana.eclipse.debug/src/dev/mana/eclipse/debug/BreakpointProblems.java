package dev.mana.eclipse.debug;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.WorkspaceJob;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.debug.core.model.IBreakpoint;

/**
 * A breakpoint gdb refused to insert in a rank ("No source file named ...", "Function ... not defined", a
 * watchpoint on a local out of scope): an error in the Problems view on the breakpoint's file and line (the
 * workspace root for function breakpoints and watchpoints), and a note the breakpoint's label shows. Gone
 * when the breakpoint goes in, is removed, or its rank's debugging ends.
 *
 * <p>Markers are written by a workspace job: breakpoints are inserted from breakpoint-manager callbacks that
 * can run inside a resource-change notification, where the workspace refuses new markers.
 */
public final class BreakpointProblems {
    /** Family of the jobs that write the markers (tests join it). */
    public static final Object FAMILY = BreakpointProblems.class;
    static final String RANK_ATTR = ManaDebugModel.ID + ".rank";
    static final String BREAKPOINT_ATTR = ManaDebugModel.ID + ".breakpointMarker";

    /** rank -> message, per breakpoint: what the label shows. */
    private static final Map<IBreakpoint, Map<Integer, String>> ERRORS = new ConcurrentHashMap<>();

    private BreakpointProblems() {
    }

    /** Why {@code bp} is not in force in some rank ("rank 0: No source file named x.c."), or null. */
    public static String describe(IBreakpoint bp) {
        Map<Integer, String> e = ERRORS.get(bp);
        if (e == null || e.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        new java.util.TreeMap<>(e).forEach((rank, msg) -> b.append(b.length() == 0 ? "" : "; ")
                .append("rank ").append(rank).append(": ").append(msg));
        return b.toString();
    }

    static void report(IBreakpoint bp, int rank, String message) {
        ERRORS.computeIfAbsent(bp, k -> new ConcurrentHashMap<>()).put(rank, message);
        update(bp, rank, message);
    }

    static void clear(IBreakpoint bp, int rank) {
        Map<Integer, String> e = ERRORS.get(bp);
        if (e != null && e.remove(rank) != null) {
            update(bp, rank, null);
        }
    }

    /** Replaces the problem of {@code bp} in {@code rank} by {@code message} (null: none). */
    private static void update(IBreakpoint bp, int rank, String message) {
        IMarker bm = bp.getMarker();
        if (bm == null) {
            return;
        }
        IResource resource = bm.getResource();
        String id = Long.toString(bm.getId()); // marker attributes are strings, integers or booleans
        int line = bm.getAttribute(IMarker.LINE_NUMBER, -1);
        String label = bm.getAttribute(IMarker.MESSAGE, "breakpoint");
        WorkspaceJob job = new WorkspaceJob("Breakpoint problem markers") {
            @Override
            public IStatus runInWorkspace(IProgressMonitor monitor) throws CoreException {
                if (!resource.isAccessible()) {
                    return Status.OK_STATUS;
                }
                for (IMarker m : resource.findMarkers(ManaDebugModel.BREAKPOINT_PROBLEM, false, IResource.DEPTH_ZERO)) {
                    if (id.equals(m.getAttribute(BREAKPOINT_ATTR, "")) && m.getAttribute(RANK_ATTR, -1) == rank) {
                        m.delete();
                    }
                }
                if (message != null) {
                    Map<String, Object> a = new java.util.HashMap<>();
                    a.put(IMarker.SEVERITY, IMarker.SEVERITY_ERROR);
                    a.put(IMarker.MESSAGE, label + " not inserted in rank " + rank + ": " + message);
                    a.put(RANK_ATTR, rank);
                    a.put(BREAKPOINT_ATTR, id);
                    if (line > 0) {
                        a.put(IMarker.LINE_NUMBER, line);
                    }
                    resource.createMarker(ManaDebugModel.BREAKPOINT_PROBLEM, a);
                }
                return Status.OK_STATUS;
            }

            @Override
            public boolean belongsTo(Object family) {
                return family == FAMILY;
            }
        };
        job.setSystem(true);
        job.setRule(resource);
        job.schedule();
    }

    /** A rank no longer debugged: its problems go. */
    static void forgetRank(int rank) {
        for (IBreakpoint bp : ERRORS.keySet()) {
            clear(bp, rank);
        }
    }
}
