package dev.mana.eclipse.internal.ui.launch;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.ui.AbstractLaunchConfigurationTab;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Group;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Spinner;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.PlatformUI;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.MpiLauncher;
import dev.mana.eclipse.internal.ui.IManaHelpContexts;

/** Ranks, MPI implementation, launcher, and the coordinator (hosted or joined). */
public final class ManaMpiTab extends AbstractLaunchConfigurationTab {
    Spinner ranks;
    Combo mpi;
    Button mpirun;
    Button srun;
    Text launcherArgs;
    Button hostCoordinator;
    Button joinCoordinator;
    Text statusFile;
    Text host;
    Spinner port;

    @Override
    public void createControl(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        c.setLayout(new GridLayout(1, false));
        setControl(c);
        PlatformUI.getWorkbench().getHelpSystem().setHelp(c, IManaHelpContexts.MPI_TAB);

        Group g = TabSupport.group(c, Messages.ManaMpiTab_mpiGroup, 2);
        new Label(g, SWT.NONE).setText(Messages.ManaMpiTab_ranks);
        ranks = new Spinner(g, SWT.BORDER);
        ranks.setMinimum(1);
        ranks.setMaximum(65536);
        ranks.addModifyListener(e -> changed());
        new Label(g, SWT.NONE).setText(Messages.ManaMpiTab_implementation);
        mpi = new Combo(g, SWT.READ_ONLY);
        for (MpiImplementation m : MpiImplementation.values()) {
            mpi.add(m == MpiImplementation.AUTO ? Messages.ManaMpiTab_automatic : m.label());
        }
        mpi.addModifyListener(e -> changed());
        new Label(g, SWT.NONE).setText(Messages.ManaMpiTab_launcher);
        Composite radios = new Composite(g, SWT.NONE);
        radios.setLayout(new GridLayout(2, false));
        mpirun = new Button(radios, SWT.RADIO);
        mpirun.setText(Messages.ManaMpiTab_mpirun);
        srun = new Button(radios, SWT.RADIO);
        srun.setText(Messages.ManaMpiTab_srun);
        mpirun.addListener(SWT.Selection, e -> changed());
        srun.addListener(SWT.Selection, e -> changed());
        new Label(g, SWT.NONE).setText(Messages.ManaMpiTab_launcherArguments);
        launcherArgs = TabSupport.text(g, 1, this::changed);
        launcherArgs.setMessage(Messages.ManaMpiTab_launcherArgumentsHint);

        Group k = TabSupport.group(c, Messages.ManaMpiTab_coordinatorGroup, 2);
        hostCoordinator = new Button(k, SWT.RADIO);
        hostCoordinator.setText(Messages.ManaMpiTab_hostCoordinator);
        GridData span = new GridData();
        span.horizontalSpan = 2;
        hostCoordinator.setLayoutData(span);
        joinCoordinator = new Button(k, SWT.RADIO);
        joinCoordinator.setText(Messages.ManaMpiTab_joinCoordinator);
        GridData span2 = new GridData();
        span2.horizontalSpan = 2;
        joinCoordinator.setLayoutData(span2);
        new Label(k, SWT.NONE).setText(Messages.ManaMpiTab_statusFile);
        statusFile = TabSupport.text(k, 1, this::changed);
        statusFile.setMessage(Messages.ManaMpiTab_statusFileHint);
        new Label(k, SWT.NONE).setText(Messages.ManaMpiTab_host);
        host = TabSupport.text(k, 1, this::changed);
        new Label(k, SWT.NONE).setText(Messages.ManaMpiTab_port);
        port = new Spinner(k, SWT.BORDER);
        port.setMinimum(1);
        port.setMaximum(65535);
        port.addModifyListener(e -> changed());
        hostCoordinator.addListener(SWT.Selection, e -> changed());
        joinCoordinator.addListener(SWT.Selection, e -> changed());
    }

    private void changed() {
        boolean join = joinCoordinator.getSelection();
        statusFile.setEnabled(join);
        host.setEnabled(join && statusFile.getText().isBlank());
        port.setEnabled(join && statusFile.getText().isBlank());
        scheduleUpdateJob();
        updateLaunchConfigurationDialog();
    }

    @Override
    public void setDefaults(ILaunchConfigurationWorkingCopy wc) {
        // defaults are absent attributes (see ManaJobSettings.from), so new configurations stay clean
    }

    @Override
    public void initializeFrom(ILaunchConfiguration cfg) {
        try {
            ranks.setSelection(cfg.getAttribute(ManaCore.ATTR_RANKS, ManaCore.DEFAULT_RANKS));
            mpi.select(MpiImplementation.fromName(cfg.getAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, "")).ordinal());
            boolean s = MpiLauncher.fromName(cfg.getAttribute(ManaCore.ATTR_LAUNCHER, "")) == MpiLauncher.SRUN;
            srun.setSelection(s);
            mpirun.setSelection(!s);
            launcherArgs.setText(cfg.getAttribute(ManaCore.ATTR_LAUNCHER_ARGUMENTS, ""));
            boolean join = cfg.getAttribute(ManaCore.ATTR_JOIN_COORDINATOR, false);
            joinCoordinator.setSelection(join);
            hostCoordinator.setSelection(!join);
            statusFile.setText(cfg.getAttribute(ManaCore.ATTR_COORDINATOR_STATUS_FILE, ""));
            host.setText(cfg.getAttribute(ManaCore.ATTR_COORDINATOR_HOST, "localhost"));
            port.setSelection(cfg.getAttribute(ManaCore.ATTR_COORDINATOR_PORT, ManaCore.DEFAULT_COORDINATOR_PORT));
            changed();
        } catch (CoreException e) {
            setErrorMessage(e.getMessage());
        }
    }

    @Override
    public void performApply(ILaunchConfigurationWorkingCopy wc) {
        TabSupport.put(wc, ManaCore.ATTR_RANKS, ranks.getSelection(), ManaCore.DEFAULT_RANKS);
        TabSupport.put(wc, ManaCore.ATTR_MPI_IMPLEMENTATION,
            MpiImplementation.values()[Math.max(0, mpi.getSelectionIndex())].name(), MpiImplementation.AUTO.name());
        TabSupport.put(wc, ManaCore.ATTR_LAUNCHER, (srun.getSelection() ? MpiLauncher.SRUN : MpiLauncher.MPIRUN).name(),
            MpiLauncher.MPIRUN.name());
        TabSupport.put(wc, ManaCore.ATTR_LAUNCHER_ARGUMENTS, launcherArgs.getText().trim(), "");
        TabSupport.put(wc, ManaCore.ATTR_JOIN_COORDINATOR, joinCoordinator.getSelection(), false);
        TabSupport.put(wc, ManaCore.ATTR_COORDINATOR_STATUS_FILE, statusFile.getText().trim(), "");
        TabSupport.put(wc, ManaCore.ATTR_COORDINATOR_HOST, host.getText().trim(), "localhost");
        TabSupport.put(wc, ManaCore.ATTR_COORDINATOR_PORT, port.getSelection(), ManaCore.DEFAULT_COORDINATOR_PORT);
    }

    @Override
    public boolean isValid(ILaunchConfiguration cfg) {
        setErrorMessage(null);
        if (joinCoordinator.getSelection() && statusFile.getText().isBlank() && host.getText().isBlank()) {
            setErrorMessage(Messages.ManaMpiTab_nameCoordinator);
            return false;
        }
        return true;
    }

    @Override
    public String getName() {
        return Messages.ManaMpiTab_name;

    }

    @Override
    public String getId() {
        return "dev.mana.eclipse.ui.mpiTab";
    }
}
