package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.ui.ILaunchConfigurationTab;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Event;
import org.eclipse.swt.widgets.Shell;
import org.junit.jupiter.api.Test;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.MpiLauncher;
import dev.mana.eclipse.core.SlurmSubmit;
import dev.mana.eclipse.internal.ui.launch.ManaCheckpointTab;
import dev.mana.eclipse.internal.ui.launch.ManaSlurmTab;
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
        wc.setAttribute(ManaCore.ATTR_INCREMENTAL, true);
        wc.setAttribute(ManaCore.ATTR_FORKED, true);
        wc.setAttribute(ManaCore.ATTR_COMPRESS, "strong");
        wc.setAttribute(ManaCore.ATTR_RESTART_DIRECTORY, "/tmp/old");
        wc.setAttribute(ILaunchManager.ATTR_ENVIRONMENT_VARIABLES, Map.of("MANA_DEBUG", "1"));
        wc.setAttribute(ILaunchManager.ATTR_APPEND_ENVIRONMENT_VARIABLES, true);
        wc.setAttribute(ManaCore.ATTR_SLURM, true);
        wc.setAttribute(ManaCore.ATTR_SLURM_SUBMIT, SlurmSubmit.SRUN.name());
        wc.setAttribute(ManaCore.ATTR_SLURM_PARTITION, "debug");
        wc.setAttribute(ManaCore.ATTR_SLURM_NODES, 3);
        wc.setAttribute(ManaCore.ATTR_SLURM_TASKS_PER_NODE, 4);
        wc.setAttribute(ManaCore.ATTR_SLURM_TIME_LIMIT, "2:00:00");
        wc.setAttribute(ManaCore.ATTR_SLURM_NODE_LIST, "node[1-3]");
        wc.setAttribute(ManaCore.ATTR_SLURM_ARGUMENTS, "--qos=low");
        wc.setAttribute(ManaCore.ATTR_SLURM_COMMAND_PREFIX, "/opt/bin/on head");
        Map<String, Object> before = wc.getAttributes();

        Ui.sync(() -> {
            Shell shell = new Shell(Ui.display());
            try {
                ManaTabGroup g = new ManaTabGroup();
                g.createTabs(null, ILaunchManager.RUN_MODE);
                ILaunchConfigurationTab[] tabs = g.getTabs();
                assertEquals(6, tabs.length);
                assertEquals(Messages.ManaMainTab_name, tabs[0].getName());
                assertEquals(Messages.ManaMpiTab_name, tabs[1].getName());
                assertEquals(Messages.ManaSlurmTab_name, tabs[2].getName());
                assertEquals(Messages.ManaCheckpointTab_name, tabs[3].getName());
                assertEquals("Environment", tabs[4].getName());
                ILaunchConfigurationWorkingCopy out = wc.copy("tabs-out");
                for (int i = 0; i < 5; i++) {
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

    /**
     * The Checkpoints tab's "Checkpoint images" group: an untouched configuration gets no attribute; each
     * control writes its own; forked with incremental is a warning, not an error; under a restart the
     * options (kept from the launch) cannot be changed.
     */
    @Test
    void checkpointImageOptions() throws CoreException {
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
            .newInstance(null, "images");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "/bin/true");
        Ui.sync(() -> {
            Shell shell = new Shell(Ui.display());
            ManaCheckpointTab tab = new ManaCheckpointTab();
            try {
                tab.createControl(shell);
                tab.initializeFrom(wc);
                Button incremental = button(shell, Messages.ImageOptionsGroup_incremental);
                Button forked = button(shell, Messages.ImageOptionsGroup_forked);
                Combo compression = DebugTabTest.find(shell, Combo.class);
                assertEquals(Messages.ImageOptionsGroup_incrementalTip, incremental.getToolTipText());
                assertEquals(Messages.ImageOptionsGroup_forkedTip, forked.getToolTipText());
                assertEquals(Messages.ImageOptionsGroup_compressionTip, compression.getToolTipText());
                assertEquals(List.of(Messages.ImageOptionsGroup_off, Messages.ImageOptionsGroup_fast,
                    Messages.ImageOptionsGroup_strong), List.of(compression.getItems()));
                assertFalse(incremental.getSelection());
                assertFalse(forked.getSelection());
                assertEquals(Messages.ImageOptionsGroup_off, compression.getText());

                ILaunchConfigurationWorkingCopy out = wc.copy("images-out");
                tab.performApply(out);
                assertEquals(wc.getAttributes(), out.getAttributes(), "an untouched configuration stays as it was");

                click(forked, true);
                compression.select(1);
                tab.performApply(out);
                assertTrue(out.getAttribute(ManaCore.ATTR_FORKED, false));
                assertEquals("fast", out.getAttribute(ManaCore.ATTR_COMPRESS, ""));
                assertFalse(out.hasAttribute(ManaCore.ATTR_INCREMENTAL));
                assertTrue(tab.isValid(out));
                assertNull(tab.getWarningMessage());

                click(incremental, true);
                assertTrue(tab.isValid(out), "a warning, not an error");
                assertNull(tab.getErrorMessage());
                assertEquals(Messages.ImageOptionsGroup_forkedIgnored, tab.getWarningMessage());
                click(forked, false);
                assertTrue(tab.isValid(out));
                assertNull(tab.getWarningMessage());
                tab.performApply(out);
                assertTrue(out.getAttribute(ManaCore.ATTR_INCREMENTAL, false));
                assertFalse(out.hasAttribute(ManaCore.ATTR_FORKED), "off is the absent attribute");

                ILaunchConfigurationWorkingCopy restart = wc.copy("images-restart");
                restart.setAttribute(ManaCore.ATTR_RESTART, true);
                restart.setAttribute(ManaCore.ATTR_INCREMENTAL, true);
                restart.setAttribute(ManaCore.ATTR_FORKED, true);
                tab.initializeFrom(restart);
                assertTrue(incremental.getSelection() && forked.getSelection(), "shown as launched");
                assertFalse(incremental.isEnabled() || forked.isEnabled() || compression.isEnabled());
                tab.isValid(restart);
                assertNull(tab.getWarningMessage(), "a restart keeps the options of its launch");
                click(button(shell, Messages.ManaCheckpointTab_restart), false);
                assertTrue(incremental.isEnabled() && forked.isEnabled() && compression.isEnabled());
            } catch (CoreException e) {
                throw new AssertionError(e);
            } finally {
                tab.dispose();
                shell.dispose();
            }
        });
    }

    /**
     * The Slurm tab: off by default (no attribute written); on, the rank count the allocation makes is shown;
     * a bad value is named (the tab is invalid) and not written; sbatch is the default submission.
     */
    @Test
    void slurmTab() throws CoreException {
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
            .newInstance(null, "slurm");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "/bin/true");
        Ui.sync(() -> {
            Shell shell = new Shell(Ui.display());
            ManaSlurmTab tab = new ManaSlurmTab();
            try {
                tab.createControl(shell);
                tab.initializeFrom(wc);
                Button on = button(shell, Messages.ManaSlurmTab_enabled);
                Button sbatch = button(shell, Messages.ManaSlurmTab_sbatch);
                assertFalse(on.getSelection());
                assertFalse(sbatch.isEnabled(), "the group follows the check box");
                ILaunchConfigurationWorkingCopy out = wc.copy("slurm-out");
                tab.performApply(out);
                assertEquals(wc.getAttributes(), out.getAttributes(), "an untouched configuration stays as it was");

                click(on, true);
                assertTrue(sbatch.isEnabled() && sbatch.getSelection(), "sbatch by default");
                assertTrue(tab.isValid(out), tab.getErrorMessage());
                java.util.List<org.eclipse.swt.widgets.Text> texts = new java.util.ArrayList<>();
                collect(shell, org.eclipse.swt.widgets.Text.class, texts);
                // partition, nodes, tasks per node, time limit, node list, arguments, command prefix
                assertEquals(7, texts.size());
                texts.get(1).setText("2");
                texts.get(2).setText("3");
                java.util.List<org.eclipse.swt.widgets.Label> labels = new java.util.ArrayList<>();
                collect(shell, org.eclipse.swt.widgets.Label.class, labels);
                String six = org.eclipse.osgi.util.NLS.bind(Messages.ManaSlurmTab_ranks, "6");
                assertTrue(labels.stream().anyMatch(l -> six.equals(l.getText())), "the rank count is shown");
                texts.get(3).setText("1 hour");
                assertFalse(tab.isValid(out));
                assertTrue(tab.getErrorMessage().startsWith("Time limit '1 hour' is not one of Slurm's forms"),
                    tab.getErrorMessage());
                texts.get(3).setText("1:00:00");
                texts.get(1).setText("zero");
                assertFalse(tab.isValid(out));
                assertEquals("Nodes must be a whole number of at least 1 (got 'zero').", tab.getErrorMessage());
                tab.performApply(out);
                assertFalse(out.hasAttribute(ManaCore.ATTR_SLURM_NODES), "a bad value is not written");
                texts.get(1).setText("2");
                assertTrue(tab.isValid(out), tab.getErrorMessage());
                tab.performApply(out);
                assertTrue(out.getAttribute(ManaCore.ATTR_SLURM, false));
                assertFalse(out.hasAttribute(ManaCore.ATTR_SLURM_SUBMIT), "sbatch is the absent attribute");
                assertEquals(3, out.getAttribute(ManaCore.ATTR_SLURM_TASKS_PER_NODE, 0));
                assertEquals("1:00:00", out.getAttribute(ManaCore.ATTR_SLURM_TIME_LIMIT, ""));
                assertEquals(6, dev.mana.eclipse.core.ManaJobSettings.from(out).ranks());
            } catch (CoreException e) {
                throw new AssertionError(e);
            } finally {
                tab.dispose();
                shell.dispose();
            }
        });
    }

    /** Every control of a type under {@code c}, in the order they were made. */
    private static <T extends Control> void collect(Composite c, Class<T> type, java.util.List<T> into) {
        for (Control child : c.getChildren()) {
            if (type.isInstance(child)) {
                into.add(type.cast(child));
            }
            if (child instanceof Composite cc) {
                collect(cc, type, into);
            }
        }
    }

    /** The check box with this text in the tab's controls. */
    private static Button button(Composite c, String text) {
        for (Control child : c.getChildren()) {
            if (child instanceof Button b && text.equals(b.getText())) {
                return b;
            }
            if (child instanceof Composite cc) {
                Button b = button(cc, text);
                if (b != null) {
                    return b;
                }
            }
        }
        return null;
    }

    /** As a click: the selection, then the listeners the tab hangs on it. */
    private static void click(Button b, boolean selected) {
        b.setSelection(selected);
        b.notifyListeners(SWT.Selection, new Event());
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
