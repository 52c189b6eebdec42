package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.debug.ManaDebugModel;
import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankStackFrame;
import dev.mana.eclipse.debug.ui.AddFunctionBreakpointHandler;
import dev.mana.eclipse.internal.debug.ui.DisassemblyView;
import dev.mana.eclipse.internal.debug.ui.Messages;
import dev.mana.gdb.mi.Disassembly;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.Launch;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.debug.ui.IDebugUIConstants;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.widgets.TableItem;
import org.eclipse.ui.IPerspectiveDescriptor;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Disassembly (MANA) view on a rank restarted by the real runtime and debugged by the real gdb: with no
 * MANA rank selected it says so; with the rank stopped at a function breakpoint on {@code after_step} (right
 * after the checkpoint point) it lists after_step's instructions from offset 0 with the frame's pc marked and
 * selected (screenshot debug-disassembly.png); Step Over Instruction in its toolbar moves the pc to the next
 * instruction (gdb's $pc agrees) and the view follows; Step Into Instruction moves it again; while the rank
 * runs the view says it runs; the rank then ends with the result of an uninterrupted run.
 */
class DisassemblyViewTest {
    private CheckpointedSplitApp prog;
    private CheckpointedSplitApp.Paused paused;
    private ILaunch launch;
    private Path dir;
    private IPerspectiveDescriptor perspectiveBefore;

    @AfterEach
    void cleanUp() throws Exception {
        Ui.sync(() -> {
            IWorkbenchPage page = PlatformUI.getWorkbench().getWorkbenchWindows()[0].getActivePage();
            org.eclipse.ui.IViewPart v = page.findView(DisassemblyView.ID);
            if (v != null) {
                page.hideView(v);
            }
            if (perspectiveBefore != null) {
                page.setPerspective(perspectiveBefore);
            }
        });
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoints(
                DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(ManaDebugModel.ID), true);
        if (launch != null) {
            if (!launch.isTerminated()) {
                launch.terminate();
            }
            DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
        }
        if (prog != null) {
            prog.close();
        }
        CheckpointedSplitApp.deleteTree(dir);
    }

    @Test
    void instructionsOfTheSelectedFrameAndStepsByInstruction() throws Exception {
        File root = new File(System.getProperty("mana.root"));
        if (!new File(root, "bin/mana_launch").canExecute()) {
            Cannot.skipOrFail("runtime", "the runtime is not built (make build): no " + new File(root, "bin/mana_launch"));
        }
        dir = Files.createTempDirectory("mana-disassembly-ui");
        prog = new CheckpointedSplitApp(root.toPath(), dir, 1000); // runs on for seconds after the restart

        IWorkbenchWindow window = Ui.sync(() -> PlatformUI.getWorkbench().getWorkbenchWindows()[0]);
        IWorkbenchPage page = Ui.sync(window::getActivePage);
        perspectiveBefore = Ui.sync(page::getPerspective);
        Ui.sync(() -> {
            try {
                PlatformUI.getWorkbench().showPerspective(IDebugUIConstants.ID_DEBUG_PERSPECTIVE, window);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        Ui.sync(() -> window.getShell().setBounds(0, 0, 1280, 900)); // the screenshots show whole views
        DisassemblyView view = (DisassemblyView) Ui.sync(() -> page.showView(DisassemblyView.ID));
        // nothing of ours selected: the view says what to do
        Ui.waitFor(() -> "the no-rank message (now '" + Ui.sync(view::message) + "')", 10_000,
                () -> !(DebugUITools.getDebugContext() instanceof RankStackFrame)
                        && view.message().equals(Messages.Disassembly_noRank));
        assertFalse(Ui.sync(() -> view.stepOverAction().isEnabled()));

        // the restarted rank, stopped in after_step by a function breakpoint
        AddFunctionBreakpointHandler.add("after_step");
        paused = prog.restartPaused();
        launch = new Launch(null, ILaunchManager.DEBUG_MODE, null);
        DebugPlugin.getDefault().getLaunchManager().addLaunch(launch);
        RankDebugTarget target = RankDebugTarget.attach(launch, 0, paused.pid(), paused.image(), 2);
        target.releaseAndResume();
        Ui.waitFor(() -> "after_step as the debug context (now " + DebugUITools.getDebugContext() + ")", 90_000, () ->
                DebugUITools.getDebugContext() instanceof RankStackFrame f && f.getName().startsWith("[upper] after_step"));
        RankStackFrame frame = Ui.sync(() -> (RankStackFrame) DebugUITools.getDebugContext());
        long pc = frame.pc();
        Ui.sync(() -> page.showView(DisassemblyView.ID));
        Ui.waitFor(() -> "the pc " + Long.toHexString(pc) + " in the view (now " + Ui.sync(view::message) + ")", 30_000,
                () -> !view.instructions().isEmpty() && view.pc() == pc);
        List<Disassembly.Instruction> code = Ui.sync(view::instructions);
        assertEquals("after_step", code.get(0).function(), code.toString());
        assertEquals(0, code.get(0).offset());
        int at = Disassembly.indexOf(code, pc);
        assertEquals(pc, code.get(at).address());
        Ui.sync(() -> {
            TableItem row = view.table().getItem(at);
            assertEquals(DisassemblyView.PC_MARK, row.getText(0));
            assertEquals(String.format("0x%016x", pc), row.getText(1));
            assertEquals(code.get(at).location(), row.getText(2));
            assertEquals(at, view.table().getSelectionIndex());
            for (int i = 0; i < view.table().getItemCount(); i++) {
                assertEquals(i == at, DisassemblyView.PC_MARK.equals(view.table().getItem(i).getText(0)), "row " + i);
            }
            assertTrue(Ui.pattern(Messages.Disassembly_showing, target.getName(), "after_step").matcher(view.message()).matches(),
                    view.message());
            assertTrue(view.stepOverAction().isEnabled());
            maximizedScreenshot(page, view, "debug-disassembly");
        });

        // the other views a CDT user reaches for at the same stop, for the docs' screenshots: a watch expression,
        // the register groups, a memory monitor on the program's iteration counter
        DebugPlugin.getDefault().getExpressionManager().addExpression(
                DebugPlugin.getDefault().getExpressionManager().newWatchExpression("acc ^ (i << 3)"));
        org.eclipse.debug.ui.IDebugView expressions =
                (org.eclipse.debug.ui.IDebugView) Ui.sync(() -> page.showView(IDebugUIConstants.ID_EXPRESSION_VIEW));
        Ui.waitFor(() -> "the watch expression's value (" + treeText(expressions) + ")", 30_000,
                () -> treeText(expressions).matches("(?s).*acc \\^ \\(i << 3\\).*\\d.*"));
        Ui.sync(() -> maximizedScreenshot(page, expressions, "debug-expressions"));
        org.eclipse.debug.ui.IDebugView registers =
                (org.eclipse.debug.ui.IDebugView) Ui.sync(() -> page.showView(IDebugUIConstants.ID_REGISTER_VIEW));
        // the gdb console brings the Console view to the front of the stack the Registers view shares when gdb
        // writes to it: the view is brought back on each look (its tree fills only while it is visible)
        Ui.waitFor(() -> "the register groups (" + treeText(registers) + ")", 30_000, () -> {
            page.bringToTop(registers);
            return treeText(registers).contains("general");
        });
        // the general group expanded, its registers read from gdb (rax first) before the picture
        Ui.waitFor("the general group's registers", 30_000, () -> {
            page.bringToTop(registers);
            expandFirst(registers);
            org.eclipse.swt.widgets.Tree tree = (org.eclipse.swt.widgets.Tree) registers.getViewer().getControl();
            // the view refills its tree when it comes to the front again: empty for a moment, look again
            // (getItem(0) of an empty tree threw "Index out of bounds" once, a clean clone's run)
            if (tree.getItemCount() == 0) {
                return false;
            }
            org.eclipse.swt.widgets.TreeItem general = tree.getItem(0);
            for (org.eclipse.swt.widgets.TreeItem r : general.getItems()) {
                if (r.getText(0).equals("rax") && r.getText(1).startsWith("0x")) {
                    return true;
                }
            }
            return false;
        });
        Ui.sync(() -> maximizedScreenshot(page, registers, "debug-registers"));
        org.eclipse.debug.core.model.IMemoryBlock block = target.getExtendedMemoryBlock("&iteration", frame);
        DebugPlugin.getDefault().getMemoryBlockManager().addMemoryBlocks(new org.eclipse.debug.core.model.IMemoryBlock[] {block});
        org.eclipse.ui.IViewPart memory = Ui.sync(() -> page.showView(IDebugUIConstants.ID_MEMORY_VIEW));
        // the Memory view offers the platform's renderings for the model's blocks (debug.ui binds them: the platform
        // binds none by itself), raw hex by default; the monitor is in the view
        Ui.sync(() -> {
            org.eclipse.debug.ui.memory.IMemoryRenderingType[] types =
                    DebugUITools.getMemoryRenderingManager().getDefaultRenderingTypes(block);
            assertEquals(1, types.length);
            assertEquals("org.eclipse.debug.ui.rendering.raw_memory", types[0].getId());
            assertEquals(5, DebugUITools.getMemoryRenderingManager().getRenderingTypes(block).length);
            page.bringToTop(memory);
        });
        // the default rendering added to the view's first rendering pane, as its Add Rendering button does: the picture
        // shows the monitor's bytes, and those the rendering shows at its base are the block's
        org.eclipse.debug.ui.memory.IMemoryRendering hex = Ui.sync(() -> {
            org.eclipse.debug.ui.memory.IMemoryRenderingContainer pane =
                    ((org.eclipse.debug.ui.memory.IMemoryRenderingSite) memory).getContainer(IDebugUIConstants.ID_RENDERING_VIEW_PANE_1);
            org.eclipse.debug.ui.memory.IMemoryRendering r =
                    DebugUITools.getMemoryRenderingManager().getDefaultRenderingTypes(block)[0].createRendering();
            r.init(pane, block);
            pane.addMemoryRendering(r);
            return r;
        });
        assertTrue(hex instanceof org.eclipse.debug.ui.memory.IRepositionableMemoryRendering, String.valueOf(hex));
        java.math.BigInteger base = ((org.eclipse.debug.core.model.IMemoryBlockExtension) block).getBigBaseAddress();
        // read off the UI thread, through the model (the rank stays suspended: its memory does not change)
        byte[] read = values(((org.eclipse.debug.core.model.IMemoryBlockExtension) block).getBytesFromAddress(base, 16));
        Ui.waitFor(() -> "&iteration's bytes in the hex rendering (now "
                + Arrays.toString(Ui.sync(() -> values(((org.eclipse.debug.ui.memory.IRepositionableMemoryRendering) hex)
                        .getSelectedAsBytes()))) + ")", 30_000, () -> {
                    var table = (org.eclipse.debug.ui.memory.IRepositionableMemoryRendering) hex;
                    org.eclipse.debug.core.model.MemoryByte[] shown = table.getSelectedAsBytes();
                    return shown != null && shown.length > 0 && shown.length <= read.length
                            && base.equals(table.getSelectedAddress()) && shown[0].isReadable()
                            && Arrays.equals(values(shown), Arrays.copyOf(read, shown.length));
                });
        // the picture once the maximized view's table has drawn its first row (the rendering fills its rows in the
        // background): an address, then hex digits
        org.eclipse.ui.IWorkbenchPartReference memoryRef = Ui.sync(() -> page.getReference(memory));
        Ui.sync(() -> page.setPartState(memoryRef, IWorkbenchPage.STATE_MAXIMIZED));
        try {
            Ui.waitFor(() -> "the hex rendering's first row drawn (now '" + Ui.sync(() -> firstRow(hex)) + "')", 30_000,
                    () -> firstRow(hex).matches("(?i)[0-9a-f]{8,16}\\s*\\|[0-9a-f]{2,}.*"));
            Ui.sync(() -> Ui.screenshot(page.getWorkbenchWindow().getShell(), "debug-memory-view"));
        } finally {
            Ui.sync(() -> page.setPartState(memoryRef, IWorkbenchPage.STATE_RESTORED));
        }
        DebugPlugin.getDefault().getMemoryBlockManager().removeMemoryBlocks(new org.eclipse.debug.core.model.IMemoryBlock[] {block});
        DebugPlugin.getDefault().getExpressionManager().removeExpressions(
                DebugPlugin.getDefault().getExpressionManager().getExpressions());
        Ui.sync(() -> page.showView(DisassemblyView.ID));

        // Step Over Instruction: the next instruction (after_step's first lines call nothing)
        assertFalse(code.get(at).text().startsWith("call"), code.get(at).toString());
        long next = code.get(at + 1).address();
        Ui.sync(() -> view.stepOverAction().run());
        Ui.waitFor(() -> "the pc at " + Long.toHexString(next) + " in the view (now 0x" + Long.toHexString(view.pc()) + ")",
                30_000, () -> view.pc() == next && !view.instructions().isEmpty() && view.stepIntoAction().isEnabled());
        assertEquals(next, Long.decode(target.debugger().evaluate("$pc", null).replaceAll(" .*", "")));
        Ui.sync(() -> assertEquals(DisassemblyView.PC_MARK, view.table().getItem(at + 1).getText(0)));
        // Step Into Instruction moves on again
        Ui.sync(() -> view.stepIntoAction().run());
        Ui.waitFor(() -> "the pc past " + Long.toHexString(next) + " in the view", 30_000,
                () -> view.pc() != next && !view.instructions().isEmpty() && view.stepIntoAction().isEnabled());

        // running: said so, steps off; then the rank runs to its end
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoints(
                DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(ManaDebugModel.ID), true);
        target.resume();
        Ui.waitFor(() -> "the running message (now '" + Ui.sync(view::message) + "')", 30_000,
                () -> view.message().equals(NLS.bind(Messages.Disassembly_running, target.getName()))
                        && view.instructions().isEmpty() && !view.stepOverAction().isEnabled());
        assertTrue(paused.process().waitFor(90, java.util.concurrent.TimeUnit.SECONDS), "the restarted rank ended");
        assertTrue(Files.readString(paused.output()).contains(prog.nativeResult),
                "the result of an uninterrupted run: " + Files.readString(paused.output()));
        Ui.waitFor("the target to terminate", 30_000, target::isTerminated);
        Ui.waitFor(() -> "the ended message (now '" + Ui.sync(view::message) + "')", 30_000,
                () -> view.instructions().isEmpty() && !view.stepOverAction().isEnabled()
                        && (view.message().equals(NLS.bind(Messages.Disassembly_terminated, target.getName()))
                                || view.message().equals(Messages.Disassembly_noRank)));
    }

    /** The first row of a table rendering as "address|column 1" ("" before it is drawn); UI thread. */
    static String firstRow(org.eclipse.debug.ui.memory.IMemoryRendering rendering) {
        org.eclipse.swt.widgets.Table t = table(rendering.getControl());
        if (t == null || t.getItemCount() == 0 || t.getColumnCount() < 2) {
            return "";
        }
        TableItem row = t.getItem(0);
        return row.getText(0).trim() + "|" + row.getText(1).trim();
    }

    private static org.eclipse.swt.widgets.Table table(org.eclipse.swt.widgets.Control c) {
        if (c instanceof org.eclipse.swt.widgets.Table t) {
            return t;
        }
        if (c instanceof org.eclipse.swt.widgets.Composite comp) {
            for (org.eclipse.swt.widgets.Control child : comp.getChildren()) {
                org.eclipse.swt.widgets.Table t = table(child);
                if (t != null) {
                    return t;
                }
            }
        }
        return null;
    }

    /** The values of memory bytes. */
    static byte[] values(org.eclipse.debug.core.model.MemoryByte[] bytes) {
        byte[] out = new byte[bytes == null ? 0 : bytes.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = bytes[i].getValue();
        }
        return out;
    }

    /** Every item's text of a tree view, expanded one level (call from any thread). */
    static String treeText(org.eclipse.debug.ui.IDebugView view) {
        return Ui.sync(() -> {
            StringBuilder b = new StringBuilder();
            if (view.getViewer().getControl() instanceof org.eclipse.swt.widgets.Tree tree) {
                for (org.eclipse.swt.widgets.TreeItem item : tree.getItems()) {
                    for (int c = 0; c < Math.max(1, tree.getColumnCount()); c++) {
                        b.append(item.getText(c)).append(' ');
                    }
                    b.append('\n');
                }
            }
            return b.toString();
        });
    }

    /** A screenshot of the window with {@code view} maximized (the whole view, no other part's paths); UI thread. */
    static void maximizedScreenshot(IWorkbenchPage page, org.eclipse.ui.IViewPart view, String name) {
        org.eclipse.ui.IWorkbenchPartReference ref = page.getReference(view);
        page.setPartState(ref, IWorkbenchPage.STATE_MAXIMIZED);
        try {
            Ui.screenshot(page.getWorkbenchWindow().getShell(), name);
        } finally {
            page.setPartState(ref, IWorkbenchPage.STATE_RESTORED);
        }
    }

    /** Expands the first item of a tree view (the Registers view's first group); UI thread. */
    static void expandFirst(org.eclipse.debug.ui.IDebugView view) {
        if (view.getViewer() instanceof org.eclipse.jface.viewers.TreeViewer tv && tv.getTree().getItemCount() > 0) {
            tv.expandToLevel(tv.getTree().getItem(0).getData(), 1);
        }
    }
}
