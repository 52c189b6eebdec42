package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.debug.ManaFunctionBreakpoint;
import dev.mana.eclipse.debug.ui.AddFunctionBreakpointHandler;
import dev.mana.eclipse.internal.ui.actions.RestartDialog;
import dev.mana.eclipse.debug.ManaDebugModel;
import dev.mana.eclipse.debug.ManaLineBreakpoint;
import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankStackFrame;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.IAdaptable;
import org.eclipse.core.runtime.IPath;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.IBreakpoint;
import org.eclipse.debug.core.model.ILineBreakpoint;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.debug.ui.IDebugUIConstants;
import org.eclipse.debug.ui.IDebugView;
import org.eclipse.debug.ui.actions.IToggleBreakpointsTarget;
import org.eclipse.jface.text.IDocument;
import org.eclipse.jface.text.ITextSelection;
import org.eclipse.jface.text.TextSelection;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.widgets.Tree;
import org.eclipse.swt.widgets.TreeItem;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.ide.IDE;
import org.eclipse.ui.texteditor.ITextEditor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Debugging a restarted rank in the real workbench: gdb-integration's test program (real runtime) is
 * checkpointed and killed; a breakpoint is toggled on line 20 ({@code after_step}) of its source in the
 * platform's text editor (through the toggle target the platform picks for that editor, as the ruler
 * does) and a function breakpoint on {@code split_step} is added as the Breakpoints view's command does.
 * Debug from Checkpoint... (the restart dialog's Debug variant: rank 0, pause level 3) restarts the job in
 * Debug mode; the rank appears as {@code rank 0 (pid P)} with both breakpoints inserted while it waits in
 * its pause; {@code continue} typed into the rank's gdb console releases it. The step after the checkpoint
 * stops in {@code split_step} (shared library), then, resumed, at line 20: the Debug view shows the rank
 * suspended at that line, the editor shows the line, the Variables view lists the locals (screenshot
 * debug-restart-breakpoint.png); {@code print i} typed into the gdb console answers there
 * (debug-gdb-console.png); without the line breakpoint the next stop is {@code split_step} one step later;
 * without breakpoints the job ends with the result of an uninterrupted run.
 */
class DebugRestartUiTest {
    private CheckpointedSplitApp app0;
    private ILaunch launch;
    private DemoDir demo;
    private Path dir;
    private org.eclipse.ui.IPerspectiveDescriptor perspectiveBefore;
    private org.eclipse.debug.core.ILaunchConfiguration config;

    /** The launch of the restart the dialog started (its configuration is a copy named "... (restart)"). */
    private ILaunch debugLaunch() {
        for (ILaunch l : DebugPlugin.getDefault().getLaunchManager().getLaunches()) {
            if (l.getLaunchConfiguration() != null && config != null
                    && l.getLaunchConfiguration().getName().equals(
                        NLS.bind(dev.mana.eclipse.internal.ui.Messages.RestartDialog_restartCopy, config.getName()))) {
                return l;
            }
        }
        return null;
    }

    @AfterEach
    void cleanUp() throws Exception {
        // leave the workbench as the other tests expect it: their perspective, no editors, no launch of ours
        Ui.sync(() -> {
            IWorkbenchPage page = PlatformUI.getWorkbench().getWorkbenchWindows()[0].getActivePage();
            page.closeAllEditors(false);
            if (perspectiveBefore != null) {
                page.setPerspective(perspectiveBefore);
            }
        });
        if (launch != null) {
            DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
        }
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoints(
                DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(ManaDebugModel.ID), true);
        if (launch != null && !launch.isTerminated()) {
            launch.terminate();
        }
        if (config != null) {
            config.delete();
        }
        if (app0 != null) {
            app0.close();
        }
        if (demo != null) {
            demo.close();
        }
    }

    @Test
    void restartInDebugModeStopsAtTheRulerBreakpoint() throws Exception {
        File root = new File(System.getProperty("mana.root"));
        if (!new File(root, "bin/mana_launch").canExecute()) {
            Cannot.skipOrFail("runtime", "the runtime is not built (make build): no " + new File(root, "bin/mana_launch"));
        }
        System.setProperty(ManaRuntime.RUNTIME_PROPERTY, root.getPath());
        // /tmp/demo: the dialog, the Debug view and the console show its short paths and names (DemoDir)
        demo = DemoDir.open();
        dir = demo.path();
        // launched under the runtime, checkpointed, killed: a checkpoint to restart from
        app0 = new CheckpointedSplitApp(root.toPath(), dir, 600); // outlives the checkpoint request on a loaded machine (150 had ended: "0 of 1 ranks registered")
        String app = app0.app.toString();
        String expect = app0.nativeResult;

        // the source in the workspace, opened in the platform's text editor; a breakpoint toggled on line 20
        IWorkspace ws = ResourcesPlugin.getWorkspace();
        IProject project = ws.getRoot().getProject("splitapp");
        IProjectDescription desc = ws.newProjectDescription(project.getName());
        desc.setLocation(IPath.fromOSString(dir.toString()));
        project.create(desc, null);
        project.open(null);
        IFile file = project.getFile("splitapp.c");
        IWorkbenchWindow window = Ui.sync(() -> PlatformUI.getWorkbench().getWorkbenchWindows()[0]);
        IWorkbenchPage page = Ui.sync(window::getActivePage);
        perspectiveBefore = Ui.sync(page::getPerspective);
        ITextEditor editor = Ui.sync(() -> (ITextEditor) IDE.openEditor(page, file, "org.eclipse.ui.DefaultTextEditor"));
        Ui.sync(() -> {
            IDocument doc = editor.getDocumentProvider().getDocument(editor.getEditorInput());
            try {
                editor.selectAndReveal(doc.getLineOffset(19), 0);
                ITextSelection sel = (ITextSelection) editor.getSelectionProvider().getSelection();
                IToggleBreakpointsTarget t = DebugUITools.getToggleBreakpointsTargetManager()
                        .getToggleBreakpointsTarget(editor, sel);
                assertNotNull(t, "no toggle target for the text editor on splitapp.c");
                assertTrue(t.canToggleLineBreakpoints(editor, sel));
                t.toggleLineBreakpoints(editor, sel);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        IBreakpoint[] bps = DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(ManaDebugModel.ID);
        assertEquals(1, bps.length);
        assertTrue(bps[0] instanceof ManaLineBreakpoint);
        assertEquals(20, ((ILineBreakpoint) bps[0]).getLineNumber());

        // a function breakpoint as the Breakpoints view's "Add Function Breakpoint (MANA)..." makes it
        assertEquals(null, AddFunctionBreakpointHandler.check("split_step"));
        assertEquals(NLS.bind(dev.mana.eclipse.internal.debug.ui.Messages.AddFunctionBreakpoint_notAName, "split step"),
            AddFunctionBreakpointHandler.check("split step"));
        assertEquals(dev.mana.eclipse.internal.debug.ui.Messages.AddFunctionBreakpoint_empty,
            AddFunctionBreakpointHandler.check(" "));
        ManaFunctionBreakpoint fbp = AddFunctionBreakpointHandler.add("split_step");

        // the job's configuration; Debug from Checkpoint...: the restart dialog's Debug variant on its directory
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
                .newInstance(null, "splitapp");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, app);
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, "600 10000");
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, dir.toString());
        wc.setAttribute(ManaCore.ATTR_RANKS, 1);
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, dir.resolve("ck").toString());
        config = wc.doSave();
        Ui.sync(() -> {
            try {
                PlatformUI.getWorkbench().showPerspective(IDebugUIConstants.ID_DEBUG_PERSPECTIVE, window);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        Ui.sync(() -> {
            RestartDialog d = new RestartDialog(window.getShell(), null, dir.resolve("ck").toFile(), true);
            d.setBlockOnOpen(false);
            d.open();
            assertTrue(d.selectConfiguration(config.getName()));
            assertNotNull(d.debugButton(), "the Debug group (the MANA debugger is installed)");
            assertTrue(d.debugButton().getSelection());
            assertEquals("0", d.debugRanksText().getText());
            assertEquals(2, d.pauseLevelSpinner().getSelection());
            assertNotNull(d.awaitValidation(10_000), "the directory was checked");
            assertTrue(d.getValidation().isValid(), d.getValidation().problems().toString());
            // a rank the job does not have is refused; rank 0 at pause level 3 is taken
            d.debugRanksText().setText("1");
            assertEquals("rank 1 to debug is not in the job (0-0)", d.getErrorMessage());
            d.debugRanksText().setText("0");
            d.pauseLevelSpinner().setSelection(3);
            assertEquals(null, d.getErrorMessage());
            assertTrue(Ui.pattern(dev.mana.eclipse.internal.ui.Messages.RestartDialog_debugRanksWait, null, 3)
                .matcher(d.getMessage()).find(), d.getMessage());
            d.getShell().setBounds(80, 60, 820, 520);
            d.getShell().layout(true, true);
            Ui.screenshot(d.getShell(), "restart-debug-dialog");
            assertTrue(d.pressRestart());
            assertEquals(ILaunchManager.DEBUG_MODE, d.launchMode());
            d.launch();
        });
        Ui.waitFor("the rank's debug target", 90_000, () -> (launch = debugLaunch()) != null
                && Arrays.stream(launch.getDebugTargets()).anyMatch(t -> t instanceof RankDebugTarget));
        RankDebugTarget target = (RankDebugTarget) Arrays.stream(launch.getDebugTargets())
                .filter(t -> t instanceof RankDebugTarget).findFirst().orElseThrow();
        assertEquals(3, launch.getLaunchConfiguration().getAttribute(ManaCore.ATTR_DEBUG_PAUSE_LEVEL, 0));
        assertTrue(target.getName().matches("rank 0 \\(pid \\d+\\)"), target.getName());
        assertTrue(target.isPausePending());
        // both breakpoints are in gdb before the upper half resumes
        assertEquals(java.util.Set.of(bps[0], fbp), target.installedBreakpoints().keySet());
        // the rank's gdb console: a console of its own, fed by gdb's console stream, taking CLI commands;
        // `continue` typed there releases the restart pause first, as mana_gdb's does
        IProcess gdbProcess = target.console();
        assertEquals("gdb: " + target.getName(), gdbProcess.getLabel());
        Ui.waitFor("the gdb console of " + target.getName(), 30_000, () -> DebugUITools.getConsole(gdbProcess) != null);
        org.eclipse.ui.console.TextConsole console =
                (org.eclipse.ui.console.TextConsole) Ui.sync(() -> DebugUITools.getConsole(gdbProcess));
        type(console, "continue\n");

        // the step after the checkpoint: first split_step (function breakpoint, in the shared library) ...
        Ui.waitFor(() -> "split_step as the debug context (now " + DebugUITools.getDebugContext() + ")", 90_000, () ->
                DebugUITools.getDebugContext() instanceof RankStackFrame f && f.getName().startsWith("[upper] split_step"));
        String step = target.debugger().evaluate("i", null);
        target.resume();
        // ... then after_step (the ruler's line breakpoint) in the same step
        // the Debug view selects the frame that hit the breakpoint; source display shows its line
        Ui.waitFor(() -> "the breakpoint's frame as the debug context (now " + DebugUITools.getDebugContext() + ")",
                90_000, () -> {
                    IAdaptable c = DebugUITools.getDebugContext();
                    return c instanceof RankStackFrame f && f.getLineNumber() == 20;
                });
        RankStackFrame frame = Ui.sync(() -> (RankStackFrame) DebugUITools.getDebugContext());
        assertEquals("[upper] after_step at splitapp.c:20", frame.getName());
        Ui.waitFor("the editor on splitapp.c at line 20", 30_000, () -> {
            IEditorPart e = page.getActiveEditor();
            return e instanceof ITextEditor te && file.equals(te.getEditorInput().getAdapter(IFile.class))
                    && ((ITextSelection) te.getSelectionProvider().getSelection()).getStartLine() == 19;
        });
        IDebugView variables = (IDebugView) Ui.sync(() -> page.showView(IDebugUIConstants.ID_VARIABLE_VIEW));
        Ui.waitFor(() -> "acc, i and mixed in the Variables view (" + variableNames(variables) + ")", 30_000,
                () -> variableNames(variables).containsAll(List.of("acc", "i", "mixed")));
        Ui.sync(() -> page.showView(IDebugUIConstants.ID_DEBUG_VIEW));
        Ui.sync(() -> page.activate(variables));
        Ui.sync(() -> Ui.screenshot(window.getShell(), "debug-restart-breakpoint"));

        // a CLI command typed into the rank's gdb console answers there
        assertTrue(!target.isPausePending(), "the console's continue released the pause");
        String i = target.debugger().evaluate("i", null);
        assertEquals(step, i);
        type(console, "print i\n");
        Ui.waitFor(() -> "\"$N = " + i + "\" in the gdb console: " + Ui.sync(() -> console.getDocument().get()), 30_000,
                () -> console.getDocument().get().matches("(?s).*\\$\\d+ = " + i + "\\b.*"));
        Ui.sync(() -> {
            org.eclipse.ui.console.ConsolePlugin.getDefault().getConsoleManager().showConsoleView(console);
            Ui.screenshot(window.getShell(), "debug-gdb-console");
        });

        // next: the function breakpoint in the shared library, the step after
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoints(bps, true);
        target.resume();
        Ui.waitFor(() -> "split_step as the debug context (now " + DebugUITools.getDebugContext() + ")", 60_000, () ->
                DebugUITools.getDebugContext() instanceof RankStackFrame f && f.getName().startsWith("[upper] split_step"));
        assertEquals(Long.toString(Long.parseLong(i) + 1), target.debugger().evaluate("i", null));

        // to the end: the job's output is the uninterrupted run's
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoint(fbp, true);
        target.resume();
        IProcess proc = launch.getProcesses()[0];
        Ui.waitFor("the job to end", 90_000, proc::isTerminated);
        // the job's console (per-rank lines carry [rank N])
        Ui.waitFor(() -> "\"" + expect + "\" in the console: " + ManaWorkbenchFlowTest.console(launch), 90_000,
                () -> ManaWorkbenchFlowTest.console(launch).contains(expect));
        Ui.waitFor("the target to terminate", 30_000, target::isTerminated);
        project.delete(false, true, null);
    }

    /** Text typed at the end of a console (the console turns a finished line into input for its process). */
    static void type(org.eclipse.ui.console.TextConsole console, String text) {
        Ui.sync(() -> {
            IDocument doc = console.getDocument();
            try {
                doc.replace(doc.getLength(), 0, text);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    /** Names in the first column of the Variables view's tree (call from any thread). */
    static List<String> variableNames(IDebugView view) {
        return Ui.sync(() -> {
            List<String> names = new ArrayList<>();
            if (view.getViewer().getControl() instanceof Tree tree) {
                for (TreeItem item : tree.getItems()) {
                    // "name= value" without columns, the name alone in the first column with them
                    names.add(item.getText(0).split("=")[0].trim());
                }
            }
            return names;
        });
    }
}
