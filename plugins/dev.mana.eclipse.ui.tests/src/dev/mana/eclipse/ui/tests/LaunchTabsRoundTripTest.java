package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.ui.ILaunchConfigurationTab;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.widgets.Shell;
import org.junit.jupiter.api.Test;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.MpiLauncher;
import dev.mana.eclipse.internal.ui.launch.ManaTabGroup;
import dev.mana.eclipse.internal.ui.launch.Messages;

/** Every tab shows a configuration and writes it back unchanged. */
class LaunchTabsRoundTripTest {

    @Test
    void tabsRoundTrip() throws CoreException {
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
            .newInstance(null, "tabs");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "/bin/true");
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, "-x \"a b\"");
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, "/tmp");
        wc.setAttribute(ManaCore.ATTR_RANKS, 4);
        wc.setAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, MpiImplementation.MPICH.name());
        wc.setAttribute(ManaCore.ATTR_LAUNCHER, MpiLauncher.SRUN.name());
        wc.setAttribute(ManaCore.ATTR_LAUNCHER_ARGUMENTS, "--exclusive");
        wc.setAttribute(ManaCore.ATTR_JOIN_COORDINATOR, true);
        wc.setAttribute(ManaCore.ATTR_COORDINATOR_STATUS_FILE, "/root/.mana.rc");
        wc.setAttribute(ManaCore.ATTR_COORDINATOR_HOST, "login1");
        wc.setAttribute(ManaCore.ATTR_COORDINATOR_PORT, 7780);
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, "/tmp/ck");
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_INTERVAL, 60);
        wc.setAttribute(ManaCore.ATTR_TIMING, true);
        wc.setAttribute(ManaCore.ATTR_RESTART_DIRECTORY, "/tmp/old");
        wc.setAttribute(ILaunchManager.ATTR_ENVIRONMENT_VARIABLES, Map.of("MANA_DEBUG", "1"));
        wc.setAttribute(ILaunchManager.ATTR_APPEND_ENVIRONMENT_VARIABLES, true);
        Map<String, Object> before = wc.getAttributes();

        Ui.sync(() -> {
            Shell shell = new Shell(Ui.display());
            try {
                ManaTabGroup g = new ManaTabGroup();
                g.createTabs(null, ILaunchManager.RUN_MODE);
                ILaunchConfigurationTab[] tabs = g.getTabs();
                assertEquals(5, tabs.length);
                assertEquals(Messages.ManaMainTab_name, tabs[0].getName());
                assertEquals(Messages.ManaMpiTab_name, tabs[1].getName());
                assertEquals(Messages.ManaCheckpointTab_name, tabs[2].getName());
                assertEquals("Environment", tabs[3].getName());
                ILaunchConfigurationWorkingCopy out = wc.copy("tabs-out");
                for (int i = 0; i < 4; i++) {
                    tabs[i].createControl(shell);
                    tabs[i].initializeFrom(wc);
                    assertTrue(tabs[i].isValid(wc), tabs[i].getName() + ": " + tabs[i].getErrorMessage());
                    tabs[i].performApply(out);
                }
                Map<String, Object> after = out.getAttributes();
                for (Map.Entry<String, Object> e : before.entrySet()) {
                    if (e.getKey().equals(ILaunchManager.ATTR_APPEND_ENVIRONMENT_VARIABLES)) {
                        // the Environment tab stores the default (append) by removing the attribute
                        assertTrue(out.getAttribute(e.getKey(), true));
                        continue;
                    }
                    assertEquals(e.getValue(), after.get(e.getKey()), e.getKey());
                }
                for (ILaunchConfigurationTab t : tabs) {
                    t.dispose();
                }
            } catch (CoreException e) {
                throw new AssertionError(e);
            } finally {
                shell.dispose();
            }
        });
    }

    @Test
    void mainTabRejectsAMissingProgram() throws CoreException {
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
            .newInstance(null, "bad");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "/no/such/program");
        Ui.sync(() -> {
            Shell shell = new Shell(Ui.display());
            try {
                ManaTabGroup g = new ManaTabGroup();
                g.createTabs(null, ILaunchManager.RUN_MODE);
                ILaunchConfigurationTab main = g.getTabs()[0];
                main.createControl(shell);
                main.initializeFrom(wc);
                assertFalse(main.isValid(wc));
                assertEquals(NLS.bind(Messages.ManaMainTab_programMissing, "/no/such/program"), main.getErrorMessage());
                main.dispose();
            } finally {
                shell.dispose();
            }
        });
    }
}
