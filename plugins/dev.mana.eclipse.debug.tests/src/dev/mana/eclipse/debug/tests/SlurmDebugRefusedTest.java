package dev.mana.eclipse.debug.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.SlurmSubmit;
import dev.mana.eclipse.debug.ManaDebugLaunchDelegate;

/**
 * Debug mode on a configuration that targets a Slurm cluster is refused before anything is submitted:
 * the debugger attaches gdb to processes of this machine, and the ranks of a Slurm job would wait at
 * their launch pause on the nodes for ever. The refusal names the configuration and what to do instead;
 * no batch script is written and no process is started. (The same configuration in Run mode is
 * {@code SlurmClusterUiTest}'s, against the namespace cluster.)
 */
@Timeout(60)
class SlurmDebugRefusedTest {
    private Path dir;
    private ILaunchConfiguration config;

    @AfterEach
    void cleanUp() throws Exception {
        if (config != null) {
            config.delete();
        }
        if (dir != null) {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void debugOfASlurmJobIsRefusedBeforeSubmitting() throws Exception {
        dir = Files.createTempDirectory("mana-slurm-debug");
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
                .newInstance(null, "slurm-debug");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "/bin/true");
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, dir.toString());
        wc.setAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, MpiImplementation.MPICH.name());
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, dir.resolve("ck").toString());
        wc.setAttribute(ManaCore.ATTR_SLURM, true);
        wc.setAttribute(ManaCore.ATTR_SLURM_SUBMIT, SlurmSubmit.SBATCH.name());
        wc.setAttribute(ManaCore.ATTR_SLURM_NODES, 2);
        wc.setAttribute(ManaCore.ATTR_SLURM_TASKS_PER_NODE, 2);
        config = wc.doSave();
        int launchesBefore = lm.getLaunches().length;

        CoreException e = assertThrows(CoreException.class, () -> config.launch(ILaunchManager.DEBUG_MODE, null));

        assertEquals(ManaDebugLaunchDelegate.slurmRefusal("slurm-debug"), e.getStatus().getMessage());
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(0, s.count(), "nothing written into the working directory (no batch script)");
        }
        for (ILaunch l : lm.getLaunches()) {
            assertTrue(l.getProcesses().length == 0 || l.getLaunchConfiguration() != config,
                "no process was started for the refused launch");
        }
        assertTrue(lm.getLaunches().length <= launchesBefore + 1, "at most the refused launch itself is registered");
    }
}
