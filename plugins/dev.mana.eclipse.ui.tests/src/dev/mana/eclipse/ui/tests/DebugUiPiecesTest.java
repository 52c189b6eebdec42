package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.debug.ManaDebugModel;
import dev.mana.eclipse.debug.ManaWatchpoint;
import dev.mana.eclipse.debug.ui.AddWatchpointHandler;
import dev.mana.eclipse.debug.ui.InstructionSteppingHandler;
import dev.mana.eclipse.debug.ui.ManaRunToLineTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.IConfigurationElement;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.Platform;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.ui.actions.IRunToLineTarget;
import org.eclipse.jface.text.TextSelection;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.handlers.IHandlerService;
import org.eclipse.ui.ide.IDE;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The debugger's workbench pieces: Run to Line reaches text editors of C files, Instruction Stepping Mode
 * toggles the model, Add Watchpoint reads its kinds, the Source tab and the path mapping dialog are
 * contributed.
 */
class DebugUiPiecesTest {
    @TempDir
    Path tmp;

    /**
     * Debug Rank's host check: a running rank that registered from another host is refused, naming both hosts,
     * even where its pid is a live process here (this JVM's pid: the old check, "/proc/PID exists", let gdb attach
     * to whatever process had that number here); a rank of this host whose process is gone is refused too; a
     * rank of this host with its process here is not. The real job's rank (registered by the runtime with
     * gethostname) is accepted in DebugRankFromJobViewTest.
     */
    @Test
    void debugRankRefusesARankOfAnotherHost() throws Exception {
        String here = dev.mana.eclipse.debug.ui.DebugRankHandler.localHost();
        assertEquals(Files.readString(Path.of("/proc/sys/kernel/hostname")).trim(), here);
        int self = (int) ProcessHandle.current().pid();
        org.eclipse.debug.core.ILaunch launch = new org.eclipse.debug.core.Launch(null,
                org.eclipse.debug.core.ILaunchManager.DEBUG_MODE, null);
        String elsewhere = "elsewhere-" + here + "-node";
        dev.mana.coordinator.RankInfo remote = new dev.mana.coordinator.RankInfo("job", 3, elsewhere, self,
                dev.mana.coordinator.RankState.RUNNING, 0, "openmpi", 1, "", "");
        String why = dev.mana.eclipse.debug.ui.DebugRankHandler.refusal(remote, launch);
        assertEquals(org.eclipse.osgi.util.NLS.bind(dev.mana.eclipse.internal.debug.ui.Messages.DebugRank_notHere,
                new Object[] {3, self, elsewhere, here}), why);
        assertTrue(why.contains("runs on " + elsewhere + ", not on this machine (" + here + ")"), why);

        // this host, its process gone (a process of ours that ended: its pid is free)
        Process p = new ProcessBuilder("true").start();
        assertEquals(0, p.waitFor());
        int gone = (int) p.pid();
        dev.mana.coordinator.RankInfo ended = new dev.mana.coordinator.RankInfo("job", 2, here, gone,
                dev.mana.coordinator.RankState.RUNNING, 0, "openmpi", 1, "", "");
        assertFalse(Files.isDirectory(Path.of("/proc", Integer.toString(gone))), "pid " + gone + " is free");
        assertEquals(org.eclipse.osgi.util.NLS.bind(dev.mana.eclipse.internal.debug.ui.Messages.DebugRank_gone,
                new Object[] {2, gone, here}), dev.mana.eclipse.debug.ui.DebugRankHandler.refusal(ended, launch));

        // this host (also as a longer name of it), its process here: not refused
        for (String h : new String[] {here, here + ".cluster.example"}) {
            dev.mana.coordinator.RankInfo local = new dev.mana.coordinator.RankInfo("job", 1, h, self,
                    dev.mana.coordinator.RankState.RUNNING, 0, "openmpi", 1, "", "");
            assertNull(dev.mana.eclipse.debug.ui.DebugRankHandler.refusal(local, launch), h);
        }
    }

    @Test
    void runToLineTargetOfTextEditors() throws Exception {
        Files.writeString(tmp.resolve("app.c"), "int main(void)\n{\n    return 0;\n}\n");
        var ws = ResourcesPlugin.getWorkspace();
        IProject project = ws.getRoot().getProject("rtl-" + tmp.getFileName());
        var desc = ws.newProjectDescription(project.getName());
        desc.setLocation(IPath.fromOSString(tmp.toString()));
        project.create(desc, null);
        project.open(null);
        try {
            IFile file = project.getFile("app.c");
            Ui.sync(() -> {
                var page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
                IEditorPart editor = IDE.openEditor(page, file, "org.eclipse.ui.DefaultTextEditor");
                try {
                    // as the platform's Run to Line asks: through the adapter manager, loading our bundle if need be
                    Object t0 = Platform.getAdapterManager().loadAdapter(editor, IRunToLineTarget.class.getName());
                    IRunToLineTarget t = (IRunToLineTarget) t0;
                    assertInstanceOf(ManaRunToLineTarget.class, t, "the text editor's Run to Line target");
                    // no suspended rank: not offered
                    assertFalse(t.canRunToLine(editor, new TextSelection(0, 0), null));
                } finally {
                    page.closeEditor(editor, false);
                }
                return null;
            });
        } finally {
            project.delete(false, true, null);
        }
    }

    @Test
    void instructionSteppingModeTogglesTheModel() throws Exception {
        assertFalse(ManaDebugModel.isInstructionStepping());
        IHandlerService hs = PlatformUI.getWorkbench().getService(IHandlerService.class);
        try {
            Ui.sync(() -> hs.executeCommand(InstructionSteppingHandler.COMMAND, null));
            assertTrue(ManaDebugModel.isInstructionStepping());
        } finally {
            Ui.sync(() -> hs.executeCommand(InstructionSteppingHandler.COMMAND, null));
        }
        assertFalse(ManaDebugModel.isInstructionStepping());
    }

    @Test
    void addWatchpointKinds() throws Exception {
        assertNotNull(AddWatchpointHandler.check("  "));
        assertNotNull(AddWatchpointHandler.check("read:"));
        assertNull(AddWatchpointHandler.check("iteration"));
        ManaWatchpoint write = AddWatchpointHandler.add("iteration");
        ManaWatchpoint read = AddWatchpointHandler.add("read: grid[3]");
        ManaWatchpoint both = AddWatchpointHandler.add("access:x");
        try {
            assertEquals("iteration", write.expression());
            assertTrue(write.isModification() && !write.isAccess());
            assertEquals("grid[3]", read.expression());
            assertTrue(read.isAccess() && !read.isModification());
            assertTrue(both.isAccess() && both.isModification());
            assertEquals("-break-watch -a \"x\"", both.watch().command());
        } finally {
            DebugPlugin.getDefault().getBreakpointManager().removeBreakpoints(
                    new org.eclipse.debug.core.model.IBreakpoint[] {write, read, both}, true);
        }
    }

    @Test
    void sourceTabAndPathMappingContributed() {
        IConfigurationElement tab = Arrays.stream(Platform.getExtensionRegistry()
                .getConfigurationElementsFor("org.eclipse.debug.ui.launchConfigurationTabs"))
                .filter(e -> "dev.mana.eclipse.debug.ui.sourceTab".equals(e.getAttribute("id"))).findFirst().orElseThrow();
        assertEquals("org.eclipse.debug.ui.sourcelookup.SourceLookupTab", tab.getAttribute("class"));
        assertNotNull(DebugPlugin.getDefault().getLaunchManager()
                .getSourceContainerType("dev.mana.eclipse.debug.pathMapping"), "the path mapping container type");
        assertNotNull(DebugPlugin.getDefault().getLaunchManager()
                .getSourcePathComputer("dev.mana.eclipse.debug.sourcePathComputer"), "the default lookup path");
    }

    @Test
    void debugTabNamesTheManaSourceLocator() throws Exception {
        var wc = DebugPlugin.getDefault().getLaunchManager()
                .getLaunchConfigurationType(dev.mana.eclipse.core.ManaCore.LAUNCH_CONFIGURATION_TYPE)
                .newInstance(null, "source-tab");
        // the launch type (core bundle) names no locator: Run mode needs no debugger bundle
        assertNull(wc.getType().getSourceLocatorId());
        new dev.mana.eclipse.debug.ui.ManaDebugTab().setDefaults(wc);
        assertEquals("dev.mana.eclipse.debug.sourceLocator",
                wc.getAttribute(org.eclipse.debug.core.ILaunchConfiguration.ATTR_SOURCE_LOCATOR_ID, ""));
    }
}
