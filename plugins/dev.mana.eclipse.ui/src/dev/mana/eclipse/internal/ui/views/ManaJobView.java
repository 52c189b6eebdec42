package dev.mana.eclipse.internal.ui.views;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.eclipse.jface.action.GroupMarker;
import org.eclipse.jface.action.MenuManager;
import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.ColumnLabelProvider;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.jface.viewers.ISelectionChangedListener;
import org.eclipse.jface.viewers.ISelectionProvider;
import org.eclipse.jface.viewers.SelectionChangedEvent;
import org.eclipse.jface.viewers.StructuredSelection;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.jface.viewers.TableViewerColumn;
import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Label;
import org.eclipse.ui.IWorkbenchActionConstants;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.part.ViewPart;

import dev.mana.eclipse.core.CheckpointResult;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.IManaJobListener;
import dev.mana.eclipse.core.JobStatus;
import dev.mana.eclipse.core.ManaFormat;
import dev.mana.eclipse.core.ManaJobs;
import dev.mana.eclipse.core.RankInfo;
import dev.mana.eclipse.internal.ui.IManaHelpContexts;
import dev.mana.eclipse.internal.ui.ManaUIPlugin;

/**
 * The MANA Job view: one row per rank (host, pid, state as {@code mana_status --list}, the rank's newest
 * image), the job's last checkpoint, and the checkpoint/restart actions. Follows the newest job unless
 * another is chosen; updates as the coordinator reports.
 */
public final class ManaJobView extends ViewPart implements IManaJobListener {
    public static final String ID = "dev.mana.eclipse.ui.jobView";

    private Combo jobCombo;
    private Label summary;
    private Label lastCheckpoint;
    private TableViewer viewer;
    private final List<IManaJob> jobs = new ArrayList<>();
    private IManaJob shown;
    private boolean followNewest = true;
    private final AtomicBoolean refreshQueued = new AtomicBoolean();
    private final JobSelectionProvider selectionProvider = new JobSelectionProvider();

    @Override
    public void createPartControl(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        GridLayout gl = new GridLayout(2, false);
        gl.marginWidth = 4;
        gl.marginHeight = 4;
        c.setLayout(gl);
        PlatformUI.getWorkbench().getHelpSystem().setHelp(c, IManaHelpContexts.JOB_VIEW);

        new Label(c, SWT.NONE).setText("Job:");
        jobCombo = new Combo(c, SWT.READ_ONLY);
        jobCombo.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        jobCombo.addListener(SWT.Selection, e -> {
            int i = jobCombo.getSelectionIndex();
            if (i >= 0 && i < jobs.size()) {
                shown = jobs.get(i);
                followNewest = i == jobs.size() - 1;
                refreshNow();
            }
        });
        summary = new Label(c, SWT.NONE);
        summary.setLayoutData(span(2));
        lastCheckpoint = new Label(c, SWT.NONE);
        lastCheckpoint.setLayoutData(span(2));

        viewer = new TableViewer(c, SWT.BORDER | SWT.FULL_SELECTION | SWT.MULTI);
        viewer.getTable().setHeaderVisible(true);
        viewer.getTable().setLinesVisible(true);
        GridData tg = new GridData(SWT.FILL, SWT.FILL, true, true);
        tg.horizontalSpan = 2;
        viewer.getTable().setLayoutData(tg);
        viewer.setContentProvider(ArrayContentProvider.getInstance());
        column("Rank", 60, r -> Integer.toString(r.rank().rank()), this::stateImage);
        column("Host", 120, r -> r.rank().host(), r -> null);
        column("PID", 80, r -> r.rank().pid() > 0 ? Integer.toString(r.rank().pid()) : "", r -> null);
        column("State", 120, r -> r.rank().state(), r -> null);
        column("Generation", 95, r -> r.rank().generation() > 0 ? Long.toString(r.rank().generation()) : "", r -> null);
        column("Last Checkpoint", 150, r -> r.image() == null ? "" : ManaFormat.time(r.image().lastModified()), r -> null);
        column("Size", 80, r -> r.image() == null ? "" : ManaFormat.bytes(r.image().length()), r -> null);
        column("Image", 360, r -> r.image() == null ? "" : r.image().getPath(), r -> null);
        viewer.addSelectionChangedListener(e -> selectionProvider.fire());
        // a double-click on a rank opens its newest image in the image editor
        viewer.addDoubleClickListener(e -> {
            Object o = ((org.eclipse.jface.viewers.IStructuredSelection) e.getSelection()).getFirstElement();
            if (o instanceof RankRow r) {
                openImage(r);
            }
        });

        getSite().setSelectionProvider(selectionProvider);
        MenuManager menu = new MenuManager("#PopupMenu", ID);
        menu.add(new GroupMarker(IWorkbenchActionConstants.MB_ADDITIONS));
        viewer.getTable().setMenu(menu.createContextMenu(viewer.getTable()));
        getSite().registerContextMenu(ID, menu, selectionProvider);
        org.eclipse.jface.action.Action showDir = new org.eclipse.jface.action.Action("Checkpoint Directory") {
            @Override
            public void run() {
                showCheckpointDirectory();
            }
        };
        showDir.setToolTipText("Shows the job's checkpoint directory in the Checkpoint Directory view (open, verify, compare images)");
        getViewSite().getActionBars().getToolBarManager().add(showDir);

        jobs.addAll(ManaJobs.getJobs());
        shown = jobs.isEmpty() ? null : jobs.get(jobs.size() - 1);
        ManaJobs.addListener(this);
        refreshNow();
    }

    private static GridData span(int n) {
        GridData gd = new GridData(SWT.FILL, SWT.CENTER, true, false);
        gd.horizontalSpan = n;
        return gd;
    }

    private void column(String title, int width, java.util.function.Function<RankRow, String> text,
            java.util.function.Function<RankRow, Image> image) {
        TableViewerColumn col = new TableViewerColumn(viewer, SWT.LEFT);
        col.getColumn().setText(title);
        col.getColumn().setWidth(width);
        col.setLabelProvider(new ColumnLabelProvider() {
            @Override
            public String getText(Object element) {
                return text.apply((RankRow) element);
            }

            @Override
            public Image getImage(Object element) {
                return image.apply((RankRow) element);
            }
        });
    }

    private Image stateImage(RankRow r) {
        return ManaUIPlugin.image(switch (r.rank().state()) {
            case "RUNNING" -> ManaUIPlugin.IMG_RANK_RUNNING;
            case "RESTARTING" -> ManaUIPlugin.IMG_RANK_RESTARTING;
            case "EXITED", "UNKNOWN" -> ManaUIPlugin.IMG_RANK_EXITED;
            default -> ManaUIPlugin.IMG_RANK_CHECKPOINTING;
        });
    }

    /** The job shown. */
    /** The shown job's checkpoint directory in the Checkpoint Directory view; null when no job is shown. */
    public dev.mana.eclipse.internal.ui.images.CheckpointDirectoryView showCheckpointDirectory() {
        if (shown == null) {
            return null;
        }
        try {
            return dev.mana.eclipse.internal.ui.images.CheckpointDirectoryView.show(getSite().getPage(),
                shown.getCheckpointDirectory());
        } catch (org.eclipse.ui.PartInitException e) {
            ManaUIPlugin.getDefault().getLog().log(e.getStatus());
            return null;
        }
    }

    /** Opens a rank's newest image in the image editor (the double-click); false when it has none. */
    public boolean openImage(RankRow r) {
        if (r.image() == null) {
            return false;
        }
        try {
            dev.mana.eclipse.internal.ui.images.ImageInputs.open(getSite().getPage(), r.image());
            return true;
        } catch (org.eclipse.ui.PartInitException e) {
            ManaUIPlugin.getDefault().getLog().log(e.getStatus());
            return false;
        }
    }

    public IManaJob getShownJob() {
        return shown;
    }

    /** The rows shown (for tests). */
    public List<RankRow> getRows() {
        Object in = viewer.getInput();
        List<RankRow> l = new ArrayList<>();
        if (in instanceof List<?> rows) {
            for (Object o : rows) {
                l.add((RankRow) o);
            }
        }
        return l;
    }

    public String getSummaryText() {
        return summary.getText() + "\n" + lastCheckpoint.getText();
    }

    private void queueRefresh() {
        if (refreshQueued.compareAndSet(false, true)) {
            Display d = PlatformUI.getWorkbench().getDisplay();
            d.asyncExec(() -> {
                refreshQueued.set(false);
                if (viewer != null && !viewer.getTable().isDisposed()) {
                    refreshNow();
                }
            });
        }
    }

    private void refreshNow() {
        jobCombo.removeAll();
        for (IManaJob j : jobs) {
            jobCombo.add(j.getName() + (j.isRestart() ? " (restart)" : "") + (j.isTerminated() ? " \u2014 ended" : ""));
        }
        if (shown == null) {
            jobCombo.setText("");
            summary.setText("No MANA job yet. Run an MPI program with Run As > MANA MPI Job.");
            lastCheckpoint.setText("");
            viewer.setInput(List.of());
            return;
        }
        jobCombo.select(jobs.indexOf(shown));
        JobStatus st = shown.getStatus();
        List<RankInfo> ranks = shown.getRanks();
        File reported = st != null && !st.lastCheckpointDirectory().isEmpty() ? new File(st.lastCheckpointDirectory())
            : null;
        List<RankRow> rows = new ArrayList<>();
        for (RankInfo r : ranks) {
            RankRow row = RankRow.of(shown, r, shown.getCheckpointDirectory());
            if (row.image() == null && reported != null) {
                row = RankRow.of(shown, r, reported);
            }
            rows.add(row);
        }
        viewer.setInput(rows);
        String state;
        if (shown.isTerminated()) {
            state = "ended";
        } else if (st != null && st.checkpointing()) {
            state = "checkpointing";
        } else if (ranks.isEmpty()) {
            state = "starting";
        } else {
            state = "running";
        }
        int n = shown.getSettings().ranks();
        summary.setText(shown.getName() + ": " + state + ", " + (st == null ? 0 : st.connected()) + " of " + n
            + " ranks connected; coordinator " + (shown.getCoordinator().isHosted() ? "hosted by Eclipse at " : "at ")
            + shown.getCoordinator().endpoint()
            + (st != null && st.interval() > 0 ? "; checkpoint every " + st.interval() + " s" : ""));
        CheckpointResult last = shown.getLastCheckpoint();
        if (st != null && st.generation() > 0 && st.lastCheckpointMillis() == 0) {
            lastCheckpoint.setText("Last checkpoint: generation " + st.generation() + " (restarted from it), "
                + shown.getCheckpointDirectory());
        } else if (st != null && st.generation() > 0) {
            lastCheckpoint.setText("Last checkpoint: generation " + st.generation() + " at "
                + ManaFormat.time(st.lastCheckpointMillis()) + ", " + ManaFormat.bytes(st.lastCheckpointBytes()) + " in "
                + ManaFormat.seconds(st.lastCheckpointNanos()) + ", " + st.lastCheckpointDirectory());
        } else if (last != null) {
            lastCheckpoint.setText("Last checkpoint: " + last.summary());
        } else {
            lastCheckpoint.setText("Last checkpoint: none yet (" + shown.getCheckpointDirectory() + ")");
        }
        summary.getParent().layout(true);
        selectionProvider.fire();
    }

    @Override
    public void jobAdded(IManaJob job) {
        Display.getDefault().asyncExec(() -> {
            if (viewer == null || viewer.getTable().isDisposed()) {
                return;
            }
            jobs.add(job);
            if (followNewest || shown == null) {
                shown = job;
            }
            refreshNow();
        });
    }

    @Override
    public void jobChanged(IManaJob job) {
        if (job == shown) {
            queueRefresh();
        }
    }

    @Override
    public void jobTerminated(IManaJob job) {
        queueRefresh();
    }

    @Override
    public void checkpointDone(IManaJob job, CheckpointResult result) {
        queueRefresh();
    }

    @Override
    public void setFocus() {
        viewer.getTable().setFocus();
    }

    @Override
    public void dispose() {
        ManaJobs.removeListener(this);
        super.dispose();
    }

    /** Selection: the rows chosen, else the job shown (so actions apply to it). */
    private final class JobSelectionProvider implements ISelectionProvider {
        private final List<ISelectionChangedListener> listeners = new ArrayList<>();

        @Override
        public ISelection getSelection() {
            if (viewer != null && !viewer.getSelection().isEmpty()) {
                return viewer.getSelection();
            }
            return shown == null ? StructuredSelection.EMPTY : new StructuredSelection(shown);
        }

        @Override
        public void setSelection(ISelection selection) {
            viewer.setSelection(selection);
        }

        @Override
        public void addSelectionChangedListener(ISelectionChangedListener l) {
            listeners.add(l);
        }

        @Override
        public void removeSelectionChangedListener(ISelectionChangedListener l) {
            listeners.remove(l);
        }

        void fire() {
            SelectionChangedEvent e = new SelectionChangedEvent(this, getSelection());
            for (ISelectionChangedListener l : new ArrayList<>(listeners)) {
                l.selectionChanged(e);
            }
        }
    }
}
