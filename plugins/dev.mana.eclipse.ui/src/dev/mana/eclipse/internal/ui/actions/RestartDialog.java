package dev.mana.eclipse.internal.ui.actions;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.jface.dialogs.IDialogConstants;
import org.eclipse.jface.dialogs.IMessageProvider;
import org.eclipse.jface.dialogs.TitleAreaDialog;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.DirectoryDialog;
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
        shell.setText("Restart from Checkpoint");
        PlatformUI.getWorkbench().getHelpSystem().setHelp(shell, IManaHelpContexts.RESTART_DIALOG);
    }

    @Override
    protected boolean isResizable() {
        return true;
    }

    @Override
    protected Control createDialogArea(Composite parent) {
        Composite area = (Composite) super.createDialogArea(parent);
        setTitle("Restart a MANA Job from a Checkpoint");
        setTitleImage(ManaUIPlugin.image(ManaUIPlugin.IMG_RESTART_BANNER));
        Composite c = new Composite(area, SWT.NONE);
        c.setLayout(new GridLayout(3, false));
        c.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));

        new Label(c, SWT.NONE).setText("&Launch configuration:");
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
            validate();
        });

        new Label(c, SWT.NONE).setText("Checkpoint &directory:");
        directory = new Text(c, SWT.BORDER);
        directory.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        Button browse = new Button(c, SWT.PUSH);
        browse.setText("&Browse...");
        browse.addListener(SWT.Selection, e -> {
            DirectoryDialog d = new DirectoryDialog(getShell());
            d.setFilterPath(directory.getText());
            d.setMessage("The folder that holds the ckpt_rank_N folders");
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
        for (String[] col : new String[][] {{"Rank", "60"}, {"Image", "300"}, {"Size", "90"}, {"Written", "150"}}) {
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
        inspect.setText("&Inspect Images...");
        inspect.setToolTipText("Shows the directory in the Checkpoint Directory view (open, verify, compare images)");
        inspect.addListener(SWT.Selection, e -> {
            try {
                dev.mana.eclipse.internal.ui.images.CheckpointDirectoryView.show(
                    PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage(),
                    new File(directory.getText().trim()));
            } catch (org.eclipse.ui.PartInitException ex) {
                setErrorMessage(ex.getMessage());
            }
        });
        if (debuggerInstalled()) {
            createDebugGroup(c);
        }
        directory.setText(initialDirectory != null ? initialDirectory.getPath()
            : job != null ? job.getCheckpointDirectory().getPath() : defaultDirectory());
        directory.addModifyListener(e -> validate());
        return area;
    }

    /** Debug: restart in Debug mode with the chosen ranks paused for gdb. */
    private void createDebugGroup(Composite c) {
        org.eclipse.swt.widgets.Group g = new org.eclipse.swt.widgets.Group(c, SWT.NONE);
        g.setText("Debug");
        g.setLayout(new GridLayout(4, false));
        GridData gd = new GridData(SWT.FILL, SWT.CENTER, true, false);
        gd.horizontalSpan = 3;
        g.setLayoutData(gd);
        debug = new Button(g, SWT.CHECK);
        debug.setText("Debug the restarted ranks with &gdb (breakpoints are inserted before the program resumes)");
        GridData span = new GridData(SWT.FILL, SWT.CENTER, true, false);
        span.horizontalSpan = 4;
        debug.setLayoutData(span);
        debug.setSelection(debugMode);
        new Label(g, SWT.NONE).setText("&Ranks to debug:");
        debugRanks = new Text(g, SWT.BORDER);
        debugRanks.setText("0");
        debugRanks.setToolTipText("e.g. 0 or 0,3 (at most " + DebugRanks.MAX + "); the others run on");
        debugRanks.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        new Label(g, SWT.NONE).setText("&Pause level:");
        pauseLevel = new org.eclipse.swt.widgets.Spinner(g, SWT.BORDER);
        pauseLevel.setValues(2, 2, 4, 0, 1, 1);
        pauseLevel.setToolTipText("MANA_RESTART_PAUSE: 2 after the memory restore, 3 threads back, 4 just before the program resumes");
        debug.addListener(SWT.Selection, e -> {
            debugMode = debug.getSelection();
            validate();
        });
        debugRanks.addModifyListener(e -> validate());
        pauseLevel.addModifyListener(e -> validate());
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
        createButton(parent, IDialogConstants.OK_ID, debugMode ? "&Debug" : "&Restart", true);
        createButton(parent, IDialogConstants.CANCEL_ID, IDialogConstants.CANCEL_LABEL, false);
        validate();
    }

    /** Validates the directory and shows what is there or what is wrong. */
    void validate() {
        if (images == null || getButton(IDialogConstants.OK_ID) == null) {
            return;
        }
        images.removeAll();
        if (selectedConfig() == null) {
            setErrorMessage("There is no MANA MPI Job launch configuration to restart.");
            getButton(IDialogConstants.OK_ID).setEnabled(false);
            return;
        }
        validation = CheckpointDirectoryValidator.validate(new File(directory.getText().trim()), ranks());
        for (Map.Entry<Integer, File> e : validation.images().entrySet()) {
            TableItem it = new TableItem(images, SWT.NONE);
            it.setData(e.getValue());
            it.setText(new String[] {Integer.toString(e.getKey()), e.getValue().getName(),
                ManaFormat.bytes(e.getValue().length()), ManaFormat.time(e.getValue().lastModified())});
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
        getButton(IDialogConstants.OK_ID).setText(debugging ? "&Debug" : "&Restart");
        if (validation.isValid() && debugProblem == null) {
            setErrorMessage(null);
            setMessage((debugging ? "Debug " : "Restart ") + selectedConfig().getName() + " from generation "
                + validation.generation() + ": " + validation.summary() + ", written "
                + ManaFormat.time(validation.lastModified()) + "."
                + (debugging ? " Ranks " + DebugRanks.parse(debugRanks.getText(), ranks()) + " wait at pause level "
                    + pauseLevel.getSelection() + " for gdb." : ""),
                IMessageProvider.INFORMATION);
        } else if (!validation.isValid()) {
            setErrorMessage(String.join(" ", validation.problems()));
        } else {
            setErrorMessage(debugProblem);
        }
        getButton(IDialogConstants.OK_ID).setEnabled(validation.isValid() && debugProblem == null);
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
    protected void okPressed() {
        try {
            ILaunchConfiguration c = selectedConfig();
            restartCopy = c.getWorkingCopy().copy(c.getName() + " (restart)");
            restartCopy.setAttribute(ManaCore.ATTR_RESTART, true);
            restartCopy.setAttribute(ManaCore.ATTR_RESTART_DIRECTORY, validation.directory().getPath());
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
        if (validation == null || !validation.isValid()) {
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
