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
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaFormat;
import dev.mana.eclipse.core.ManaJobSettings;
import dev.mana.eclipse.internal.ui.IManaHelpContexts;
import dev.mana.eclipse.internal.ui.ManaUIPlugin;

/**
 * Restart from Checkpoint...: choose the job's launch configuration and a checkpoint directory; the
 * directory is validated as it is typed (every rank present, one generation, no partial write) and
 * the job is relaunched with mana_restart.
 */
public final class RestartDialog extends TitleAreaDialog {
    private final IManaJob job;
    private final List<ILaunchConfiguration> configs = new ArrayList<>();
    Combo config;
    Text directory;
    Table images;
    private CheckpointValidation validation;

    /** The directory to show first instead of the job's (Restart from Here... of the directory view), or null. */
    private final File initialDirectory;

    public RestartDialog(Shell parent, IManaJob job) {
        this(parent, job, null);
    }

    public RestartDialog(Shell parent, IManaJob job, File directory) {
        super(parent);
        this.job = job;
        this.initialDirectory = directory;
        setHelpAvailable(true);
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
        directory.setText(initialDirectory != null ? initialDirectory.getPath()
            : job != null ? job.getCheckpointDirectory().getPath() : defaultDirectory());
        directory.addModifyListener(e -> validate());
        return area;
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
        createButton(parent, IDialogConstants.OK_ID, "&Restart", true);
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
        if (validation.isValid()) {
            setErrorMessage(null);
            setMessage("Restart " + selectedConfig().getName() + " from generation " + validation.generation() + ": "
                + validation.summary() + ", written " + ManaFormat.time(validation.lastModified()) + ".",
                IMessageProvider.INFORMATION);
        } else {
            setErrorMessage(String.join(" ", validation.problems()));
        }
        getButton(IDialogConstants.OK_ID).setEnabled(validation.isValid());
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

    public CheckpointValidation getValidation() {
        return validation;
    }

    public Text directoryText() {
        return directory;
    }

    private ILaunchConfigurationWorkingCopy restartCopy;

    @Override
    protected void okPressed() {
        try {
            ILaunchConfiguration c = selectedConfig();
            restartCopy = c.getWorkingCopy().copy(c.getName() + " (restart)");
            restartCopy.setAttribute(ManaCore.ATTR_RESTART, true);
            restartCopy.setAttribute(ManaCore.ATTR_RESTART_DIRECTORY, validation.directory().getPath());
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

    /** Launches the restart chosen (after OK). */
    public void launch() {
        if (restartCopy != null) {
            DebugUITools.launch(restartCopy, ILaunchManager.RUN_MODE);
        }
    }
}
