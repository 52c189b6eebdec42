package dev.mana.eclipse.internal.ui.launch;

import java.io.File;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.variables.VariablesPlugin;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.ui.AbstractLaunchConfigurationTab;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Group;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Spinner;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.PlatformUI;

import dev.mana.eclipse.core.CheckpointDirectoryValidator;
import dev.mana.eclipse.core.CheckpointValidation;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaFormat;
import dev.mana.eclipse.internal.ui.IManaHelpContexts;
import dev.mana.eclipse.internal.ui.ManaUIPlugin;

/** Checkpoint directory and interval; how images are written; restart from a checkpoint. */
public final class ManaCheckpointTab extends AbstractLaunchConfigurationTab {
    Text directory;
    Spinner interval;
    Button timing;
    ImageOptionsGroup images;
    Button restart;
    Text restartDirectory;
    Label restartStatus;
    private String workingDirectory = "";
    private int ranks = ManaCore.DEFAULT_RANKS;

    @Override
    public void createControl(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        c.setLayout(new GridLayout(1, false));
        setControl(c);
        PlatformUI.getWorkbench().getHelpSystem().setHelp(c, IManaHelpContexts.CHECKPOINT_TAB);

        Group g = TabSupport.group(c, Messages.ManaCheckpointTab_directory, 1);
        directory = TabSupport.text(g, 1, this::changed);
        directory.setMessage(Messages.ManaCheckpointTab_directoryHint);
        TabSupport.browseButtons(g, directory, true, Messages.ManaCheckpointTab_directoryBrowse);

        Group i = TabSupport.group(c, Messages.ManaCheckpointTab_checkpointsGroup, 3);
        new Label(i, SWT.NONE).setText(Messages.ManaCheckpointTab_every);
        interval = new Spinner(i, SWT.BORDER);
        interval.setMinimum(0);
        interval.setMaximum(7 * 24 * 3600);
        interval.addModifyListener(e -> changed());
        new Label(i, SWT.NONE).setText(Messages.ManaCheckpointTab_seconds);
        timing = new Button(i, SWT.CHECK);
        timing.setText(Messages.ManaCheckpointTab_timing);
        GridData span = new GridData();
        span.horizontalSpan = 3;
        timing.setLayoutData(span);
        timing.addListener(SWT.Selection, e -> changed());

        images = new ImageOptionsGroup(c, this::changed);

        Group r = TabSupport.group(c, Messages.ManaCheckpointTab_restartGroup, 1);
        restart = new Button(r, SWT.CHECK);
        restart.setText(Messages.ManaCheckpointTab_restart);
        restart.addListener(SWT.Selection, e -> changed());
        new Label(r, SWT.NONE).setText(Messages.ManaCheckpointTab_restartFrom);
        restartDirectory = TabSupport.text(r, 1, this::changed);
        TabSupport.browseButtons(r, restartDirectory, true, Messages.ManaCheckpointTab_restartBrowse);
        restartStatus = new Label(r, SWT.WRAP);
        restartStatus.setLayoutData(new GridData(SWT.FILL, SWT.TOP, true, false));
    }

    private void changed() {
        restartDirectory.setEnabled(restart.getSelection());
        images.setEnabled(!restart.getSelection());
        restartStatus.setText(describeRestart());
        restartStatus.getParent().layout(true);
        scheduleUpdateJob();
        updateLaunchConfigurationDialog();
    }

    private File resolve(String path, String dflt) {
        String p = path.isBlank() ? dflt : path;
        try {
            p = VariablesPlugin.getDefault().getStringVariableManager().performStringSubstitution(p, false);
        } catch (CoreException e) {
            return null;
        }
        File f = new File(p);
        if (!f.isAbsolute() && !workingDirectory.isBlank()) {
            f = new File(workingDirectory, p);
        }
        return f;
    }

    /** The validation of the directory a restart would use. */
    CheckpointValidation restartValidation() {
        File ck = resolve(directory.getText().trim(), workingDirectory);
        File dir = resolve(restartDirectory.getText().trim(), ck == null ? "" : ck.getPath());
        return dir == null ? null : CheckpointDirectoryValidator.validate(dir, ranks);
    }

    private String describeRestart() {
        CheckpointValidation v = restartValidation();
        if (v == null) {
            return "";
        }
        if (v.isValid()) {
            return NLS.bind(Messages.ManaCheckpointTab_found, new Object[] {v.directory(), v.summary(),
                ManaFormat.time(v.lastModified())});
        }
        return restart.getSelection() ? v.summary() : Messages.ManaCheckpointTab_noCheckpoint;
    }

    @Override
    public void setDefaults(ILaunchConfigurationWorkingCopy wc) {
        // defaults are absent attributes (see ManaJobSettings.from), so new configurations stay clean
    }

    @Override
    public void initializeFrom(ILaunchConfiguration cfg) {
        try {
            workingDirectory = cfg.getAttribute(ManaCore.ATTR_WORKING_DIRECTORY, "");
            if (workingDirectory.isBlank()) {
                String p = cfg.getAttribute(ManaCore.ATTR_PROGRAM, "");
                File parent = new File(p).getParentFile();
                workingDirectory = parent == null ? "" : parent.getPath();
            }
            ranks = cfg.getAttribute(ManaCore.ATTR_RANKS, ManaCore.DEFAULT_RANKS);
            directory.setText(cfg.getAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, ""));
            interval.setSelection(cfg.getAttribute(ManaCore.ATTR_CHECKPOINT_INTERVAL, 0));
            timing.setSelection(cfg.getAttribute(ManaCore.ATTR_TIMING, false));
            images.initializeFrom(cfg);
            restart.setSelection(cfg.getAttribute(ManaCore.ATTR_RESTART, false));
            restartDirectory.setText(cfg.getAttribute(ManaCore.ATTR_RESTART_DIRECTORY, ""));
            changed();
        } catch (CoreException e) {
            setErrorMessage(e.getMessage());
        }
    }

    @Override
    public void activated(ILaunchConfigurationWorkingCopy wc) {
        initializeFrom(wc); // the Main and MPI tabs may have changed the working directory and ranks
    }

    @Override
    public void performApply(ILaunchConfigurationWorkingCopy wc) {
        TabSupport.put(wc, ManaCore.ATTR_CHECKPOINT_DIRECTORY, directory.getText().trim(), "");
        TabSupport.put(wc, ManaCore.ATTR_CHECKPOINT_INTERVAL, interval.getSelection(), 0);
        TabSupport.put(wc, ManaCore.ATTR_TIMING, timing.getSelection(), false);
        images.performApply(wc);
        TabSupport.put(wc, ManaCore.ATTR_RESTART, restart.getSelection(), false);
        TabSupport.put(wc, ManaCore.ATTR_RESTART_DIRECTORY, restartDirectory.getText().trim(), "");
    }

    @Override
    public boolean isValid(ILaunchConfiguration cfg) {
        setErrorMessage(null);
        setWarningMessage(null);
        if (restart.getSelection()) {
            CheckpointValidation v = restartValidation();
            if (v != null && !v.isValid()) {
                setErrorMessage(NLS.bind(Messages.ManaCheckpointTab_cannotRestart, v.summary()));
                return false;
            }
            return true; // a restart keeps the image options of its launch: nothing here to warn about
        }
        // a warning, not an error: the runtime runs the combination (incremental, unforked) and says so itself
        setWarningMessage(images.warning());
        return true;
    }

    @Override
    public String getName() {
        return Messages.ManaCheckpointTab_name;

    }

    @Override
    public String getId() {
        return "dev.mana.eclipse.ui.checkpointTab";
    }

    @Override
    public org.eclipse.swt.graphics.Image getImage() {
        return ManaUIPlugin.image(ManaUIPlugin.IMG_CHECKPOINT);
    }
}
