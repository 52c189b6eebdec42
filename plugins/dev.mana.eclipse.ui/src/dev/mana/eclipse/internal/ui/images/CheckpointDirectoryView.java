package dev.mana.eclipse.internal.ui.images;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jface.action.Action;
import org.eclipse.jface.action.IToolBarManager;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.Color;
import org.eclipse.swt.graphics.Point;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.DirectoryDialog;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Table;
import org.eclipse.swt.widgets.TableColumn;
import org.eclipse.swt.widgets.TableItem;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.IMemento;
import org.eclipse.ui.IViewSite;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.part.ViewPart;

import dev.mana.eclipse.core.ManaFormat;
import dev.mana.eclipse.internal.ui.ManaUIPlugin;
import dev.mana.eclipse.internal.ui.actions.RestartDialog;
import dev.mana.inspector.CheckpointDirectory;
import dev.mana.inspector.ImageException;

/**
 * A checkpoint directory as a grid: one row per rank, one column per generation (size, time, verified or
 * not), the stale {@code *.tmp} files, and whether restart would take it (image-inspector's
 * {@link CheckpointDirectory#scan}, which reads each image's header). Click a cell to select it (Ctrl-click:
 * a second one), double-click to open the image. Actions: open, verify all (a background Job), compare two
 * generations (the diff editor), Restart from Here... (the restart dialog on this directory).
 */
public final class CheckpointDirectoryView extends ViewPart {
    public static final String ID = "dev.mana.eclipse.ui.checkpointDirectoryView";
    private static final String MEMENTO_DIR = "directory";

    private Text dirText;
    private Label summary;
    private Table table;
    private Path directory;
    private CheckpointDirectory scanned;
    /** Each image's modification time, read by the scan (never on the UI thread). */
    private final Map<Path, Long> modified = new HashMap<>();
    /** The scan whose result the view waits for, or null; an older scan's result is dropped. */
    private volatile Job scanJob;
    /** Family of the scan jobs (tests). */
    public static final Object SCAN_FAMILY = new Object();
    private final List<Long> generations = new ArrayList<>();
    /** rank -> generation -> image (complete images whose header reads). */
    private final Map<Long, Map<Long, CheckpointDirectory.ImageFile>> grid = new LinkedHashMap<>();
    private final Map<Path, Verification> verified = new ConcurrentHashMap<>();
    /** Selected cells: {rank, generation}; at most two. */
    private final List<long[]> selection = new ArrayList<>();
    private String initialDirectory;

    @Override
    public void init(IViewSite site, IMemento memento) throws PartInitException {
        super.init(site, memento);
        if (memento != null) {
            initialDirectory = memento.getString(MEMENTO_DIR);
        }
    }

    @Override
    public void saveState(IMemento memento) {
        if (directory != null) {
            memento.putString(MEMENTO_DIR, directory.toString());
        }
    }

    @Override
    public void createPartControl(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        c.setLayout(new GridLayout(3, false));
        org.eclipse.ui.PlatformUI.getWorkbench().getHelpSystem().setHelp(c,
            dev.mana.eclipse.internal.ui.IManaHelpContexts.DIRECTORY_VIEW);
        new Label(c, SWT.NONE).setText(Messages.CheckpointDirectoryView_directory);
        dirText = new Text(c, SWT.BORDER);
        dirText.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        dirText.setMessage(Messages.CheckpointDirectoryView_directoryHint);
        dirText.addListener(SWT.DefaultSelection, e -> setDirectory(Path.of(dirText.getText().trim())));
        Button browse = new Button(c, SWT.PUSH);
        browse.setText(Messages.CheckpointDirectoryView_browse);
        browse.addListener(SWT.Selection, e -> browse());
        summary = new Label(c, SWT.WRAP);
        GridData sd = new GridData(SWT.FILL, SWT.TOP, true, false);
        sd.horizontalSpan = 3;
        summary.setLayoutData(sd);
        table = new Table(c, SWT.BORDER | SWT.FULL_SELECTION | SWT.HIDE_SELECTION);
        table.setHeaderVisible(true);
        table.setLinesVisible(true);
        GridData td = new GridData(SWT.FILL, SWT.FILL, true, true);
        td.horizontalSpan = 3;
        table.setLayoutData(td);
        // the selection is of cells (drawn by fillRow), not of the table's rows
        table.addListener(SWT.Selection, e -> table.deselectAll());
        table.addListener(SWT.MouseDown, e -> {
            long[] cell = cellAt(new Point(e.x, e.y));
            if (cell != null) {
                selectCell(cell[0], cell[1], (e.stateMask & SWT.MOD1) != 0);
            }
        });
        table.addListener(SWT.MouseDoubleClick, e -> {
            long[] cell = cellAt(new Point(e.x, e.y));
            if (cell != null) {
                openImage(cell[0], cell[1]);
            }
        });
        contributeActions(getViewSite().getActionBars().getToolBarManager());
        if (initialDirectory != null) {
            setDirectory(Path.of(initialDirectory));
        } else {
            summary.setText(Messages.CheckpointDirectoryView_choose);
        }
    }

    private void contributeActions(IToolBarManager tb) {
        tb.add(action(Messages.CheckpointDirectoryView_refresh, Messages.CheckpointDirectoryView_refreshTip, dev.mana.eclipse.internal.ui.ManaUIPlugin.IMG_REFRESH, () -> {
            if (directory != null) {
                setDirectory(directory);
            }
        }));
        tb.add(action(Messages.CheckpointDirectoryView_open, Messages.CheckpointDirectoryView_openTip, dev.mana.eclipse.internal.ui.ManaUIPlugin.IMG_IMAGE, () -> {
            if (!selection.isEmpty()) {
                openImage(selection.get(0)[0], selection.get(0)[1]);
            }
        }));
        tb.add(action(Messages.CheckpointDirectoryView_verifyAll, Messages.CheckpointDirectoryView_verifyAllTip, dev.mana.eclipse.internal.ui.ManaUIPlugin.IMG_VERIFY,
            this::verifyAll));
        tb.add(action(Messages.CheckpointDirectoryView_compare, Messages.CheckpointDirectoryView_compareTip, dev.mana.eclipse.internal.ui.ManaUIPlugin.IMG_COMPARE, () -> {
            long[] g = generationsToCompare();
            if (g == null) {
                MessageDialog.openInformation(getSite().getShell(), Messages.CheckpointDirectoryView_compareTitle,
                    Messages.CheckpointDirectoryView_compareTooFew);
            } else {
                compare(g[0], g[1]);
            }
        }));
        tb.add(action(Messages.CheckpointDirectoryView_restart, Messages.CheckpointDirectoryView_restartTip, dev.mana.eclipse.internal.ui.ManaUIPlugin.IMG_RESTART,
            this::restartFromHere));
    }

    /** A toolbar button with its icon (the text stays for menus and accessibility). */
    private static Action action(String text, String tip, String image, Runnable r) {
        Action a = new Action(text, dev.mana.eclipse.internal.ui.ManaUIPlugin.descriptor(image)) {
            @Override
            public void run() {
                r.run();
            }
        };
        a.setToolTipText(tip);
        return a;
    }

    private void browse() {
        DirectoryDialog d = new DirectoryDialog(getSite().getShell());
        d.setMessage(Messages.CheckpointDirectoryView_browseMessage);
        if (directory != null) {
            d.setFilterPath(directory.toString());
        }
        String p = d.open();
        if (p != null) {
            setDirectory(Path.of(p));
        }
    }

    /** What a scan found: the directory, or why it could not be read, and each image's time. */
    private record Scan(CheckpointDirectory dir, String error, Map<Path, Long> modified) {
        static Scan of(Path directory) {
            CheckpointDirectory d;
            try {
                d = CheckpointDirectory.scan(directory);
            } catch (ImageException e) {
                return new Scan(null, e.getMessage(), Map.of());
            }
            Map<Path, Long> times = new HashMap<>();
            for (CheckpointDirectory.RankDir rd : d.ranks()) {
                for (CheckpointDirectory.ImageFile f : rd.images()) {
                    try {
                        times.put(f.path(), Files.getLastModifiedTime(f.path()).toMillis());
                    } catch (IOException e) {
                        // shown as unknown
                    }
                }
            }
            return new Scan(d, null, times);
        }
    }

    /**
     * Shows {@code dir}. The scan reads every image's header, perhaps on a slow or hung parallel file system:
     * it runs in a background job, the view says "Scanning ..." meanwhile, and a newer directory drops an
     * older scan's result (a hung scan holds one worker thread, never the UI thread).
     */
    public void setDirectory(Path dir) {
        directory = dir.toAbsolutePath();
        if (!dirText.getText().equals(directory.toString())) {
            dirText.setText(directory.toString());
        }
        selection.clear();
        grid.clear();
        generations.clear();
        modified.clear();
        scanned = null;
        summary.setText(NLS.bind(Messages.CheckpointDirectoryView_scanning, directory));
        rebuildTable();
        Path d = directory;
        org.eclipse.swt.widgets.Display display = table.getDisplay();
        Job job = new Job(NLS.bind(Messages.CheckpointDirectoryView_scanJob, d)) {
            @Override
            protected org.eclipse.core.runtime.IStatus run(org.eclipse.core.runtime.IProgressMonitor monitor) {
                Scan found = Scan.of(d);
                Job self = this;
                display.asyncExec(() -> {
                    if (scanJob == self && !table.isDisposed()) {
                        scanJob = null;
                        showScan(found);
                    }
                });
                return org.eclipse.core.runtime.Status.OK_STATUS;
            }

            @Override
            public boolean belongsTo(Object family) {
                return family == SCAN_FAMILY;
            }
        };
        job.setSystem(true);
        scanJob = job;
        job.schedule();
    }

    /** Whether a scan is under way (its result not shown yet). */
    public boolean isScanning() {
        return scanJob != null;
    }

    private void showScan(Scan found) {
        if (found.dir() == null) {
            summary.setText(found.error());
            rebuildTable();
            return;
        }
        scanned = found.dir();
        modified.putAll(found.modified());
        TreeSet<Long> gens = new TreeSet<>();
        for (long r = 0; r < Math.max(0, scanned.nranks()); r++) {
            grid.put(r, new HashMap<>());
        }
        for (CheckpointDirectory.RankDir rd : scanned.ranks()) {
            Map<Long, CheckpointDirectory.ImageFile> row = grid.computeIfAbsent(rd.rank(), k -> new HashMap<>());
            for (CheckpointDirectory.ImageFile f : rd.images()) {
                if (f.error() == null && f.generation() >= 0) {
                    row.put(f.generation(), f);
                    gens.add(f.generation());
                }
            }
        }
        generations.addAll(gens);
        String ranks = NLS.bind(scanned.nranks() == 1 ? Messages.CheckpointDirectoryView_rankOne
            : Messages.CheckpointDirectoryView_ranks, scanned.nranks());
        String gensText = gens.isEmpty() ? Messages.CheckpointDirectoryView_generationsNone
            : gens.size() == 1 ? NLS.bind(Messages.CheckpointDirectoryView_generationOne, gens)
            : NLS.bind(Messages.CheckpointDirectoryView_generations, gens.size(), gens);
        String restart = scanned.restartable()
            ? NLS.bind(Messages.CheckpointDirectoryView_restartable, scanned.newestCommonGeneration(),
                ManaFormat.bytes(scanned.bytesOfNewest()))
            : NLS.bind(Messages.CheckpointDirectoryView_notRestartable, String.join(" ", scanned.problems()));
        String text = NLS.bind(Messages.CheckpointDirectoryView_summary, new Object[] {ranks, gensText, restart});
        if (!scanned.tmpFiles().isEmpty()) {
            text += "\n" + NLS.bind(Messages.CheckpointDirectoryView_stale, String.join(", ",
                scanned.tmpFiles().stream().map(p -> directory.relativize(p).toString()).toList()));
        }
        summary.setText(text);
        rebuildTable();
    }

    private void rebuildTable() {
        table.setRedraw(false);
        try {
            table.removeAll();
            for (TableColumn col : table.getColumns()) {
                col.dispose();
            }
            column(Messages.CheckpointDirectoryView_columnRank, 60);
            for (long g : generations) {
                column(NLS.bind(Messages.CheckpointDirectoryView_columnGeneration, g), 340);
            }
            column("*.tmp", 160);
            for (var e : grid.entrySet()) {
                TableItem it = new TableItem(table, SWT.NONE);
                it.setData(e.getKey());
                fillRow(it);
            }
        } finally {
            table.setRedraw(true);
        }
        summary.getParent().layout(true, true);
    }

    private void column(String title, int width) {
        TableColumn tc = new TableColumn(table, SWT.LEFT);
        tc.setText(title);
        tc.setWidth(width);
    }

    private void fillRow(TableItem it) {
        long rank = (Long) it.getData();
        Map<Long, CheckpointDirectory.ImageFile> row = grid.get(rank);
        it.setText(0, Long.toString(rank));
        for (int k = 0; k < generations.size(); k++) {
            it.setText(k + 1, cellText(row.get(generations.get(k))));
            boolean sel = isSelected(rank, generations.get(k));
            it.setBackground(k + 1, sel ? selectedColour() : null);
            it.setForeground(k + 1, sel ? table.getDisplay().getSystemColor(SWT.COLOR_LIST_SELECTION_TEXT) : null);
        }
        String tmp = String.join(", ", scanned == null ? List.of() : scanned.tmpFiles().stream()
            .filter(p -> p.getParent() != null && p.getParent().getFileName().toString().equals("ckpt_rank_" + rank))
            .map(p -> p.getFileName().toString()).toList());
        it.setText(generations.size() + 1, tmp);
    }

    private Color selectedColour() {
        return table.getDisplay().getSystemColor(SWT.COLOR_LIST_SELECTION);
    }

    private String cellText(CheckpointDirectory.ImageFile f) {
        if (f == null) {
            return "";
        }
        Long t = modified.get(f.path());
        String time = t == null ? Messages.CheckpointDirectoryView_timeUnknown : ManaFormat.time(t);
        Verification v = verified.get(f.path());
        return v == null ? NLS.bind(Messages.CheckpointDirectoryView_notVerified, ManaFormat.bytes(f.size()), time)
            : NLS.bind(Messages.CheckpointDirectoryView_verified, new Object[] {ManaFormat.bytes(f.size()), time, v.verdict()});
    }

    private long[] cellAt(Point p) {
        TableItem it = table.getItem(p);
        if (it == null) {
            return null;
        }
        for (int k = 0; k < generations.size(); k++) {
            if (it.getBounds(k + 1).contains(p)) {
                return new long[] {(Long) it.getData(), generations.get(k)};
            }
        }
        // the rank column: the rank's newest image
        Map<Long, CheckpointDirectory.ImageFile> row = grid.get((Long) it.getData());
        return row.isEmpty() ? null : new long[] {(Long) it.getData(), new TreeSet<>(row.keySet()).last()};
    }

    private boolean isSelected(long rank, long gen) {
        return selection.stream().anyMatch(c -> c[0] == rank && c[1] == gen);
    }

    /** Selects a cell; {@code add}: keeps the previous one too (two at most, for Compare). */
    public void selectCell(long rank, long gen, boolean add) {
        if (!add) {
            selection.clear();
        }
        if (!isSelected(rank, gen)) {
            selection.add(new long[] {rank, gen});
        }
        while (selection.size() > 2) {
            selection.remove(0);
        }
        table.deselectAll();
        for (TableItem it : table.getItems()) {
            fillRow(it);
        }
    }

    private long[] generationsToCompare() {
        if (selection.size() == 2 && selection.get(0)[1] != selection.get(1)[1]) {
            long a = Math.min(selection.get(0)[1], selection.get(1)[1]);
            long b = Math.max(selection.get(0)[1], selection.get(1)[1]);
            return new long[] {a, b};
        }
        if (generations.size() < 2) {
            return null;
        }
        return new long[] {generations.get(generations.size() - 2), generations.get(generations.size() - 1)};
    }

    /** The image of a cell, or null. */
    public Path imageOf(long rank, long gen) {
        Map<Long, CheckpointDirectory.ImageFile> row = grid.get(rank);
        CheckpointDirectory.ImageFile f = row == null ? null : row.get(gen);
        return f == null ? null : f.path();
    }

    public void openImage(long rank, long gen) {
        Path p = imageOf(rank, gen);
        if (p == null) {
            return;
        }
        try {
            ImageInputs.open(getSite().getPage(), p.toFile());
        } catch (PartInitException e) {
            ManaUIPlugin.getDefault().getLog().log(e.getStatus());
        }
    }

    /** Verify All: every image of the grid, one after the other, in a background Job; the cells update. */
    public Job verifyAll() {
        List<Path> all = new ArrayList<>();
        for (var row : grid.values()) {
            for (long g : generations) {
                if (row.get(g) != null) {
                    all.add(row.get(g).path());
                }
            }
        }
        var display = table.getDisplay();
        Job job = new Job(NLS.bind(Messages.CheckpointDirectoryView_verifyJob, directory)) {
            @Override
            protected IStatus run(IProgressMonitor monitor) {
                SubMonitor sm = SubMonitor.convert(monitor, NLS.bind(Messages.CheckpointDirectoryView_verifyTask, all.size()),
                    all.size());
                for (Path p : all) {
                    if (monitor.isCanceled()) {
                        return Status.CANCEL_STATUS;
                    }
                    Verification v = Verification.run(p, sm.split(1), null);
                    if (v.canceled()) {
                        return Status.CANCEL_STATUS;
                    }
                    verified.put(p, v);
                    display.asyncExec(() -> {
                        if (!table.isDisposed()) {
                            for (TableItem it : table.getItems()) {
                                fillRow(it);
                            }
                        }
                    });
                }
                return Status.OK_STATUS;
            }

            @Override
            public boolean belongsTo(Object family) {
                return family == VerifyPage.FAMILY;
            }
        };
        job.setUser(true);
        job.schedule();
        return job;
    }

    /** The verdict of a cell's image once verified ("OK", "CORRUPT (1 problem)", ...), else null. */
    public String verdictOf(long rank, long gen) {
        Path p = imageOf(rank, gen);
        Verification v = p == null ? null : verified.get(p);
        return v == null ? null : v.verdict();
    }

    /** Compare: every rank's image of {@code genA} with its image of {@code genB}; opens the diff editor. */
    public Job compare(long genA, long genB) {
        Map<Long, Path> a = new HashMap<>();
        Map<Long, Path> b = new HashMap<>();
        for (var e : grid.entrySet()) {
            if (e.getValue().get(genA) != null) {
                a.put(e.getKey(), e.getValue().get(genA).path());
            }
            if (e.getValue().get(genB) != null) {
                b.put(e.getKey(), e.getValue().get(genB).path());
            }
        }
        Path dir = directory;
        var display = table.getDisplay();
        Job job = new Job(NLS.bind(Messages.CheckpointDirectoryView_compareJob, genA, genB)) {

            @Override
            protected IStatus run(IProgressMonitor monitor) {
                GenerationDiff d;
                try {
                    d = GenerationDiff.compare(dir, genA, genB, a, b, monitor);
                } catch (OperationCanceledException e) {
                    return Status.CANCEL_STATUS;
                }
                display.asyncExec(() -> {
                    try {
                        getSite().getPage().openEditor(new DiffEditor.Input(d), DiffEditor.ID);
                    } catch (PartInitException e) {
                        ManaUIPlugin.getDefault().getLog().log(e.getStatus());
                    }
                });
                return Status.OK_STATUS;
            }
        };
        job.setUser(true);
        job.schedule();
        return job;
    }

    /** Restart from Here...: the restart dialog with this directory (validated there). Returns it, open. */
    public RestartDialog restartFromHere() {
        return restartFromHere(true);
    }

    /** As the action, {@code block} false: returns at once with the dialog open (tests). */
    public RestartDialog restartFromHere(boolean block) {
        if (directory == null) {
            return null;
        }
        RestartDialog d = new RestartDialog(getSite().getShell(), null, directory.toFile());
        d.setBlockOnOpen(block);
        d.open();
        return d;
    }

    public Path getDirectory() {
        return directory;
    }

    public List<Long> getGenerations() {
        return List.copyOf(generations);
    }

    public int getRankRows() {
        return table.getItemCount();
    }

    public String getSummaryText() {
        return summary.getText();
    }

    public String getCellText(long rank, long gen) {
        for (TableItem it : table.getItems()) {
            if ((Long) it.getData() == rank) {
                int k = generations.indexOf(gen);
                return k < 0 ? null : it.getText(k + 1);
            }
        }
        return null;
    }

    @Override
    public void setFocus() {
        table.setFocus();
    }

    /** Opens the view on {@code dir} (for the job view, the restart dialog and tests). */
    public static CheckpointDirectoryView show(org.eclipse.ui.IWorkbenchPage page, File dir) throws PartInitException {
        CheckpointDirectoryView v = (CheckpointDirectoryView) page.showView(ID);
        v.setDirectory(dir.toPath());
        return v;
    }
}
