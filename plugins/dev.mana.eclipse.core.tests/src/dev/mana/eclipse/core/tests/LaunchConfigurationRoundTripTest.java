package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationType;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.mana.eclipse.core.CheckpointImages;
import dev.mana.eclipse.core.ImageCompression;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaJobSettings;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.MpiLauncher;
import dev.mana.eclipse.core.SlurmOptions;
import dev.mana.eclipse.core.SlurmSubmit;

/** A "MANA MPI Job" configuration saves every attribute and reads back into the same settings. */
class LaunchConfigurationRoundTripTest {

    private final ILaunchManager manager = DebugPlugin.getDefault().getLaunchManager();
    private ILaunchConfiguration saved;

    @AfterEach
    void delete() throws CoreException {
        if (saved != null) {
            saved.delete();
        }
    }

    private ILaunchConfigurationWorkingCopy newConfig(String name) throws CoreException {
        ILaunchConfigurationType type = manager.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE);
        assertNotNull(type, "the launch configuration type is contributed");
        assertEquals("MANA MPI Job", type.getName());
        assertTrue(type.supportsMode(ILaunchManager.RUN_MODE));
        return type.newInstance(null, manager.generateLaunchConfigurationName(name));
    }

    @Test
    void everyAttributeRoundTrips() throws CoreException {
        ILaunchConfigurationWorkingCopy wc = newConfig("roundtrip");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "/apps/lammps/lmp");
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, "-in in.lj \"a b\"");
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, "/scratch/run1");
        wc.setAttribute(ManaCore.ATTR_RANKS, 16);
        wc.setAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, MpiImplementation.MPICH.name());
        wc.setAttribute(ManaCore.ATTR_LAUNCHER, MpiLauncher.SRUN.name());
        wc.setAttribute(ManaCore.ATTR_LAUNCHER_ARGUMENTS, "--partition=debug");
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, "ckpt");
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_INTERVAL, 300);
        wc.setAttribute(ManaCore.ATTR_RESTART, true);
        wc.setAttribute(ManaCore.ATTR_RESTART_DIRECTORY, "/scratch/old");
        wc.setAttribute(ManaCore.ATTR_TIMING, true);
        wc.setAttribute(ManaCore.ATTR_INCREMENTAL, true);
        wc.setAttribute(ManaCore.ATTR_FORKED, true);
        wc.setAttribute(ManaCore.ATTR_COMPRESS, "strong");
        wc.setAttribute(ManaCore.ATTR_JOIN_COORDINATOR, true);
        wc.setAttribute(ManaCore.ATTR_COORDINATOR_HOST, "login1");
        wc.setAttribute(ManaCore.ATTR_COORDINATOR_PORT, 7780);
        wc.setAttribute(ManaCore.ATTR_COORDINATOR_STATUS_FILE, "/home/u/.mana.rc");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MANA_DEBUG", "1");
        env.put("OMP_NUM_THREADS", "2");
        wc.setAttribute(ILaunchManager.ATTR_ENVIRONMENT_VARIABLES, env);
        wc.setAttribute(ILaunchManager.ATTR_APPEND_ENVIRONMENT_VARIABLES, false);
        saved = wc.doSave();

        ILaunchConfiguration back = null;
        for (ILaunchConfiguration c : manager.getLaunchConfigurations(
                manager.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE))) {
            if (c.getName().equals(saved.getName())) {
                back = c;
            }
        }
        assertNotNull(back);
        ManaJobSettings s = ManaJobSettings.from(back);
        assertEquals(new File("/apps/lammps/lmp"), s.program());
        assertEquals(List.of("-in", "in.lj", "a b"), s.arguments());
        assertEquals(new File("/scratch/run1"), s.workingDirectory());
        assertEquals(16, s.ranks());
        assertEquals(MpiImplementation.MPICH, s.mpi());
        assertEquals(MpiLauncher.SRUN, s.launcher());
        assertEquals(List.of("--partition=debug"), s.launcherArguments());
        assertEquals(new File("/scratch/run1/ckpt"), s.checkpointDirectory(), "relative to the working directory");
        assertEquals(300, s.checkpointInterval());
        assertTrue(s.restart());
        assertEquals(new File("/scratch/old"), s.restartDirectory());
        assertTrue(s.timing());
        assertEquals(new CheckpointImages(true, true, ImageCompression.STRONG), s.images());
        assertEquals(env, s.environment());
        assertFalse(s.appendEnvironment());
        assertTrue(s.joinCoordinator());
        assertEquals("login1", s.coordinatorHost());
        assertEquals(7780, s.coordinatorPort());
        assertEquals(new File("/home/u/.mana.rc"), s.coordinatorStatusFile());
        assertEquals(saved.getName(), s.jobName());
        assertEquals(wc.getAttributes(), back.getAttributes());
    }

    @Test
    void defaults() throws CoreException {
        ILaunchConfigurationWorkingCopy wc = newConfig("defaults");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "/apps/hello/hello");
        ManaJobSettings s = ManaJobSettings.from(wc);
        assertEquals(new File("/apps/hello"), s.workingDirectory(), "the program's folder");
        assertEquals(new File("/apps/hello"), s.checkpointDirectory(), "the working directory");
        assertEquals(2, s.ranks());
        assertEquals(MpiImplementation.AUTO, s.mpi());
        assertEquals(MpiLauncher.MPIRUN, s.launcher());
        assertEquals(0, s.checkpointInterval());
        assertFalse(s.restart());
        assertFalse(s.joinCoordinator());
        assertTrue(s.appendEnvironment());
        assertEquals(s.checkpointDirectory(), s.restartDirectory());
        assertEquals(CheckpointImages.DEFAULT, s.images(), "no image option: launched exactly as before them");
    }

    @Test
    void eachImageOptionIsReadAlone() throws CoreException {
        ILaunchConfigurationWorkingCopy wc = newConfig("images");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "/apps/hello/hello");
        wc.setAttribute(ManaCore.ATTR_FORKED, true);
        assertEquals(new CheckpointImages(false, true, ImageCompression.OFF), ManaJobSettings.from(wc).images());
        wc.removeAttribute(ManaCore.ATTR_FORKED);
        wc.setAttribute(ManaCore.ATTR_INCREMENTAL, true);
        assertEquals(new CheckpointImages(true, false, ImageCompression.OFF), ManaJobSettings.from(wc).images());
        wc.removeAttribute(ManaCore.ATTR_INCREMENTAL);
        wc.setAttribute(ManaCore.ATTR_COMPRESS, "fast");
        assertEquals(new CheckpointImages(false, false, ImageCompression.FAST), ManaJobSettings.from(wc).images());
        wc.setAttribute(ManaCore.ATTR_COMPRESS, "off");
        assertEquals(CheckpointImages.DEFAULT, ManaJobSettings.from(wc).images());
    }

    @Test
    void variablesAreSubstituted() throws CoreException {
        ILaunchConfigurationWorkingCopy wc = newConfig("vars");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "${env_var:HOME}/a.out");
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, "${system_property:java.io.tmpdir}/ck");
        ManaJobSettings s = ManaJobSettings.from(wc);
        assertEquals(new File(System.getenv("HOME"), "a.out"), s.program());
        assertEquals(new File(System.getProperty("java.io.tmpdir"), "ck"), s.checkpointDirectory());
    }

    @Test
    void noProgramIsAClearError() throws CoreException {
        ILaunchConfigurationWorkingCopy wc = newConfig("empty");
        CoreException e = assertThrows(CoreException.class, () -> ManaJobSettings.from(wc));
        assertTrue(e.getMessage().contains("No program"), e.getMessage());
    }

    @Test
    void slurmAttributesRoundTripAndSetTheRanks() throws CoreException {
        ILaunchConfigurationWorkingCopy wc = newConfig("slurm");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "/apps/ring");
        wc.setAttribute(ManaCore.ATTR_RANKS, 16); // not used on Slurm: nodes x tasks per node
        assertNull(ManaJobSettings.from(wc).slurm(), "not on Slurm unless asked");
        wc.setAttribute(ManaCore.ATTR_SLURM, true);
        wc.setAttribute(ManaCore.ATTR_SLURM_SUBMIT, SlurmSubmit.SRUN.name());
        wc.setAttribute(ManaCore.ATTR_SLURM_PARTITION, "debug");
        wc.setAttribute(ManaCore.ATTR_SLURM_NODES, 3);
        wc.setAttribute(ManaCore.ATTR_SLURM_TASKS_PER_NODE, 2);
        wc.setAttribute(ManaCore.ATTR_SLURM_TIME_LIMIT, "1-00:00");
        wc.setAttribute(ManaCore.ATTR_SLURM_NODE_LIST, "n[1-3]");
        wc.setAttribute(ManaCore.ATTR_SLURM_ARGUMENTS, "--qos=low \"--comment=a b\"");
        wc.setAttribute(ManaCore.ATTR_SLURM_COMMAND_PREFIX, "/c/bin/on head");
        saved = wc.doSave();
        ManaJobSettings s = ManaJobSettings.from(saved);
        assertEquals(new SlurmOptions(SlurmSubmit.SRUN, "debug", 3, 2, "1-00:00", "n[1-3]",
            List.of("--qos=low", "--comment=a b"), List.of("/c/bin/on", "head")), s.slurm());
        assertEquals(6, s.ranks());
        assertFalse(s.slurmBatch());
        // sbatch is the default submission; a bad value refuses the launch with what is wrong
        ILaunchConfigurationWorkingCopy bad = saved.getWorkingCopy();
        bad.removeAttribute(ManaCore.ATTR_SLURM_SUBMIT);
        assertTrue(ManaJobSettings.from(bad).slurmBatch());
        // a placement (the restart dialog's "1,3" on a new allocation): its sum of ranks, the batch job's only
        ILaunchConfigurationWorkingCopy placed = saved.getWorkingCopy();
        placed.setAttribute(ManaCore.ATTR_SLURM_PLACEMENT, "1,3,2");
        CoreException notBatch = assertThrows(CoreException.class, () -> ManaJobSettings.from(placed));
        assertTrue(notBatch.getMessage().contains("made for a batch job (sbatch) only"), notBatch.getMessage());
        placed.removeAttribute(ManaCore.ATTR_SLURM_SUBMIT);
        assertEquals(6, ManaJobSettings.from(placed).ranks());
        assertEquals(List.of(1, 3, 2), ManaJobSettings.from(placed).slurm().placement());
        placed.setAttribute(ManaCore.ATTR_SLURM_PLACEMENT, "1,3");
        CoreException short_ = assertThrows(CoreException.class, () -> ManaJobSettings.from(placed));
        assertTrue(short_.getMessage().contains("Tasks per node '1,3' names 2 node(s) for a job of 3 nodes."),
            short_.getMessage());
        bad.setAttribute(ManaCore.ATTR_SLURM_TIME_LIMIT, "soon");
        CoreException e = assertThrows(CoreException.class, () -> ManaJobSettings.from(bad));
        assertTrue(e.getMessage().contains("Time limit 'soon' is not one of Slurm's forms"), e.getMessage());
    }
}
