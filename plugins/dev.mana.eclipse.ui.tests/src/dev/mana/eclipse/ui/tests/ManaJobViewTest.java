package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.eclipse.core.commands.Command;
import org.eclipse.core.commands.NotEnabledException;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.Launch;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.commands.ICommandService;
import org.eclipse.ui.handlers.IHandlerService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.mana.coordinator.Coordinator;
import dev.mana.coordinator.RankState;
import dev.mana.coordinator.sim.SimulatedRanks;
import dev.mana.eclipse.core.CheckpointImages;
import dev.mana.eclipse.core.CoordinatorEndpoint;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaJobSettings;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.MpiLauncher;
import dev.mana.eclipse.internal.core.ClientCoordinator;
import dev.mana.eclipse.internal.core.JobRegistry;
import dev.mana.eclipse.internal.core.ManaJob;
import dev.mana.eclipse.internal.core.ManaProcess;
import dev.mana.eclipse.internal.ui.Messages;
import dev.mana.eclipse.internal.ui.actions.CheckpointJob;
import dev.mana.eclipse.internal.ui.actions.RestartDialog;
import dev.mana.eclipse.internal.ui.images.CheckpointDirectoryView;
import dev.mana.eclipse.internal.ui.views.ManaJobView;
import dev.mana.eclipse.internal.ui.views.RankRow;

/**
 * The MANA Job view, the restart dialog and the checkpoint commands against a real coordinator (embedded,
 * with simulated ranks) and a checkpoint directory on a file system that hangs (hung_fs.py: a FUSE mount
 * that never answers, as a parallel file system whose server is gone): the workbench stays responsive,
 * ranks of the job that are not connected show as unprotected, and the commands are enabled only for a
 * running job.
 */
class ManaJobViewTest {
    /**
     * A UI thread that does not answer within this is frozen: a free one answers in milliseconds, a busy one
     * (the view's first layout on a loaded 2-core machine) within a few seconds, one stuck in the hung file
     * system never.
     */
    private static final long RESPONSIVE_MILLIS = 10_000;

    @TempDir
    Path tmp;

    private Process hungFs;
    private Coordinator coordinator;
    private final List<AutoCloseable> closing = new java.util.ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        // the hung file system first: it releases any thread stuck in it (the UI thread too, on a regression)
        releaseHungFileSystem();
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
        if (coordinator != null) {
            coordinator.close();
        }
    }

    @Test
    void restartDialogStaysResponsiveWhileTheDirectoryHangs() throws Exception {
        Path hung = mountHungFileSystem();
        ILaunchConfiguration config = launchConfiguration("hung restart", tmp.resolve("ck"));
        closing.add(config::delete);
        Path good = tmp.resolve("good");
        dev.mana.inspector.testkit.ManaImageWriter.write(good.resolve("ckpt_rank_0/ckpt_a_gen1.mana"), "a", 0, 1, 1,
            new byte[8]);
        // opened by a posted runnable, not syncExec: were the directory read on the UI thread, the probes
        // below fail (and the tear-down frees the thread) instead of this test hanging
        AtomicReference<RestartDialog> opened = new AtomicReference<>();
        Ui.display().asyncExec(() -> {
            Shell shell = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell();
            RestartDialog dialog = new RestartDialog(shell, null, hung.resolve("ckpt").toFile());
            dialog.setBlockOnOpen(false);
            opened.set(dialog);
            dialog.open();
            dialog.selectConfiguration(config.getName());
        });
        closing.add(() -> Ui.sync(() -> opened.get().close()));
        // the check of the hung directory never ends; the UI thread answers all the while
        for (int i = 0; i < 5; i++) {
            assertResponsive("with the restart dialog checking a hung directory");
            Thread.sleep(200); // spacing between probes, not a wait for an event
        }
        RestartDialog d = opened.get();
        assertTrue(Ui.sync(() -> d.getShell() != null && d.getShell().isVisible()), "the dialog is open");
        assertTrue(Ui.sync(d::isValidating), "the check of the hung directory ended: the file system did not hang");
        assertNull(Ui.sync(d::getValidation));
        // typing another directory drops the hung check: the new one is shown though the old one still hangs
        Ui.sync(() -> d.directoryText().setText(good.toString()));
        var v = Ui.sync(() -> d.awaitValidation(10_000));
        assertNotNull(v, "the check of a good directory was not shown while an older check hangs");
        assertTrue(v.isValid(), v.problems().toString());
        assertResponsive("after the check");
    }

    @Test
    void jobViewStaysResponsiveWhileTheCheckpointDirectoryHangs() throws Exception {
        Path hung = mountHungFileSystem();
        startCoordinator();
        closing.add(SimulatedRanks.builder(coordinator.loopbackAddress()).job("hung").ranks(0, 2).nranks(2)
            .ckptDir(tmp.resolve("sim")).build().start());
        ManaJobView view = showView();
        IManaJob job = startJob("hung", 2, hung.resolve("ckpt").toFile());
        // the view shows the new job at once and looks for its images: the UI thread answers all the while
        // (probes before any syncExec: were the folder listed on the UI thread, they fail instead of hanging)
        for (int i = 0; i < 5; i++) {
            assertResponsive("with the job view scanning a hung checkpoint directory");
            Thread.sleep(200); // spacing between probes, not a wait for an event
        }
        // the ranks and the summary come from the coordinator; only the image scan waits on the file system
        Ui.waitFor(() -> "2 running ranks in the view: " + Ui.sync(view::getRows), 30_000,
            () -> view.getShownJob() == job && view.getRows().size() == 2
                && view.getRows().stream().allMatch(r -> r.state() == RankState.RUNNING));
        assertResponsive("with the ranks shown");
        assertTrue(Ui.sync(view::isScanning), "the image scan ended: the file system did not hang");
        assertTrue(protectedRanks(2, 2).matcher(Ui.sync(view::getSummaryText)).find(), Ui.sync(view::getSummaryText));
    }

    @Test
    void checkpointDirectoryViewStaysResponsiveWhileTheDirectoryHangs() throws Exception {
        Path hung = mountHungFileSystem();
        Path good = tmp.resolve("good");
        dev.mana.inspector.testkit.ManaImageWriter.write(good.resolve("ckpt_rank_0/ckpt_a_gen1.mana"), "a", 0, 1, 1,
            new byte[8]);
        // shown by a posted runnable: were the headers read on the UI thread, the probes fail instead of hanging
        AtomicReference<CheckpointDirectoryView> shown = new AtomicReference<>();
        Ui.display().asyncExec(() -> {
            try {
                shown.set(CheckpointDirectoryView.show(PlatformUI.getWorkbench().getActiveWorkbenchWindow()
                    .getActivePage(), hung.resolve("ckpt").toFile()));
            } catch (org.eclipse.ui.PartInitException e) {
                throw new IllegalStateException(e);
            }
        });
        for (int i = 0; i < 5; i++) {
            assertResponsive("with the checkpoint directory view scanning a hung directory");
            Thread.sleep(200); // spacing between probes, not a wait for an event
        }
        CheckpointDirectoryView view = shown.get();
        assertNotNull(view, "the view opened");
        assertTrue(Ui.sync(view::isScanning), "the scan of the hung directory ended: the file system did not hang");
        assertTrue(Ui.sync(view::getSummaryText).startsWith(Ui.head(dev.mana.eclipse.internal.ui.images.Messages.CheckpointDirectoryView_scanning)),
            Ui.sync(view::getSummaryText));
        // another directory: shown though the hung scan still holds its worker thread
        Ui.sync(() -> view.setDirectory(good));
        Ui.waitFor("the good directory scanned", 30_000, () -> !view.isScanning());
        assertEquals(List.of(1L), Ui.sync(view::getGenerations));
        assertEquals(1, (int) Ui.sync(view::getRankRows));
        Ui.sync(() -> view.getSite().getPage().hideView(view));
    }

    @Test
    void executableTesterNeverReadsAFileOnTheUiThread() throws Exception {
        Path hung = mountHungFileSystem();
        Path dir = Files.createDirectory(tmp.resolve("proj"));
        var ws = org.eclipse.core.resources.ResourcesPlugin.getWorkspace();
        var project = ws.getRoot().getProject("tester-" + tmp.getFileName());
        var desc = ws.newProjectDescription(project.getName());
        desc.setLocation(org.eclipse.core.runtime.IPath.fromOSString(dir.toString()));
        project.create(desc, null);
        project.open(null);
        closing.add(() -> project.delete(false, true, null));
        Files.copy(Path.of("/bin/true"), dir.resolve("true"));
        project.refreshLocal(org.eclipse.core.resources.IResource.DEPTH_ONE, null);
        // a program on the hung file system, reached through a link the workspace has not seen: only the
        // tester would read it
        Files.createSymbolicLink(dir.resolve("hung-program"), hung.resolve("program"));
        var onHung = project.getFile("hung-program");
        var real = project.getFile("true");
        var tester = new dev.mana.eclipse.internal.ui.launch.ExecutablePropertyTester();
        CountDownLatch asked = new CountDownLatch(1);
        boolean[] answer = {true};
        Ui.display().asyncExec(() -> {
            answer[0] = tester.test(onHung, "isExecutable", new Object[0], null);
            asked.countDown();
        });
        assertResponsive("with the executable tester asked about a file on a hung file system");
        assertTrue(asked.await(10, TimeUnit.SECONDS));
        assertTrue(!answer[0], "not known yet: no");
        assertNull(dev.mana.eclipse.internal.ui.launch.ExecutablePropertyTester.known(onHung), "still being read");
        // a real program: read in the background, then known
        Ui.sync(() -> tester.test(real, "isExecutable", new Object[0], null));
        Ui.waitFor("/bin/true read", 10_000,
            () -> Boolean.TRUE.equals(dev.mana.eclipse.internal.ui.launch.ExecutablePropertyTester.known(real)));
        assertTrue(Ui.sync(() -> tester.test(real, "isExecutable", new Object[0], null)));
    }

    @Test
    void checkpointJobHonoursCancel() throws Exception {
        startCoordinator();
        SimulatedRanks ranks = SimulatedRanks.builder(coordinator.loopbackAddress()).job("cancel").ranks(0, 1)
            .nranks(1).ckptDir(tmp.resolve("sim")).stallAt(0, 2).build().start();
        closing.add(ranks);
        IManaJob job = startJob("cancel", 1, tmp.resolve("ckpt").toFile());
        Ui.waitFor("the rank registered", 30_000, () -> job.getRanks().size() == 1);
        CheckpointJob cj = new CheckpointJob(job, false);
        cj.schedule();
        Ui.waitFor("the checkpoint job running", 10_000, () -> cj.getState() == org.eclipse.core.runtime.jobs.Job.RUNNING);
        cj.cancel();
        assertTrue(cj.join(10_000, null), "the canceled checkpoint job ended");
        assertEquals(org.eclipse.core.runtime.IStatus.CANCEL, cj.getResult().getSeverity(), cj.getResult().toString());
        assertTrue(cj.getName().contains("canceled"), cj.getName());
        assertNull(cj.getCheckpointResult());
    }

    @Test
    void ranksNotConnectedShowAsUnprotected() throws Exception {
        startCoordinator();
        // ranks 0 and 2 of a 4-rank job register; 1 and 3 never reach this coordinator (yet)
        closing.add(SimulatedRanks.builder(coordinator.loopbackAddress()).job("part").ranks(0, 1).nranks(4)
            .ckptDir(tmp.resolve("sim")).build().start());
        closing.add(SimulatedRanks.builder(coordinator.loopbackAddress()).job("part").ranks(2, 1).nranks(4)
            .ckptDir(tmp.resolve("sim")).build().start());
        ManaJobView view = showView();
        IManaJob job = startJob("part", 4, tmp.resolve("ckpt").toFile());
        Ui.waitFor(() -> "ranks 1 and 3 unprotected: " + Ui.sync(view::getRows) + " " + Ui.sync(view::getSummaryText),
            30_000, () -> view.getShownJob() == job && unprotected(view).equals(List.of(1, 3))
                && view.getRows().size() == 4);
        List<RankRow> rows = Ui.sync(view::getRows);
        assertEquals(RankState.RUNNING, rows.get(0).state());
        assertEquals(RankState.UNPROTECTED, rows.get(1).state());
        assertNull(rows.get(1).info());
        assertEquals(RankState.RUNNING, rows.get(2).state());
        String summary = Ui.sync(view::getSummaryText);
        assertTrue(protectedRanks(2, 4).matcher(summary).find(), summary);
        String cell = Ui.sync(() -> view.getTableItemText(1, 3));
        assertEquals(Messages.ManaJobView_unprotected, cell);
        if (System.getProperty("mana.screenshots") != null) {
            Ui.sync(() -> Ui.screenshot(view.getSite().getShell(), "job-view-unprotected"));
        }

        // rank 1 reaches the coordinator: protected again
        closing.add(SimulatedRanks.builder(coordinator.loopbackAddress()).job("part").ranks(1, 1).nranks(4)
            .ckptDir(tmp.resolve("sim")).build().start());
        Ui.waitFor(() -> "rank 1 protected: " + Ui.sync(view::getSummaryText), 30_000,
            () -> unprotected(view).equals(List.of(3)) && protectedRanks(3, 4).matcher(view.getSummaryText()).find());
    }

    @Test
    void checkpointCommandsAreEnabledForARunningJobOnly() throws Exception {
        startCoordinator();
        closing.add(SimulatedRanks.builder(coordinator.loopbackAddress()).job("cmd").ranks(0, 1).nranks(1)
            .ckptDir(tmp.resolve("sim")).build().start());
        ManaJobView view = showView();
        ICommandService cs = PlatformUI.getWorkbench().getService(ICommandService.class);
        IHandlerService hs = PlatformUI.getWorkbench().getService(IHandlerService.class);
        Command checkpoint = cs.getCommand("dev.mana.eclipse.ui.checkpoint");
        Command checkpointAndStop = cs.getCommand("dev.mana.eclipse.ui.checkpointAndStop");
        IManaJob job = startJob("cmd", 1, tmp.resolve("ckpt").toFile());
        // the view shows (and selects) the running job: both commands are enabled, by their enabledWhen
        Ui.waitFor("the checkpoint commands enabled for the running job", 30_000, () -> view.getShownJob() == job
            && view.getRows().size() == 1 && checkpoint.isEnabled() && checkpointAndStop.isEnabled());
        Ui.sync(() -> view.getSite().getPage().activate(view));
        assertTrue(Ui.sync(checkpoint::isEnabled));

        // the job ends while selected in the view: disabled, with no change of part or selection by the user
        job.getLaunch().getProcesses()[0].terminate();
        Ui.waitFor("the job to end", 30_000, job::isTerminated);
        Ui.waitFor("the checkpoint commands disabled for the ended job", 10_000,
            () -> !checkpoint.isEnabled() && !checkpointAndStop.isEnabled());
        // executing a disabled command is refused by the workbench: no handler runs, no dialog opens
        Ui.sync(() -> {
            try {
                hs.executeCommand("dev.mana.eclipse.ui.checkpoint", null);
                throw new AssertionError("the checkpoint command ran for an ended job");
            } catch (NotEnabledException expected) {
                // the enabledWhen said no
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            assertEquals(1, java.util.Arrays.stream(Ui.display().getShells()).filter(Shell::isVisible).count(),
                "a dialog opened");
        });
    }

    /** The view's summary with "k of n ranks protected", whatever the job, state and coordinator. */
    private static java.util.regex.Pattern protectedRanks(long k, int n) {
        return Ui.pattern(Messages.ManaJobView_summary, null, null, k, n);
    }

    private static List<Integer> unprotected(ManaJobView view) {
        return view.getRows().stream().filter(RankRow::isUnprotected).map(RankRow::rank).toList();
    }

    /** Fails unless the UI thread runs a posted runnable within {@link #RESPONSIVE_MILLIS}. */
    private static void assertResponsive(String when) throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        long t0 = System.nanoTime();
        Ui.display().asyncExec(ran::countDown);
        if (!ran.await(RESPONSIVE_MILLIS, TimeUnit.MILLISECONDS)) {
            // where it is stuck (a read of the hung file system, if the test found what it looks for)
            StringBuilder where = new StringBuilder();
            for (StackTraceElement e : Ui.display().getThread().getStackTrace()) {
                where.append("\n\tat ").append(e);
            }
            throw new AssertionError("the UI thread did not answer within " + RESPONSIVE_MILLIS + " ms " + when
                + "; it is at:" + where);
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms < RESPONSIVE_MILLIS, ms + " ms");
    }

    /** Mounts hung_fs.py on a fresh folder; skipped where this machine cannot mount FUSE (not root). */
    private Path mountHungFileSystem() throws Exception {
        Path mnt = Files.createDirectory(tmp.resolve("hung"));
        File script = new File(System.getProperty("mana.root"), "plugins/dev.mana.eclipse.ui.tests/hung_fs.py");
        hungFs = new ProcessBuilder("python3", script.getPath(), mnt.toString()).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(hungFs.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line != null && line.startsWith("unavailable")) {
            hungFs.waitFor();
            hungFs = null;
            Cannot.skipOrFail("fuse", "no hung file system on this machine (mount needs root and /dev/fuse): " + line);
        }
        assertEquals("mounted", line, "hung_fs.py");
        return mnt;
    }

    private void releaseHungFileSystem() throws InterruptedException {
        if (hungFs != null) {
            try {
                hungFs.getOutputStream().close(); // its end: the blocked calls fail, the mount goes
            } catch (java.io.IOException e) {
                // already gone
            }
            assertTrue(hungFs.waitFor(10, TimeUnit.SECONDS), "hung_fs.py did not end");
            hungFs = null;
        }
    }

    private void startCoordinator() throws Exception {
        coordinator = Coordinator.builder().bindHost("127.0.0.1").port(0).exitOnLast(false).build().start();
    }

    private static ManaJobView showView() {
        return Ui.sync(() -> (ManaJobView) PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage()
            .showView(ManaJobView.ID));
    }

    /**
     * A MANA job of the IDE as the launch delegate makes one, joined to the test's coordinator: its job model
     * polls the real coordinator. The job's process is a sleep (the ranks are the simulated ones); it ends
     * with the test.
     */
    private IManaJob startJob(String name, int ranks, File ckptDir) throws Exception {
        ManaJobSettings s = new ManaJobSettings(new File("/bin/sleep"), List.of("600"), tmp.toFile(), ranks,
            MpiImplementation.AUTO, MpiLauncher.MPIRUN, List.of(), ckptDir, 0, false, null, false, CheckpointImages.DEFAULT, Map.of(), true,
            true, "127.0.0.1", coordinator.port(), null, name);
        Launch launch = new Launch(null, ILaunchManager.RUN_MODE, null);
        Process p = new ProcessBuilder("/bin/sleep", "600").start();
        ManaProcess proc = new ManaProcess(launch, p, name, Map.of());
        ManaJob job = new ManaJob(launch, s, new ClientCoordinator(
            new CoordinatorEndpoint("127.0.0.1", coordinator.port(), coordinator.secret(), null), name), proc, 100);
        job.start();
        JobRegistry.add(job);
        closing.add(() -> {
            proc.terminate();
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        });
        return job;
    }

    private static ILaunchConfiguration launchConfiguration(String name, Path ckpt) throws Exception {
        var lm = org.eclipse.debug.core.DebugPlugin.getDefault().getLaunchManager();
        var wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE).newInstance(null, name);
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "/bin/true");
        wc.setAttribute(ManaCore.ATTR_RANKS, 1);
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, ckpt.toString());
        return wc.doSave();
    }
}
