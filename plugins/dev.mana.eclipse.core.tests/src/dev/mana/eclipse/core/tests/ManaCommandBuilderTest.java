package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mana.eclipse.core.CheckpointImages;
import dev.mana.eclipse.core.CoordinatorEndpoint;
import dev.mana.eclipse.core.ImageCompression;
import dev.mana.eclipse.core.ManaCommand;
import dev.mana.eclipse.core.ManaCommandBuilder;
import dev.mana.eclipse.core.ManaJobSettings;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.MpiLauncher;

/** The launch delegate's command line and environment, one option at a time. */
class ManaCommandBuilderTest {

    static final File RT = new File("/opt/mana");
    static final CoordinatorEndpoint EP = new CoordinatorEndpoint("node1", 40123, "s3cret", new File("/ws/.mana.rc"));

    static ManaJobSettings settings(int ranks, MpiImplementation mpi, MpiLauncher launcher, boolean restart,
            boolean timing, Map<String, String> env, boolean append, List<String> launcherArgs) {
        return settings(ranks, mpi, launcher, restart, timing, env, append, launcherArgs, CheckpointImages.DEFAULT);
    }

    static ManaJobSettings settings(int ranks, MpiImplementation mpi, MpiLauncher launcher, boolean restart,
            boolean timing, Map<String, String> env, boolean append, List<String> launcherArgs,
            CheckpointImages images) {
        return new ManaJobSettings(new File("/home/u/app/ping_pong"), List.of("-n", "10", "two words"),
            new File("/home/u/app"), ranks, mpi, launcher, launcherArgs, new File("/home/u/ckpt"), 0, restart,
            new File("/home/u/ckpt-old"), timing, images, env, append, false, "localhost", 7779, null, "ping");
    }

    /** The mana_launch command line (Open MPI, 2 ranks on 2 cores) of a launch with these image options. */
    static List<String> launchWith(CheckpointImages images, boolean timing) {
        ManaJobSettings s = settings(2, MpiImplementation.OPEN_MPI, MpiLauncher.MPIRUN, false, timing, Map.of(), true,
            List.of(), images);
        return new ManaCommandBuilder(s, RT, EP).launcherExecutable("mpirun").cores(2).build().commandLine();
    }

    /** mpirun's part, mana_launch, then {@code flags}, then what every launch ends with. */
    static List<String> launchLine(String... flags) {
        List<String> l = new java.util.ArrayList<>(List.of("mpirun", "-n", "2", "--tag-output", "/opt/mana/bin/mana_launch"));
        l.addAll(List.of(flags));
        l.addAll(List.of("--ckptdir", "/home/u/ckpt", "-h", "node1", "-p", "40123", "/home/u/app/ping_pong", "-n", "10",
            "two words"));
        return l;
    }

    static ManaJobSettings simple(int ranks, MpiImplementation mpi) {
        return settings(ranks, mpi, MpiLauncher.MPIRUN, false, false, Map.of(), true, List.of());
    }

    @Test
    void openMpiLaunch() {
        ManaCommand c = new ManaCommandBuilder(simple(2, MpiImplementation.OPEN_MPI), RT, EP)
            .launcherExecutable("/usr/bin/mpirun.openmpi").cores(2).build();
        assertEquals(List.of("/usr/bin/mpirun.openmpi", "-n", "2", "--tag-output", "/opt/mana/bin/mana_launch",
            "--ckptdir", "/home/u/ckpt", "-h", "node1", "-p", "40123", "/home/u/app/ping_pong", "-n", "10",
            "two words"), c.commandLine());
        assertEquals(new File("/home/u/app"), c.workingDirectory());
        assertEquals("node1", c.environment().get("MANA_COORD_HOST"));
        assertEquals("40123", c.environment().get("MANA_COORD_PORT"));
        assertEquals("/ws/.mana.rc", c.environment().get("MANA_RC"));
        assertEquals("ping", c.environment().get("MANA_JOB"));
        assertEquals("/home/u/ckpt", c.environment().get("DMTCP_CHECKPOINT_DIR"));
        assertFalse(c.environment().containsKey("OMPI_ALLOW_RUN_AS_ROOT"));
        assertFalse(c.environment().values().contains("s3cret"), "the secret goes through the 0600 status file only");
    }

    @Test
    void openMpiAsRootNeedsConsent() {
        ManaCommand c = new ManaCommandBuilder(simple(2, MpiImplementation.OPEN_MPI), RT, EP).runAsRoot(true).build();
        assertEquals("1", c.environment().get("OMPI_ALLOW_RUN_AS_ROOT"));
        assertEquals("1", c.environment().get("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"));
    }

    @Test
    void openMpiOversubscribesPastTheCores() {
        ManaCommand two = new ManaCommandBuilder(simple(2, MpiImplementation.OPEN_MPI), RT, EP).cores(2).build();
        ManaCommand four = new ManaCommandBuilder(simple(4, MpiImplementation.OPEN_MPI), RT, EP).cores(2).build();
        assertFalse(two.commandLine().contains("--oversubscribe"));
        assertTrue(four.commandLine().contains("--oversubscribe"));
        assertEquals("4", four.commandLine().get(2));
    }

    @Test
    void mpichLaunch() {
        ManaCommand c = new ManaCommandBuilder(simple(3, MpiImplementation.MPICH), RT, EP).runAsRoot(true).cores(1)
            .build();
        assertEquals(List.of("mpirun.mpich", "-n", "3", "-prepend-rank", "/opt/mana/bin/mana_launch"),
            c.commandLine().subList(0, 5));
        assertFalse(c.commandLine().contains("--oversubscribe"));
        assertNull(c.environment().get("OMPI_ALLOW_RUN_AS_ROOT"), "only Open MPI needs the root consent");
    }

    @Test
    void autoGetsNoImplementationFlags() {
        ManaCommand c = new ManaCommandBuilder(simple(2, MpiImplementation.AUTO), RT, EP).build();
        assertEquals(List.of("mpirun", "-n", "2", "/opt/mana/bin/mana_launch"), c.commandLine().subList(0, 4));
    }

    @Test
    void srunLaunch() {
        ManaJobSettings s = settings(8, MpiImplementation.OPEN_MPI, MpiLauncher.SRUN, false, false, Map.of(), true,
            List.of("--partition=debug"));
        ManaCommand c = new ManaCommandBuilder(s, RT, EP).runAsRoot(true).cores(2).build();
        assertEquals(List.of("srun", "-n", "8", "--label", "--partition=debug", "/opt/mana/bin/mana_launch"),
            c.commandLine().subList(0, 6));
        assertFalse(c.commandLine().contains("--oversubscribe"));
        assertFalse(c.environment().containsKey("OMPI_ALLOW_RUN_AS_ROOT"));
    }

    @Test
    void restartRunsManaRestartWithoutTheProgram() {
        ManaJobSettings s = settings(2, MpiImplementation.OPEN_MPI, MpiLauncher.MPIRUN, true, true, Map.of(), true,
            List.of());
        ManaCommand c = new ManaCommandBuilder(s, RT, EP).launcherExecutable("mpirun").cores(2).build();
        assertEquals(List.of("mpirun", "-n", "2", "--tag-output", "/opt/mana/bin/mana_restart", "--timing",
            "--restartdir", "/home/u/ckpt-old", "--ckptdir", "/home/u/ckpt", "-h", "node1", "-p", "40123"),
            c.commandLine());
        assertEquals("1", c.environment().get("MANA_TIMING"));
    }

    @Test
    void timingAndLauncherArguments() {
        ManaJobSettings s = settings(2, MpiImplementation.OPEN_MPI, MpiLauncher.MPIRUN, false, true, Map.of(), true,
            List.of("--bind-to", "none"));
        ManaCommand c = new ManaCommandBuilder(s, RT, EP).cores(2).build();
        assertEquals(List.of("--tag-output", "--bind-to", "none", "/opt/mana/bin/mana_launch", "--timing"),
            c.commandLine().subList(3, 8));
    }

    @Test
    void environmentIsAppendedOrReplaced() {
        Map<String, String> user = Map.of("MANA_DEBUG", "1", "PATH", "/custom/bin");
        Map<String, String> base = Map.of("PATH", "/usr/bin", "HOME", "/home/u");
        ManaCommand appended = new ManaCommandBuilder(settings(2, MpiImplementation.MPICH, MpiLauncher.MPIRUN, false,
            false, user, true, List.of()), RT, EP).baseEnvironment(base).build();
        assertEquals("/custom/bin", appended.environment().get("PATH"), "the configuration wins over the IDE's");
        assertEquals("/home/u", appended.environment().get("HOME"));
        assertEquals("1", appended.environment().get("MANA_DEBUG"));
        ManaCommand replaced = new ManaCommandBuilder(settings(2, MpiImplementation.MPICH, MpiLauncher.MPIRUN, false,
            false, user, false, List.of()), RT, EP).baseEnvironment(base).build();
        assertNull(replaced.environment().get("HOME"));
        assertEquals("1", replaced.environment().get("MANA_DEBUG"));
        assertEquals("node1", replaced.environment().get("MANA_COORD_HOST"));
    }

    @Test
    void shellStringQuotes() {
        ManaCommand c = new ManaCommandBuilder(simple(2, MpiImplementation.MPICH), RT, EP).build();
        assertTrue(c.toShellString().endsWith("/home/u/app/ping_pong -n 10 'two words'"), c.toShellString());
        assertTrue(List.of(c.environmentArray()).contains("MANA_JOB=ping"));
    }

    @Test
    void imageOptionsAreOffByDefault() {
        assertEquals(launchLine(), launchWith(CheckpointImages.DEFAULT, false));
        assertEquals(launchLine(), launchWith(null, false), "settings made without the options: off");
    }

    @Test
    void incrementalAlone() {
        assertEquals(launchLine("--incremental"),
            launchWith(new CheckpointImages(true, false, ImageCompression.OFF), false));
    }

    @Test
    void forkedAlone() {
        assertEquals(launchLine("--forked"), launchWith(new CheckpointImages(false, true, ImageCompression.OFF), false));
    }

    @Test
    void compressionLevels() {
        assertEquals(launchLine("--compress=fast"),
            launchWith(new CheckpointImages(false, false, ImageCompression.FAST), false));
        assertEquals(launchLine("--compress=strong"),
            launchWith(new CheckpointImages(false, false, ImageCompression.STRONG), false));
    }

    @Test
    void combinationsKeepTheUsageOrderAfterTiming() {
        assertEquals(launchLine("--timing", "--forked", "--compress=fast"),
            launchWith(new CheckpointImages(false, true, ImageCompression.FAST), true));
        assertEquals(launchLine("--incremental", "--compress=strong"),
            launchWith(new CheckpointImages(true, false, ImageCompression.STRONG), false));
        // forked with incremental is passed as chosen: the runtime decides (it writes unforked, with a warning)
        assertEquals(launchLine("--incremental", "--forked", "--compress=fast"),
            launchWith(new CheckpointImages(true, true, ImageCompression.FAST), false));
    }

    @Test
    void restartGetsNoImageOptions() {
        CheckpointImages all = new CheckpointImages(true, true, ImageCompression.STRONG);
        ManaJobSettings launched = settings(2, MpiImplementation.OPEN_MPI, MpiLauncher.MPIRUN, false, false, Map.of(),
            true, List.of(), all);
        ManaJobSettings restarted = launched.withRestart(new File("/home/u/ckpt-old"));
        assertEquals(all, restarted.images(), "the settings keep them");
        assertEquals(all, restarted.withMpi(MpiImplementation.MPICH).images());
        ManaCommand c = new ManaCommandBuilder(restarted, RT, EP).launcherExecutable("mpirun").cores(2).build();
        assertEquals(List.of("mpirun", "-n", "2", "--tag-output", "/opt/mana/bin/mana_restart", "--restartdir",
            "/home/u/ckpt-old", "--ckptdir", "/home/u/ckpt", "-h", "node1", "-p", "40123"), c.commandLine());
        assertFalse(c.environment().keySet().stream().anyMatch(k -> k.equals("MANA_INCREMENTAL")
            || k.equals("MANA_FORKED") || k.equals("MANA_COMPRESS")), "nor variables that would say them");
    }

    @Test
    void forkedIsIgnoredOnlyWithIncremental() {
        assertTrue(new CheckpointImages(true, true, ImageCompression.OFF).forkedIgnored());
        assertFalse(new CheckpointImages(false, true, ImageCompression.FAST).forkedIgnored());
        assertFalse(new CheckpointImages(true, false, ImageCompression.OFF).forkedIgnored());
    }

    @Test
    void compressionValues() {
        for (ImageCompression c : ImageCompression.values()) {
            assertEquals(c, ImageCompression.fromValue(c.value()));
        }
        assertEquals(List.of("off", "fast", "strong"),
            List.of(ImageCompression.values()).stream().map(ImageCompression::value).toList());
        assertEquals(ImageCompression.OFF, ImageCompression.fromValue(null));
        assertEquals(ImageCompression.OFF, ImageCompression.fromValue("FAST"), "values are lower case, as mana_launch's");
        assertEquals(ImageCompression.OFF, ImageCompression.fromValue("7"));
    }
}
