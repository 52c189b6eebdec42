package dev.mana.eclipse.debug.ui;

import dev.mana.eclipse.debug.BreakpointProblems;
import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankGroups;
import dev.mana.eclipse.internal.debug.ui.DebugUiImages;
import java.util.List;
import java.util.stream.Collectors;
import dev.mana.eclipse.internal.debug.ui.Messages;
import java.io.File;
import org.eclipse.core.resources.IMarker;
import org.eclipse.debug.core.sourcelookup.containers.LocalFileStorage;
import org.eclipse.debug.core.model.IBreakpoint;
import org.eclipse.osgi.util.NLS;
import org.eclipse.core.filesystem.EFS;
import org.eclipse.core.filesystem.IFileStore;
import org.eclipse.core.resources.IFile;
import org.eclipse.debug.ui.IDebugModelPresentation;
import org.eclipse.debug.ui.IValueDetailListener;
import org.eclipse.jface.viewers.ILabelProviderListener;
import org.eclipse.swt.graphics.Image;
import org.eclipse.ui.IEditorInput;
import org.eclipse.ui.ide.FileStoreEditorInput;
import org.eclipse.ui.part.FileEditorInput;
import org.eclipse.debug.core.model.IValue;
import org.eclipse.debug.core.DebugException;

/**
 * The MANA model's presentation: the platform's default labels and images (the model's names already
 * say {@code rank N (pid P)} and {@code [upper] fn at file:line}); sources open in the platform's text
 * editor, from the workspace or, for a path outside it, from the file system.
 */
public final class ManaDebugModelPresentation implements IDebugModelPresentation {
    /** The platform's text editor: no CDT here. */
    public static final String TEXT_EDITOR = "org.eclipse.ui.DefaultTextEditor";

    @Override
    public IEditorInput getEditorInput(Object element) {
        if (element instanceof IFile f) {
            return new FileEditorInput(f);
        }
        File file = element instanceof File f ? f : element instanceof LocalFileStorage s ? s.getFile() : null;
        if (file != null) {
            IFileStore store = EFS.getLocalFileSystem().fromLocalFile(file);
            return new FileStoreEditorInput(store);
        }
        return null;
    }

    @Override
    public String getEditorId(IEditorInput input, Object element) {
        return element instanceof IFile || element instanceof File || element instanceof LocalFileStorage ? TEXT_EDITOR
                : null;
    }

    @Override
    public void setAttribute(String attribute, Object value) {
    }

    /** A rank is a chip (it is one process of the job); everything else has the platform's image. */
    @Override
    public Image getImage(Object element) {
        return element instanceof RankDebugTarget ? DebugUiImages.image(DebugUiImages.RANK) : null;
    }

    /**
     * A breakpoint gdb refused in some rank says why after its usual label; everything else keeps the
     * platform's label (null).
     */
    @Override
    public String getText(Object element) {
        if (element instanceof RankDebugTarget rank) {
            return rankLabel(rank);
        }
        if (element instanceof IBreakpoint bp && bp.getMarker() != null) {
            String why = BreakpointProblems.describe(bp);
            if (why != null) {
                return NLS.bind(Messages.Breakpoint_notInserted, bp.getMarker().getAttribute(IMarker.MESSAGE, ""), why);
            }
        }
        return null;
    }

    /**
     * {@code rank N (pid P)}, with its state; a rank that runs while others of its launch are suspended says that
     * a collective call waits for them (it was released alone: it stops making progress there).
     */
    public static String rankLabel(RankDebugTarget rank) {
        if (rank.isTerminated()) {
            return NLS.bind(Messages.Rank_terminated, rank.getName());
        }
        if (rank.isSuspended() && rank.isPausePending()) {
            return NLS.bind(Messages.Rank_atRestartPause, rank.getName());
        }
        if (rank.isSuspended()) {
            return NLS.bind(Messages.Rank_suspended, rank.getName());
        }
        List<Integer> others = RankGroups.waitsFor(rank);
        if (others.isEmpty()) {
            return NLS.bind(Messages.Rank_running, rank.getName());
        }
        String list = others.stream().map(String::valueOf).collect(Collectors.joining(", "));
        if (others.size() == 1) {
            return NLS.bind(Messages.Rank_waitsForOne, rank.getName(), list);
        }
        return NLS.bind(Messages.Rank_waitsFor, rank.getName(), list);
    }

    @Override
    public void computeDetail(IValue value, IValueDetailListener listener) {
        String detail;
        try {
            detail = value.getValueString();
        } catch (DebugException e) {
            detail = e.getMessage();
        }
        listener.detailComputed(value, detail);
    }

    @Override
    public void addListener(ILabelProviderListener listener) {
    }

    @Override
    public void dispose() {
    }

    @Override
    public boolean isLabelProperty(Object element, String property) {
        return false;
    }

    @Override
    public void removeListener(ILabelProviderListener listener) {
    }
}
