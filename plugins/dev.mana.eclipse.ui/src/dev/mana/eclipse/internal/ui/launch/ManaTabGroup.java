package dev.mana.eclipse.internal.ui.launch;

import org.eclipse.debug.ui.AbstractLaunchConfigurationTabGroup;
import org.eclipse.debug.ui.CommonTab;
import org.eclipse.debug.ui.ILaunchConfigurationDialog;
import org.eclipse.debug.ui.ILaunchConfigurationTab;

/** Tabs of a "MANA MPI Job": Main, MPI, Slurm, Checkpoints, Environment, Common. */
public final class ManaTabGroup extends AbstractLaunchConfigurationTabGroup {
    @Override
    public void createTabs(ILaunchConfigurationDialog dialog, String mode) {
        setTabs(new ILaunchConfigurationTab[] {new ManaMainTab(), new ManaMpiTab(), new ManaSlurmTab(), new ManaCheckpointTab(),
            new ManaEnvironmentTab(), new CommonTab()});
    }
}
