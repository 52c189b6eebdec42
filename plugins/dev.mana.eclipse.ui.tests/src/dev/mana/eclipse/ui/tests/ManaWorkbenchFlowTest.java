package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.List;

import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.debug.ui.IDebugUIConstants;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.console.TextConsole;
import org.eclipse.ui.handlers.IHandlerService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.RankState;
import dev.mana.eclipse.core.CheckpointDirectoryValidator;
import dev.mana.eclipse.core.CheckpointValidation;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.IManaJobListener;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaJobs;
import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.internal.ui.Messages;
import dev.mana.eclipse.internal.ui.actions.CheckpointJob;
import dev.mana.eclipse.internal.ui.actions.RestartDialog;
import dev.mana.eclipse.internal.ui.views.ManaJobView;
import dev.mana.eclipse.internal.ui.views.RankRow;

/**
 * The whole flow in the real workbench, as a person does it: a "MANA MPI Job" configuration for a
 * 2-rank program (launch dialog), Run, Checkpoint Now (the command, as from the toolbar), the MANA Job
 * view updating while ranks pass the checkpoint phases and showing the images, Checkpoint and Stop,
 * Restart from Checkpoint... (validated), and the right result in the restarted job's console.
 * Screenshots of the launch dialog, the job view during a checkpoint and the restart dialog go to
 * target/screenshots/ ({@code make screenshots} copies them into docs/screenshots/).
 * <p>
 * It runs the repository's runtime with its MPI example {@code heat_mpi} on 2 ranks, under the real
 * mpirun (Open MPI) and the coordinator hosted in the IDE.
 */
class ManaWorkbenchFlowTest {

    /**
     * One run of the flow.
     *
     * @param name configuration name
     * @param runtime the runtime (bin/mana_launch, bin/mana_restart)
     * @param program the program
     * @param args its arguments
     * @param progress a line every rank prints early on
     * @param expect the last line of an uninterrupted run
     * @param ranks number of ranks
     * @param everyRankPrints whether every rank prints the result (else rank 0 only)
     * @param holdsCheckpoints whether a checkpoint lasts long enough to be seen mid-way by the view's polling
     * @param screenshots whether to save screenshots
     */
    record Scenario(String name, File runtime, File program, String args, String progress, String expect, int ranks,
            boolean everyRankPrints, boolean holdsCheckpoints, boolean screenshots) {}

    /** /tmp/demo: the flow works there, so its screenshots show short paths of no machine (DemoDir). */
    static DemoDir demo;
    /** org.eclipse.debug.ui's preferences (IDebugPreferenceConstants, internal): show the console on output. */
    static final String CONSOLE_OPEN_ON_OUT = "DEBUG.consoleOpenOnOut";
    static final String CONSOLE_OPEN_ON_ERR = "DEBUG.consoleOpenOnErr";
    /** Their values before the test (null: not set), put back after. */
    static String[] consoleOpenOn;

    @BeforeAll
    static void setUp() throws Exception {
        demo = DemoDir.open();
        // the job's output does not bring the Console up: over a maximized MANA Job view it showed as the
        // minimized stack's overlay and hid half the table in the screenshots (the test shows it when it looks)
        var debugUi = InstanceScope.INSTANCE.getNode(IDebugUIConstants.PLUGIN_ID);
        consoleOpenOn = new String[] {debugUi.get(CONSOLE_OPEN_ON_OUT, null), debugUi.get(CONSOLE_OPEN_ON_ERR, null)};
        debugUi.putBoolean(CONSOLE_OPEN_ON_OUT, false);
        debugUi.putBoolean(CONSOLE_OPEN_ON_ERR, false);
        InstanceScope.INSTANCE.getNode(ManaCore.PLUGIN_ID).putLong(ManaCore.PREF_POLL_MILLIS, 200);
        Ui.sync(() -> {
            IWorkbenchWindow w = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
            w.getShell().setBounds(0, 0, 1280, 860);
            IWorkbenchPage page = w.getActivePage();
            page.closeAllEditors(false);
            try {
                PlatformUI.getWorkbench().showPerspective(IDebugUIConstants.ID_DEBUG_PERSPECTIVE, w);
            } catch (Exception e) {
                // stay in the current perspective
            }
        });
    }

    /**
     * The repository's runtime (bin/, lib/ from make build) with its MPI example heat_mpi on 2 ranks
     * (Open MPI); takes the screenshots. The expected line is the one of an uninterrupted run without the
     * runtime.
     */
    @Test
    void mpiExampleTwoRanks() throws Exception {
        File root = new File(System.getProperty("mana.root"));
        File built = new File(root, "core-native/build/examples/heat_mpi");
        if (!new File(root, "bin/mana_launch").canExecute() || !built.canExecute()) {
            Cannot.skipOrFail("runtime", "the runtime and its examples are not built (make build): no " + built);
        }
        File program = demo.copyProgram(built.toPath()).toFile(); // /tmp/demo/heat_mpi
        ProcessBuilder pb = new ProcessBuilder("mpirun.openmpi", "--oversubscribe", "-n", "2", program.getPath(), "200", "0")
            .redirectErrorStream(true);
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        Process p = pb.start();
        String[] lines = new String(p.getInputStream().readAllBytes()).split("\n");
        assertEquals(0, p.waitFor());
        String expect = lines[lines.length - 1].trim();
        assertTrue(expect.startsWith("heat done:"), expect);
        // rank 0 prints the steps and the result
        flow(new Scenario("heat_mpi (2 ranks)", root, program, "200 60", "heat step  20/200", expect, 2, false, false,
            true));
    }

    static String prop(String name, String dflt) {
        String v = System.getProperty(name);
        return v == null || v.isBlank() ? dflt : v;
    }

    @AfterAll
    static void tearDown() throws Exception {
        for (IManaJob j : ManaJobs.getJobs()) {
            if (!j.isTerminated()) {
                try {
                    j.getLaunch().terminate();
                } catch (Exception e) {
                    // best effort
                }
            }
        }
        if (consoleOpenOn != null) {
            var debugUi = InstanceScope.INSTANCE.getNode(IDebugUIConstants.PLUGIN_ID);
            String[] keys = {CONSOLE_OPEN_ON_OUT, CONSOLE_OPEN_ON_ERR};
            for (int i = 0; i < keys.length; i++) {
                if (consoleOpenOn[i] == null) {
                    debugUi.remove(keys[i]);
                } else {
                    debugUi.put(keys[i], consoleOpenOn[i]);
                }
            }
        }
        if (demo != null) {
            demo.close();
        }
    }

    static String console(ILaunch launch) {
        return Ui.sync(() -> {
            StringBuilder b = new StringBuilder();
            for (IProcess p : launch.getProcesses()) {
                if (DebugUITools.getConsole(p) instanceof TextConsole c) {
                    b.append(c.getDocument().get());
                }
            }
            return b.toString();
        });
    }

    /** The job a launch started after {@code before} was taken (launches may be removed meanwhile). */
    static IManaJob waitForNewJob(List<IManaJob> before) throws InterruptedException {
        Ui.waitFor("the MANA job to start", 60_000,
            () -> ManaJobs.getJobs().stream().anyMatch(j -> !before.contains(j)));
        return ManaJobs.getJobs().stream().filter(j -> !before.contains(j)).findFirst().orElseThrow();
    }

    static void execute(String commandId) {
        Ui.sync(() -> {
            IWorkbenchWindow w = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
            try {
                w.getService(IHandlerService.class).executeCommand(commandId, null);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    /** A screenshot of the workbench with the view maximized (the status line shows the progress). */
    static void screenshotMaximized(ManaJobView view, String name) {
        Ui.sync(() -> {
            IWorkbenchPage page = view.getSite().getPage();
            var ref = page.getReference(view);
            page.setPartState(ref, IWorkbenchPage.STATE_MAXIMIZED);
            Ui.screenshot(page.getWorkbenchWindow().getShell(), name);
            page.setPartState(ref, IWorkbenchPage.STATE_RESTORED);
        });
    }

    void flow(Scenario sc) throws Exception {
        System.setProperty(ManaRuntime.RUNTIME_PROPERTY, sc.runtime().getPath());
        int ranks = sc.ranks();
        String expect = sc.expect();
        String progress = sc.progress();
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        // the job works in /tmp/demo beside its program, its checkpoints in /tmp/demo/ck
        Path dir = demo.path();
        File ckpt = demo.resolve("ck").toFile();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
            .newInstance(null, sc.name());
        wc.setAttribute(ManaCore.ATTR_PROGRAM, sc.program().getPath());
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, sc.args());
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, dir.toString());
        wc.setAttribute(ManaCore.ATTR_RANKS, ranks);
        wc.setAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, MpiImplementation.OPEN_MPI.name());
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, ckpt.getPath());
        ILaunchConfiguration config = wc.doSave();

        // 1. the launch dialog on this configuration (Main and Checkpoints tabs)
        if (sc.screenshots()) {
            // Main, MPI, Slurm, Checkpoints
            Ui.screenshotLaunchDialog(config, "launch-dialog", "launch-dialog-mpi", null, "launch-dialog-checkpoints");
        }

        // 2. run it; the MANA Job view follows it
        List<IManaJob> before = ManaJobs.getJobs();
        Ui.sync(() -> DebugUITools.launch(config, ILaunchManager.RUN_MODE));
        IManaJob job = waitForNewJob(before);
        ManaJobView view = Ui.sync(() -> (ManaJobView) PlatformUI.getWorkbench().getActiveWorkbenchWindow()
            .getActivePage().showView(ManaJobView.ID));
        Ui.waitFor(ranks + " ranks RUNNING in the view", 60_000, () -> view.getShownJob() == job
            && view.getRows().size() == ranks && view.getRows().stream().allMatch(r -> r.state() == RankState.RUNNING));
        Ui.waitFor("output of every rank that prints", 60_000, () -> {
            String c = console(job.getLaunch());
            for (int r = 0; r < (sc.everyRankPrints() ? ranks : 1); r++) {
                if (!c.contains("[rank " + r + "] " + progress)) {
                    return false;
                }
            }
            return true;
        });

        // the job's console has the checkpoint actions
        Ui.waitFor("Checkpoint Now in the console's toolbar", 20_000, () -> {
            try {
                IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
                var cv = (org.eclipse.ui.console.IConsoleView) page.showView(org.eclipse.ui.console.IConsoleConstants.ID_CONSOLE_VIEW,
                    null, IWorkbenchPage.VIEW_VISIBLE);
                cv.display(DebugUITools.getConsole(job.getLaunch().getProcesses()[0]));
                var bars = ((org.eclipse.ui.part.PageBookView) cv).getCurrentPage() == null ? null
                    : ((org.eclipse.ui.part.PageBookView) cv).getViewSite().getActionBars();
                org.eclipse.ui.part.IPage current = ((org.eclipse.ui.part.PageBookView) cv).getCurrentPage();
                if (!(current instanceof org.eclipse.ui.part.IPageBookViewPage p)) {
                    return false;
                }
                var tb = p.getSite().getActionBars().getToolBarManager();
                return bars != null && tb.find("dev.mana.eclipse.ui.console.checkpoint") != null
                    && tb.find("dev.mana.eclipse.ui.console.checkpointAndStop") != null;
            } catch (org.eclipse.ui.PartInitException e) {
                throw new AssertionError(e);
            }
        });
        Ui.sync(() -> view.getSite().getPage().activate(view));

        // 3. Checkpoint Now; the job relays the coordinator's progress events, phase by phase, and the view
        // gets them (a real checkpoint takes hundredths of a second: too short to catch in the rows)
        List<CheckpointProgress> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        IManaJobListener recorder = new IManaJobListener() {
            @Override
            public void checkpointProgress(IManaJob j, CheckpointProgress p) {
                if (j == job) {
                    events.add(p);
                }
            }
        };
        ManaJobs.addListener(recorder);
        try {
            execute("dev.mana.eclipse.ui.checkpoint");
            Job.getJobManager().join(CheckpointJob.FAMILY, null);
            // the events come on the coordinator's event thread: the last may trail the result a little
            Ui.waitFor(() -> "all ranks COMMITTED in the progress events: " + events, 10_000,
                () -> events.stream().anyMatch(p -> p.state() == RankState.COMMITTED && p.reached() == ranks));
        } finally {
            ManaJobs.removeListener(recorder);
        }
        assertCheckpointPhases(events, 1, ranks);
        Ui.waitFor(() -> "the view to get the progress events: " + Ui.sync(view::getLastProgress), 10_000, () -> {
            CheckpointProgress p = view.getLastProgress();
            return p != null && p.generation() == 1 && p.state() == RankState.COMMITTED && p.reached() == ranks;
        });
        if (sc.screenshots()) {
            screenshotMaximized(view, "job-view-checkpoint");
        }
        CheckpointResult first = job.getLastCheckpoint();
        assertNotNull(first, "the checkpoint committed");
        assertEquals(1, first.generation());
        CheckpointValidation v = CheckpointDirectoryValidator.validate(ckpt, ranks);
        assertTrue(v.isValid(), v.problems().toString());
        assertEquals(1, v.generation());
        Ui.waitFor(() -> "the images in the view: " + Ui.sync(() -> view.getSummaryText() + " " + view.getRows()), 10_000, () -> {
            List<RankRow> rows = view.getRows();
            return rows.size() == ranks && rows.stream().allMatch(r -> r.image() != null && r.image().generation() == 1
                && r.state() == RankState.RUNNING);
        });
        Ui.waitFor("the last checkpoint in the view", 10_000,
            () -> view.getSummaryText().contains(Ui.head(Messages.ManaJobView_last, 1)));
        // a double-click on a rank opens its image in the image editor
        Ui.sync(() -> {
            RankRow row0 = view.getRows().get(0);
            assertTrue(view.openImage(row0));
            var ed = (dev.mana.eclipse.internal.ui.images.ImageEditor) view.getSite().getPage().getActiveEditor();
            assertEquals(row0.image().file().toPath(), ed.path());
            assertEquals("1", ed.getOverview().get(dev.mana.eclipse.internal.ui.images.Messages.OverviewPage_generation));
            view.getSite().getPage().closeAllEditors(false);
        });
        // and the job's checkpoint directory in the Checkpoint Directory view (scanned in the background)
        var dirView = Ui.sync(view::showCheckpointDirectory);
        Ui.waitFor("the checkpoint directory scanned", 30_000, () -> !dirView.isScanning());
        Ui.sync(() -> {
            assertEquals(java.util.List.of(1L), dirView.getGenerations());
            assertEquals(ranks, dirView.getRankRows());
            view.getSite().getPage().activate(view);
        });
        if (sc.screenshots()) {
            screenshotMaximized(view, "job-view-after-checkpoint");
        }

        // 4. Checkpoint and Stop
        execute("dev.mana.eclipse.ui.checkpointAndStop");
        Job.getJobManager().join(CheckpointJob.FAMILY, null);
        Ui.waitFor("the job to stop", 60_000, () -> job.getLaunch().isTerminated());
        assertEquals(2, job.getLastCheckpoint().generation());
        String out1 = console(job.getLaunch());
        assertTrue(out1.contains("[mana] Checkpoint 2 written: " + ranks + (ranks == 1 ? " rank" : " ranks")), out1);
        assertTrue(!out1.contains(expect), "stopped before the end");

        // 5. Restart from Checkpoint... (validated), and the right result
        List<IManaJob> before2 = ManaJobs.getJobs();
        Ui.sync(() -> {
            Shell window = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell();
            RestartDialog d = new RestartDialog(window, job);
            d.setBlockOnOpen(false);
            d.open();
            assertNotNull(d.awaitValidation(10_000), "the directory was checked");
            assertTrue(d.getValidation().isValid(), d.getValidation().problems().toString());
            assertEquals(2, d.getValidation().generation());
            if (sc.screenshots()) {
                d.getShell().setBounds(80, 60, 820, 520); // tall enough for every rank's row
                d.getShell().layout(true, true);
                Ui.screenshot(d.getShell(), "restart-dialog");
            }
            assertTrue(d.pressRestart());
            d.launch();
        });
        IManaJob restarted = waitForNewJob(before2);
        assertTrue(restarted.isRestart());
        Ui.waitFor("the restarted job to finish", 120_000, () -> restarted.getLaunch().isTerminated());
        String out2 = console(restarted.getLaunch());
        assertTrue(out2.contains("[rank 0] " + expect), out2);
        for (int r = 1; sc.everyRankPrints() && r < ranks; r++) {
            assertTrue(out2.contains("[rank " + r + "] " + expect), out2);
        }
        assertEquals(0, restarted.getLaunch().getProcesses()[0].getExitValue(), out2);
    }

    /**
     * The progress events of one checkpoint, all of generation {@code generation}: all ranks complete
     * SUSPENDED, then CHECKPOINTED, then COMMITTED (the last event); all complete DRAINED too (its events
     * come from the MPI drain rounds as well, so they are not ordered against SUSPENDED).
     */
    static void assertCheckpointPhases(List<CheckpointProgress> events, long generation, int ranks) {
        assertTrue(!events.isEmpty(), "no checkpoint progress event reached the job's listeners");
        for (CheckpointProgress p : events) {
            assertEquals(generation, p.generation(), events.toString());
            assertEquals(ranks, p.nranks(), events.toString());
        }
        int suspended = firstComplete(events, RankState.SUSPENDED, ranks);
        int drained = firstComplete(events, RankState.DRAINED, ranks);
        int checkpointed = firstComplete(events, RankState.CHECKPOINTED, ranks);
        int committed = firstComplete(events, RankState.COMMITTED, ranks);
        assertTrue(suspended >= 0 && drained >= 0 && checkpointed >= 0 && committed >= 0,
            "not every phase completed: " + events);
        assertTrue(suspended < checkpointed && checkpointed < committed, "phases out of order: " + events);
        assertEquals(events.size() - 1, committed, "COMMITTED is not the last event: " + events);
    }

    private static int firstComplete(List<CheckpointProgress> events, RankState s, int ranks) {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).state() == s && events.get(i).reached() == ranks) {
                return i;
            }
        }
        return -1;
    }
}
