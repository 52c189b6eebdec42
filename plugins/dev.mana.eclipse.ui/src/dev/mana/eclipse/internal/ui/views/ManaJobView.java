package dev.mana.eclipse.internal.ui.views;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
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
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.graphics.Color;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Label;
import org.eclipse.ui.ISharedImages;
import org.eclipse.ui.IWorkbenchActionConstants;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.part.ViewPart;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.RankState;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.IManaJobListener;
import dev.mana.eclipse.core.ManaFormat;
import dev.mana.eclipse.core.ManaJobs;
import dev.mana.eclipse.internal.ui.IManaHelpContexts;
import dev.mana.eclipse.internal.ui.ManaUIPlugin;
import dev.mana.eclipse.internal.ui.Messages;

/**
 * The MANA Job view: one row per rank (host, pid, state as {@code mana_status --list}, the rank's newest
 * image), the job's last checkpoint, and the checkpoint/restart actions. Follows the newest job unless
 * another is chosen; updates as the coordinator reports. A rank of the job the coordinator has no record
 * of (not registered yet, or lost) shows as unprotected, with a warning. The images are found by a
 * background scan: the UI thread never lists a checkpoint directory (a parallel file system may hang).
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

        new Label(c, SWT.NONE).setText(Messages.ManaJobView_job);
        jobCombo = new Combo(c, SWT.READ_ONLY);
        jobCombo.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        jobCombo.addListener(SWT.Selection, e -> {
            int i = jobCombo.getSelectionIndex();
            if (i >= 0 && i < jobs.size()) {
                shown = jobs.get(i);
                progress = null;
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
        // every column reads the row only: sizes and dates were read by the background scan
        column(Messages.ManaJobView_columnRank, 60, r -> Integer.toString(r.rank()), this::stateImage);
        column(Messages.ManaJobView_columnHost, 120, r -> r.info() == null ? "" : r.info().host(), r -> null);
        column(Messages.ManaJobView_columnPid, 80,
            r -> r.info() != null && r.info().pid() > 0 ? Integer.toString(r.info().pid()) : "", r -> null);
        column(Messages.ManaJobView_columnState, 120,
            r -> r.isUnprotected() ? Messages.ManaJobView_unprotected : r.state().name(), r -> null);
        column(Messages.ManaJobView_columnGeneration, 95,
            r -> r.info() != null && r.info().generation() > 0 ? Long.toString(r.info().generation()) : "", r -> null);
        column(Messages.ManaJobView_columnLast, 150,
            r -> r.image() == null ? "" : ManaFormat.time(r.image().modifiedMillis()), r -> null);
        column(Messages.ManaJobView_columnSize, 80, r -> r.image() == null ? "" : ManaFormat.bytes(r.image().bytes()),
            r -> null);
        column(Messages.ManaJobView_columnImage, 360, r -> r.image() == null ? "" : r.image().file().getPath(),
            r -> null);
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
        org.eclipse.jface.action.Action showDir = new org.eclipse.jface.action.Action(Messages.ManaJobView_showDirectory) {
            @Override
            public void run() {
                showCheckpointDirectory();
            }
        };
        showDir.setToolTipText(Messages.ManaJobView_showDirectoryTip);
        showDir.setImageDescriptor(ManaUIPlugin.descriptor(ManaUIPlugin.IMG_CHECKPOINT_DIR));
        org.eclipse.jface.viewers.ColumnViewerToolTipSupport.enableFor(viewer);
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

            @Override
            public String getToolTipText(Object element) {
                RankRow r = (RankRow) element;
                return r.isUnprotected() ? NLS.bind(Messages.ManaJobView_unprotectedTip, r.rank()) : null;
            }

            @Override
            public Color getForeground(Object element) {
                // a rank without checkpoints stands out, as a warning does
                return ((RankRow) element).isUnprotected()
                    ? viewer.getTable().getDisplay().getSystemColor(SWT.COLOR_DARK_RED) : null;
            }
        });
    }

    private Image stateImage(RankRow r) {
        if (r.isUnprotected()) {
            return PlatformUI.getWorkbench().getSharedImages().getImage(ISharedImages.IMG_OBJS_WARN_TSK);
        }
        return ManaUIPlugin.image(switch (r.state()) {
            case RUNNING -> ManaUIPlugin.IMG_RANK_RUNNING;
            case RESTARTING -> ManaUIPlugin.IMG_RANK_RESTARTING;
            case EXITED, UNKNOWN, UNPROTECTED -> ManaUIPlugin.IMG_RANK_EXITED;
            case SUSPENDED, DRAINED, CHECKPOINTED, COMMITTED -> ManaUIPlugin.IMG_RANK_CHECKPOINTING;
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
            dev.mana.eclipse.internal.ui.images.ImageInputs.open(getSite().getPage(), r.image().file());
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

    /** The text of a cell as the table shows it (tests). */
    public String getTableItemText(int row, int column) {
        return viewer.getTable().getItem(row).getText(column);
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

    /** Updates the view from the job model (no file is read here) and starts a scan of the images. */
    private void refreshNow() {
        showJob();
        scanImages();
    }

    /** Updates the widgets from the job model and the last scan's images; reads nothing from disk. */
    private void showJob() {
        jobCombo.removeAll();
        for (IManaJob j : jobs) {
            jobCombo.add(j.getName() + (j.isRestart() ? Messages.ManaJobView_restartSuffix : "")
                + (j.isTerminated() ? Messages.ManaJobView_endedSuffix : ""));
        }
        if (shown == null) {
            jobCombo.setText("");
            summary.setText(Messages.ManaJobView_noJob);
            lastCheckpoint.setText("");
            viewer.setInput(List.of());
            return;
        }
        jobCombo.select(jobs.indexOf(shown));
        JobStatus st = shown.getStatus();
        List<RankInfo> ranks = shown.getRanks();
        List<RankRow> rows = rows(shown, st, ranks, images.job == shown ? images.found : Map.of());
        viewer.setInput(rows);
        String state;
        if (shown.isTerminated()) {
            state = Messages.ManaJobView_stateEnded;
        } else if (progress != null && ManaFormat.phase(progress.state()) < 4) {
            // the coordinator's progress events: which phase the ranks reached
            state = NLS.bind(Messages.ManaJobView_stateProgress, new Object[] {progress.generation(),
                progress.reached(), progress.nranks(), progress.state().name()});
        } else if (st != null && st.checkpointing()) {
            state = Messages.ManaJobView_stateCheckpointing;
        } else if (ranks.isEmpty()) {
            state = Messages.ManaJobView_stateStarting;
        } else {
            state = Messages.ManaJobView_stateRunning;
        }
        int n = st != null && st.nranks() > 0 ? st.nranks() : shown.getSettings().ranks();
        long protectedRanks = rows.stream().filter(r -> !r.isUnprotected() && r.state() != RankState.EXITED).count();
        summary.setText(NLS.bind(Messages.ManaJobView_summary, new Object[] {shown.getName(), state,
            protectedRanks, n,
            NLS.bind(shown.getCoordinator().isHosted() ? Messages.ManaJobView_hostedAt : Messages.ManaJobView_at,
                shown.getCoordinator().endpoint()),
            st != null && st.intervalSeconds() > 0 ? NLS.bind(Messages.ManaJobView_interval, st.intervalSeconds()) : ""}));
        CheckpointResult last = shown.getLastCheckpoint();
        if (st != null && st.generation() > 0 && st.lastCheckpointUnixMs() == 0) {
            lastCheckpoint.setText(NLS.bind(Messages.ManaJobView_lastRestarted, st.generation(),
                shown.getCheckpointDirectory()));
        } else if (st != null && st.generation() > 0) {
            lastCheckpoint.setText(NLS.bind(Messages.ManaJobView_last, new Object[] {st.generation(),
                ManaFormat.time(st.lastCheckpointUnixMs()), ManaFormat.bytes(st.lastCheckpointBytes()),
                ManaFormat.seconds(st.lastCheckpointNanos()), st.lastCheckpointDir()}));
        } else if (last != null) {
            lastCheckpoint.setText(NLS.bind(Messages.ManaJobView_lastSeen, ManaFormat.summary(last)));
        } else {
            lastCheckpoint.setText(NLS.bind(Messages.ManaJobView_lastNone, shown.getCheckpointDirectory()));
        }
        summary.getParent().layout(true);
        selectionProvider.fire();
    }

    /**
     * The rows of a job: its ranks the coordinator knows, and while it runs, every other rank of its world
     * ({@link JobStatus#nranks()}) as unprotected: not connected to this coordinator (not registered yet, or
     * lost and not reconnected), so it runs without checkpoints.
     */
    static List<RankRow> rows(IManaJob job, JobStatus st, List<RankInfo> ranks, Map<Integer, RankImages.Image> found) {
        Map<Integer, RankInfo> byRank = new TreeMap<>();
        for (RankInfo r : ranks) {
            byRank.put(r.rank(), r);
        }
        if (!job.isTerminated() && st != null) {
            for (int r = 0; r < st.nranks(); r++) {
                byRank.putIfAbsent(r, null);
            }
        }
        List<RankRow> rows = new ArrayList<>();
        byRank.forEach((r, info) -> rows.add(new RankRow(job, r, info, found.get(r))));
        return rows;
    }

    /** The last scan's result: for which job, and the images it found. */
    private record Scanned(IManaJob job, Map<Integer, RankImages.Image> found) {}

    private volatile Scanned images = new Scanned(null, Map.of());
    /** The one scan that may run; a refresh while it runs asks for another after it (never two threads). */
    private Job scan;
    private boolean rescan;

    /**
     * Lists the ranks' image folders in a background job and shows what it found when it ends. At most one
     * scan runs: refreshes during a scan ask for one more after it, so a hung file system holds one worker
     * thread, never the UI thread and never a growing pile of them.
     */
    private void scanImages() {
        if (shown == null) {
            return;
        }
        if (scan != null) {
            rescan = true;
            return;
        }
        IManaJob job = shown;
        JobStatus st = job.getStatus();
        List<Integer> ranks = rows(job, st, job.getRanks(), Map.of()).stream().map(RankRow::rank).toList();
        List<File> dirs = new ArrayList<>();
        dirs.add(job.getCheckpointDirectory());
        if (st != null && !st.lastCheckpointDir().isEmpty()) {
            dirs.add(new File(st.lastCheckpointDir()));
        }
        Display display = viewer.getTable().getDisplay();
        scan = new Job(NLS.bind(Messages.ManaJobView_scanJob, job.getName())) {
            @Override
            protected IStatus run(IProgressMonitor monitor) {
                Map<Integer, RankImages.Image> found = RankImages.scan(ranks, dirs);
                display.asyncExec(() -> {
                    scan = null;
                    if (viewer == null || viewer.getTable().isDisposed()) {
                        return;
                    }
                    images = new Scanned(job, found);
                    if (job == shown) {
                        showJob();
                    }
                    if (rescan) {
                        rescan = false;
                        scanImages();
                    }
                });
                return Status.OK_STATUS;
            }
        };
        scan.setSystem(true);
        scan.schedule();
    }

    /** Whether a scan of the images is running or asked for (tests wait for the view to be quiet). */
    public boolean isScanning() {
        return scan != null || rescan;
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
                progress = null;
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

    /** The shown job's last checkpoint progress event (kept after the checkpoint ends), or null. */
    private volatile CheckpointProgress progress;

    @Override
    public void checkpointProgress(IManaJob job, CheckpointProgress p) {
        if (job == shown) {
            progress = p;
            queueRefresh();
        }
    }

    @Override
    public void checkpointDone(IManaJob job, CheckpointResult result) {
        queueRefresh();
    }

    /** The last checkpoint progress event of the shown job the view received, or null (tests). */
    public CheckpointProgress getLastProgress() {
        return progress;
    }

    @Override
    public void setFocus() {
        viewer.getTable().setFocus();
    }

    @Override
    public void dispose() {
        ManaJobs.removeListener(this);
        if (scan != null) {
            scan.cancel();
        }
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
