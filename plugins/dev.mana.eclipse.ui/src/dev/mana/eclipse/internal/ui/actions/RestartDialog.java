package dev.mana.eclipse.internal.ui.actions;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.jface.dialogs.IDialogConstants;
import org.eclipse.jface.dialogs.IMessageProvider;
import org.eclipse.jface.dialogs.TitleAreaDialog;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.DirectoryDialog;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Table;
import org.eclipse.swt.widgets.TableColumn;
import org.eclipse.swt.widgets.TableItem;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.PlatformUI;

import dev.mana.eclipse.core.CheckpointDirectoryValidator;
import dev.mana.eclipse.core.CheckpointValidation;
import dev.mana.eclipse.core.DebugRanks;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaFormat;
import dev.mana.eclipse.core.ManaJobSettings;
import dev.mana.eclipse.internal.ui.IManaHelpContexts;
import dev.mana.eclipse.internal.ui.ManaUIPlugin;
import dev.mana.eclipse.internal.ui.Messages;

/**
 * Restart from Checkpoint...: choose the job's launch configuration and a checkpoint directory; the
 * directory is validated as it is typed (every rank present, one generation, no partial write) and
 * the job is relaunched with mana_restart. Its Debug variant (when the launch type has a Debug mode, i.e.
 * the MANA debugger is installed) restarts in Debug mode instead: the chosen ranks (default rank 0, at
 * most {@link DebugRanks#MAX}) wait at a restart pause level while gdb attaches and inserts the
 * breakpoints, then appear in the Debug view.
 */
public final class RestartDialog extends TitleAreaDialog {
    private final IManaJob job;
    private final List<ILaunchConfiguration> configs = new ArrayList<>();
    Combo config;
    Text directory;
    Table images;
    private CheckpointValidation validation;
    /** The Debug variant: restart in Debug mode. */
    private boolean debugMode;
    Button debug;
    org.eclipse.swt.widgets.Spinner pauseLevel;
    Text debugRanks;
    /** Slurm: restart on a new allocation (another node count, tasks per node, node list). */
    Button newAllocation;
    Text allocNodes;
    Text allocTasksPerNode;
    Text allocNodeList;

    /** The directory to show first instead of the job's (Restart from Here... of the directory view), or null. */
    private final File initialDirectory;

    public RestartDialog(Shell parent, IManaJob job) {
        this(parent, job, null);
    }

    public RestartDialog(Shell parent, IManaJob job, File directory) {
        this(parent, job, directory, false);
    }

    /** {@code debug}: open as the Debug variant (Debug from Checkpoint...). */
    public RestartDialog(Shell parent, IManaJob job, File directory, boolean debug) {
        super(parent);
        this.job = job;
        this.initialDirectory = directory;
        this.debugMode = debug;
        setHelpAvailable(true);
    }

    /** Whether the launch type has a Debug mode (the MANA debugger bundles are installed). */
    static boolean debuggerInstalled() {
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        var type = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE);
        return type != null && type.supportsMode(ILaunchManager.DEBUG_MODE);
    }

    @Override
    protected void configureShell(Shell shell) {
        super.configureShell(shell);
        shell.setText(Messages.RestartDialog_shellTitle);
        PlatformUI.getWorkbench().getHelpSystem().setHelp(shell, IManaHelpContexts.RESTART_DIALOG);
    }

    @Override
    protected boolean isResizable() {
        return true;
    }

    @Override
    protected Control createDialogArea(Composite parent) {
        Composite area = (Composite) super.createDialogArea(parent);
        setTitle(Messages.RestartDialog_title);
        setTitleImage(ManaUIPlugin.image(ManaUIPlugin.IMG_RESTART_BANNER));
        Composite c = new Composite(area, SWT.NONE);
        c.setLayout(new GridLayout(3, false));
        c.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));

        new Label(c, SWT.NONE).setText(Messages.RestartDialog_configuration);
        config = new Combo(c, SWT.READ_ONLY);
        GridData gd = new GridData(SWT.FILL, SWT.CENTER, true, false);
        gd.horizontalSpan = 2;
        config.setLayoutData(gd);
        ILaunchConfiguration preferred = job == null ? null : original(job.getLaunch().getLaunchConfiguration());
        try {
            ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
            for (ILaunchConfiguration lc : lm.getLaunchConfigurations(
                    lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE))) {
                configs.add(lc);
            }
        } catch (CoreException e) {
            ManaUIPlugin.getDefault().getLog().log(e.getStatus());
        }
        if (preferred != null && !configs.contains(preferred)) {
            configs.add(0, preferred);
        }
        for (ILaunchConfiguration lc : configs) {
            config.add(lc.getName());
        }
        if (!configs.isEmpty()) {
            config.select(Math.max(0, configs.indexOf(preferred)));
        }
        config.addListener(SWT.Selection, e -> {
            if (initialDirectory != null) {
                validate();
                return;
            }
            directory.setText(defaultDirectory());
            fillAllocation();
            validate();
        });

        new Label(c, SWT.NONE).setText(Messages.RestartDialog_directory);
        directory = new Text(c, SWT.BORDER);
        directory.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        Button browse = new Button(c, SWT.PUSH);
        browse.setText(Messages.RestartDialog_browse);
        browse.addListener(SWT.Selection, e -> {
            DirectoryDialog d = new DirectoryDialog(getShell());
            d.setFilterPath(directory.getText());
            d.setMessage(Messages.RestartDialog_browseMessage);
            String p = d.open();
            if (p != null) {
                directory.setText(p);
            }
        });

        images = new Table(c, SWT.BORDER | SWT.FULL_SELECTION);
        images.setHeaderVisible(true);
        images.setLinesVisible(true);
        GridData tg = new GridData(SWT.FILL, SWT.FILL, true, true);
        tg.horizontalSpan = 3;
        tg.heightHint = 120;
        tg.widthHint = 560;
        images.setLayoutData(tg);
        for (String[] col : new String[][] {{Messages.RestartDialog_columnRank, "60"}, {Messages.RestartDialog_columnImage, "300"},
            {Messages.RestartDialog_columnSize, "90"}, {Messages.RestartDialog_columnWritten, "150"}}) {
            TableColumn tc = new TableColumn(images, SWT.LEFT);
            tc.setText(col[0]);
            tc.setWidth(Integer.parseInt(col[1]));
        }
        // a double-click opens the image in the image editor
        images.addListener(SWT.MouseDoubleClick, e -> {
            TableItem it = images.getItem(new org.eclipse.swt.graphics.Point(e.x, e.y));
            if (it != null) {
                openImage(images.indexOf(it));
            }
        });
        Button inspect = new Button(c, SWT.PUSH);
        inspect.setText(Messages.RestartDialog_inspect);
        inspect.setToolTipText(Messages.RestartDialog_inspectTip);
        inspect.addListener(SWT.Selection, e -> {
            try {
                dev.mana.eclipse.internal.ui.images.CheckpointDirectoryView.show(
                    PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage(),
                    new File(directory.getText().trim()));
            } catch (org.eclipse.ui.PartInitException ex) {
                setErrorMessage(ex.getMessage());
            }
        });
        createAllocationGroup(c);
        if (debuggerInstalled()) {
            createDebugGroup(c);
        }
        fillAllocation();
        directory.setText(initialDirectory != null ? initialDirectory.getPath()
            : job != null ? job.getCheckpointDirectory().getPath() : defaultDirectory());
        directory.addModifyListener(e -> validate());
        return area;
    }

    /**
     * Slurm (a configuration that runs on a Slurm cluster): restart on a new allocation, i.e. a new job of
     * another shape or on other nodes; its ranks must still be as many as the checkpoint's.
     */
    private void createAllocationGroup(Composite c) {
        org.eclipse.swt.widgets.Group g = new org.eclipse.swt.widgets.Group(c, SWT.NONE);
        g.setText(Messages.RestartDialog_slurmGroup);
        g.setLayout(new GridLayout(6, false));
        GridData gd = new GridData(SWT.FILL, SWT.CENTER, true, false);
        gd.horizontalSpan = 3;
        g.setLayoutData(gd);
        newAllocation = new Button(g, SWT.CHECK);
        newAllocation.setText(Messages.RestartDialog_newAllocation);
        newAllocation.setToolTipText(Messages.RestartDialog_newAllocationTip);
        GridData span = new GridData(SWT.FILL, SWT.CENTER, true, false);
        span.horizontalSpan = 6;
        newAllocation.setLayoutData(span);
        new Label(g, SWT.NONE).setText(Messages.RestartDialog_allocNodes);
        allocNodes = new Text(g, SWT.BORDER);
        allocNodes.setLayoutData(new GridData(40, SWT.DEFAULT));
        new Label(g, SWT.NONE).setText(Messages.RestartDialog_allocTasksPerNode);
        allocTasksPerNode = new Text(g, SWT.BORDER);
        allocTasksPerNode.setLayoutData(new GridData(40, SWT.DEFAULT));
        allocTasksPerNode.setToolTipText(Messages.RestartDialog_allocTasksPerNodeTip);
        new Label(g, SWT.NONE).setText(Messages.RestartDialog_allocNodeList);
        allocNodeList = new Text(g, SWT.BORDER);
        allocNodeList.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        allocNodeList.setMessage(Messages.RestartDialog_allocNodeListHint);
        newAllocation.addListener(SWT.Selection, e -> {
            enableAllocation();
            updateMessage();
        });
        for (Text t : new Text[] {allocNodes, allocTasksPerNode, allocNodeList}) {
            t.addModifyListener(e -> updateMessage());
        }
    }

    /** The selected configuration's Slurm options, or null (not on Slurm, or unreadable). */
    private dev.mana.eclipse.core.SlurmOptions slurmOf() {
        ILaunchConfiguration c = selectedConfig();
        try {
            return c == null ? null : dev.mana.eclipse.core.SlurmOptions.from(c);
        } catch (CoreException e) {
            return null;
        }
    }

    /** The allocation fields from the selected configuration; the group is usable only for a Slurm one. */
    private void fillAllocation() {
        if (newAllocation == null) {
            return;
        }
        dev.mana.eclipse.core.SlurmOptions o = slurmOf();
        newAllocation.setSelection(false);
        newAllocation.setEnabled(o != null);
        allocNodes.setText(o == null ? "" : Integer.toString(o.nodes()));
        allocTasksPerNode.setText(o == null ? "" : o.tasksPerNodeText());
        allocNodeList.setText(o == null ? "" : o.nodeList());
        enableAllocation();
    }

    private void enableAllocation() {
        boolean on = newAllocation.getSelection();
        allocNodes.setEnabled(on);
        allocTasksPerNode.setEnabled(on);
        allocNodeList.setEnabled(on);
    }

    /** What is wrong with the new allocation (null: nothing, or not asked for). */
    private String allocationProblem() {
        if (newAllocation == null || !newAllocation.getSelection()) {
            return null;
        }
        List<String> p = dev.mana.eclipse.core.SlurmOptions.problems(allocNodes.getText(), allocTasksPerNode.getText(),
            "", "", allocNodeList.getText());
        if (!p.isEmpty()) {
            return p.get(0);
        }
        dev.mana.eclipse.core.SlurmOptions o = slurmOf();
        if (o != null && o.submit() != dev.mana.eclipse.core.SlurmSubmit.SBATCH
                && !dev.mana.eclipse.core.SlurmOptions.placementOf(allocTasksPerNode.getText()).isEmpty()) {
            return NLS.bind(Messages.RestartDialog_allocPlacementBatchOnly, allocTasksPerNode.getText().trim());
        }
        int n = dev.mana.eclipse.core.SlurmOptions.ranksOf(allocNodes.getText(), allocTasksPerNode.getText());
        if (n != ranks()) {
            return NLS.bind(Messages.RestartDialog_allocRanks, n, ranks());
        }
        return null;
    }

    /** The error the dialog shows now (null: none), for tests. */
    private String shownError;

    @Override
    public void setErrorMessage(String message) {
        shownError = message;
        super.setErrorMessage(message);
    }

    public String errorMessage() {
        return shownError;
    }

    /** The Slurm group's widgets, for tests: the check box, nodes, tasks per node, node list. */
    public Button newAllocationButton() {
        return newAllocation;
    }

    public Text allocationNodesText() {
        return allocNodes;
    }

    public Text allocationTasksPerNodeText() {
        return allocTasksPerNode;
    }

    public Text allocationNodeListText() {
        return allocNodeList;
    }

    /** Debug: restart in Debug mode with the chosen ranks paused for gdb. */
    private void createDebugGroup(Composite c) {
        org.eclipse.swt.widgets.Group g = new org.eclipse.swt.widgets.Group(c, SWT.NONE);
        g.setText(Messages.RestartDialog_debugGroup);
        g.setLayout(new GridLayout(4, false));
        GridData gd = new GridData(SWT.FILL, SWT.CENTER, true, false);
        gd.horizontalSpan = 3;
        g.setLayoutData(gd);
        debug = new Button(g, SWT.CHECK);
        debug.setText(Messages.RestartDialog_debugCheck);
        GridData span = new GridData(SWT.FILL, SWT.CENTER, true, false);
        span.horizontalSpan = 4;
        debug.setLayoutData(span);
        debug.setSelection(debugMode);
        new Label(g, SWT.NONE).setText(Messages.RestartDialog_debugRanks);
        debugRanks = new Text(g, SWT.BORDER);
        debugRanks.setText("0");
        debugRanks.setToolTipText(NLS.bind(Messages.RestartDialog_debugRanksTip, DebugRanks.MAX));
        debugRanks.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        new Label(g, SWT.NONE).setText(Messages.RestartDialog_pauseLevel);
        pauseLevel = new org.eclipse.swt.widgets.Spinner(g, SWT.BORDER);
        pauseLevel.setValues(2, 2, 4, 0, 1, 1);
        pauseLevel.setToolTipText(Messages.RestartDialog_pauseLevelTip);
        debug.addListener(SWT.Selection, e -> {
            debugMode = debug.getSelection();
            updateMessage();
        });
        debugRanks.addModifyListener(e -> updateMessage());
        pauseLevel.addModifyListener(e -> updateMessage());
    }

    private static ILaunchConfiguration original(ILaunchConfiguration c) {
        if (c instanceof ILaunchConfigurationWorkingCopy wc && wc.getOriginal() != null) {
            return wc.getOriginal();
        }
        return c;
    }

    private ILaunchConfiguration selectedConfig() {
        int i = config.getSelectionIndex();
        return i < 0 ? null : configs.get(i);
    }

    private int ranks() {
        try {
            ILaunchConfiguration c = selectedConfig();
            dev.mana.eclipse.core.SlurmOptions o = slurmOf();
            if (o != null) {
                return o.ranks(); // on Slurm the allocation's shape is the rank count
            }
            return c == null ? 0 : c.getAttribute(ManaCore.ATTR_RANKS, ManaCore.DEFAULT_RANKS);
        } catch (CoreException e) {
            return 0;
        }
    }

    private String defaultDirectory() {
        ILaunchConfiguration c = selectedConfig();
        if (c == null) {
            return "";
        }
        try {
            return ManaJobSettings.from(c).checkpointDirectory().getPath();
        } catch (CoreException e) {
            return "";
        }
    }

    @Override
    protected void createButtonsForButtonBar(Composite parent) {
        createButton(parent, IDialogConstants.OK_ID, debugMode ? Messages.RestartDialog_debugButton : Messages.RestartDialog_restartButton, true);
        createButton(parent, IDialogConstants.CANCEL_ID, IDialogConstants.CANCEL_LABEL, false);
        validate();
    }

    /** How long typing may pause before the directory is read (a keystroke never reads it). */
    static final long VALIDATION_DELAY_MILLIS = 150;

    /** The newest directory check; an older one still running (a hung file system) is dropped. */
    private Job validationJob;

    /**
     * Validates the directory in the background and shows what is there or what is wrong when the check
     * ends. Reading the images' headers can take long, or hang for good on a parallel file system, so it
     * never runs on the UI thread: each change cancels the check before it (its result is dropped) and
     * schedules a new one after a short pause, so typing a path reads the directory once.
     */
    void validate() {
        if (images == null || getButton(IDialogConstants.OK_ID) == null) {
            return;
        }
        if (validationJob != null) {
            validationJob.cancel();
        }
        images.removeAll();
        validation = null;
        if (selectedConfig() == null) {
            validationJob = null;
            setErrorMessage(Messages.RestartDialog_noConfiguration);
            getButton(IDialogConstants.OK_ID).setEnabled(false);
            return;
        }
        File dir = new File(directory.getText().trim());
        int ranks = ranks();
        setErrorMessage(null);
        setMessage(NLS.bind(Messages.RestartDialog_checking, dir.getPath()), IMessageProvider.INFORMATION);
        getButton(IDialogConstants.OK_ID).setEnabled(false);
        Display display = getShell().getDisplay();
        Job check = new Job(NLS.bind(Messages.RestartDialog_checkJob, dir.getPath())) {
            @Override
            protected IStatus run(IProgressMonitor monitor) {
                CheckpointValidation v = CheckpointDirectoryValidator.validate(dir, ranks);
                // sizes and dates too: a stat on a hung file system hangs as well
                List<String[]> rows = new ArrayList<>();
                for (Map.Entry<Integer, File> e : v.images().entrySet()) {
                    rows.add(new String[] {Integer.toString(e.getKey()), e.getValue().getName(),
                        ManaFormat.bytes(e.getValue().length()), ManaFormat.time(e.getValue().lastModified())});
                }
                if (monitor.isCanceled()) {
                    return Status.CANCEL_STATUS;
                }
                Job self = this;
                display.asyncExec(() -> {
                    if (validationJob == self && !images.isDisposed()) {
                        show(v, rows);
                    }
                });
                return Status.OK_STATUS;
            }
        };
        check.setSystem(true);
        validationJob = check;
        check.schedule(VALIDATION_DELAY_MILLIS);
    }

    /** Shows a finished check (UI thread). */
    private void show(CheckpointValidation v, List<String[]> rows) {
        validation = v;
        images.removeAll();
        for (String[] row : rows) {
            TableItem it = new TableItem(images, SWT.NONE);
            it.setData(v.images().get(Integer.parseInt(row[0])));
            it.setText(row);
        }
        updateMessage();
    }

    /** The message and the Restart button from the last check and the Debug fields (no file is read). */
    private void updateMessage() {
        if (validation == null || getButton(IDialogConstants.OK_ID) == null) {
            return;
        }
        String debugProblem = null;
        boolean debugging = debug != null && debug.getSelection();
        if (debugging) {
            try {
                DebugRanks.parse(debugRanks.getText(), ranks());
            } catch (IllegalArgumentException e) {
                debugProblem = e.getMessage();
            }
        }
        if (debugProblem == null) {
            debugProblem = allocationProblem();
        }
        getButton(IDialogConstants.OK_ID).setText(debugging ? Messages.RestartDialog_debugButton
            : Messages.RestartDialog_restartButton);
        if (validation.isValid() && debugProblem == null) {
            setErrorMessage(null);
            String what = NLS.bind(debugging ? Messages.RestartDialog_debugFrom : Messages.RestartDialog_restartFrom,
                new Object[] {selectedConfig().getName(), validation.generation(), validation.summary(),
                    ManaFormat.time(validation.lastModified())});
            if (debugging) {
                what += " " + NLS.bind(Messages.RestartDialog_debugRanksWait,
                    DebugRanks.parse(debugRanks.getText(), ranks()), pauseLevel.getSelection());
            }
            setMessage(what, IMessageProvider.INFORMATION);
        } else if (!validation.isValid()) {
            setErrorMessage(String.join(" ", validation.problems()));
        } else {
            setErrorMessage(debugProblem);
        }
        getButton(IDialogConstants.OK_ID).setEnabled(validation.isValid() && debugProblem == null);
    }

    /**
     * Runs the event loop (call on the UI thread) until the check of the directory now typed has been
     * shown, at most {@code millis}; returns it, or null at the time out. For tests and callers that
     * set the directory and want its result.
     */
    public CheckpointValidation awaitValidation(long millis) {
        Display d = getShell().getDisplay();
        long end = System.currentTimeMillis() + millis;
        while (validation == null && System.currentTimeMillis() < end) {
            if (!d.readAndDispatch()) {
                // woken by the check's asyncExec; the timer bounds the wait when the check hangs
                d.timerExec(50, () -> { });
                d.sleep();
            }
        }
        return validation;
    }

    /** Whether a directory check is waiting or running (its result not shown yet). */
    public boolean isValidating() {
        return validation == null && validationJob != null;
    }

    /** Opens the image of a row of the images table in the image editor (the double-click); false if none. */
    public boolean openImage(int row) {
        if (row < 0 || row >= images.getItemCount() || !(images.getItem(row).getData() instanceof File f)) {
            return false;
        }
        try {
            dev.mana.eclipse.internal.ui.images.ImageInputs.open(
                PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage(), f);
            return true;
        } catch (org.eclipse.ui.PartInitException ex) {
            setErrorMessage(ex.getMessage());
            return false;
        }
    }

    /** Selects a configuration as the combo does (tests and callers); false when the dialog does not list it. */
    public boolean selectConfiguration(String name) {
        for (int i = 0; i < configs.size(); i++) {
            if (configs.get(i).getName().equals(name)) {
                config.select(i);
                config.notifyListeners(SWT.Selection, new org.eclipse.swt.widgets.Event());
                return true;
            }
        }
        return false;
    }

    public CheckpointValidation getValidation() {
        return validation;
    }

    public Text directoryText() {
        return directory;
    }

    private ILaunchConfigurationWorkingCopy restartCopy;
    private String launchMode = ILaunchManager.RUN_MODE;

    @Override
    public boolean close() {
        if (validationJob != null) {
            validationJob.cancel();
        }
        return super.close();
    }

    @Override
    protected void okPressed() {
        try {
            ILaunchConfiguration c = selectedConfig();
            restartCopy = c.getWorkingCopy().copy(NLS.bind(Messages.RestartDialog_restartCopy, c.getName()));

            restartCopy.setAttribute(ManaCore.ATTR_RESTART, true);
            restartCopy.setAttribute(ManaCore.ATTR_RESTART_DIRECTORY, validation.directory().getPath());
            if (newAllocation != null && newAllocation.getSelection()) {
                dev.mana.eclipse.core.SlurmOptions moved = slurmOf().onAllocation(
                    Integer.parseInt(allocNodes.getText().trim()), allocTasksPerNode.getText(), allocNodeList.getText());
                restartCopy.setAttribute(ManaCore.ATTR_SLURM_NODES, moved.nodes());
                restartCopy.setAttribute(ManaCore.ATTR_SLURM_TASKS_PER_NODE, moved.tasksPerNode());
                restartCopy.setAttribute(ManaCore.ATTR_SLURM_PLACEMENT,
                    moved.placement().isEmpty() ? "" : moved.tasksPerNodeText());
                restartCopy.setAttribute(ManaCore.ATTR_SLURM_NODE_LIST, moved.nodeList());
            }
            launchMode = ILaunchManager.RUN_MODE;
            if (debug != null && debug.getSelection()) {
                restartCopy.setAttribute(ManaCore.ATTR_DEBUG_RANKS, debugRanks.getText().trim());
                restartCopy.setAttribute(ManaCore.ATTR_DEBUG_PAUSE_LEVEL, pauseLevel.getSelection());
                launchMode = ILaunchManager.DEBUG_MODE;
            }
        } catch (CoreException e) {
            setErrorMessage(e.getMessage());
            return;
        }
        super.okPressed();
    }

    /** Presses Restart when the directory is valid (for tests and other callers); true if the dialog closed. */
    public boolean pressRestart() {
        // as the button: not while it is disabled (a bad Debug or allocation field)
        if (validation == null || !validation.isValid() || !getButton(IDialogConstants.OK_ID).isEnabled()) {
            return false;
        }
        okPressed();
        return getReturnCode() == OK;
    }

    /** Launches the restart chosen (after OK), in Debug mode for the Debug variant. */
    public void launch() {
        if (restartCopy != null) {
            DebugUITools.launch(restartCopy, launchMode);
        }
    }

    /** The restart configuration made by OK (null before), and the mode {@link #launch()} uses. */
    public ILaunchConfigurationWorkingCopy restartConfiguration() {
        return restartCopy;
    }

    public String launchMode() {
        return launchMode;
    }

    /** The Debug group's widgets (null without the MANA debugger), for tests: check box, ranks, pause level. */
    public Button debugButton() {
        return debug;
    }

    public Text debugRanksText() {
        return debugRanks;
    }

    public org.eclipse.swt.widgets.Spinner pauseLevelSpinner() {
        return pauseLevel;
    }
}
