package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.RuntimeCheck;
import dev.mana.eclipse.internal.ui.actions.RestartDialog;
import dev.mana.eclipse.internal.ui.launch.ManaLaunchShortcut;
import dev.mana.eclipse.internal.ui.preferences.ManaPreferencePage;

import dev.mana.inspector.testkit.ManaImageWriter;

/** The shortcut, the restart dialog on broken directories, and the preference page. */
class ManaUiPiecesTest {

    @TempDir
    Path tmp;

    @Test
    void shortcutMakesOneConfigurationPerProgram() throws CoreException {
        File program = new File("/bin/true");
        ILaunchConfiguration c = ManaLaunchShortcut.findOrCreate(program);
        try {
            assertEquals(ManaCore.LAUNCH_CONFIGURATION_TYPE, c.getType().getIdentifier());
            assertEquals("/bin/true", c.getAttribute(ManaCore.ATTR_PROGRAM, ""));
            assertEquals("/bin", c.getAttribute(ManaCore.ATTR_WORKING_DIRECTORY, ""));
            assertEquals(2, c.getAttribute(ManaCore.ATTR_RANKS, 0));
            assertEquals("all", c.getAttribute(ManaCore.ATTR_DEBUG_RANKS, ""), "Debug As stops every rank at main");
            assertEquals(c, ManaLaunchShortcut.findOrCreate(program), "the second time reuses it");
        } finally {
            c.delete();
        }
    }

    @Test
    void shortcutIsOfferedForRunAndDebug() {
        boolean found = false;
        for (var e : org.eclipse.core.runtime.Platform.getExtensionRegistry()
                .getConfigurationElementsFor("org.eclipse.debug.ui.launchShortcuts")) {
            if ("dev.mana.eclipse.ui.shortcut".equals(e.getAttribute("id"))) {
                found = true;
                java.util.List<String> modes = java.util.Arrays.stream(e.getAttribute("modes").split(","))
                        .map(String::trim).toList();
                assertTrue(modes.containsAll(java.util.List.of("run", "debug")), modes.toString());
            }
        }
        assertTrue(found, "the MANA launch shortcut is registered");
    }

    @Test
    void restartDialogRefusesBrokenDirectories() throws Exception {
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
            .newInstance(null, "restart-broken");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, "/bin/true");
        wc.setAttribute(ManaCore.ATTR_RANKS, 2);
        ILaunchConfiguration c = wc.doSave();
        Path partial = tmp.resolve("partial");
        // real images: validation reads their headers
        Files.createDirectories(partial.resolve("ckpt_rank_1"));
        ManaImageWriter.write(partial.resolve("ckpt_rank_0/ckpt_a_gen1.mana"), "a", 0, 2, 1, new byte[8]);
        Files.write(partial.resolve("ckpt_rank_1/ckpt_a_gen1.mana.tmp"), new byte[8]);
        Path good = tmp.resolve("good");
        ManaImageWriter.write(good.resolve("ckpt_rank_0/ckpt_a_gen1.mana"), "a", 0, 2, 1, new byte[8]);
        ManaImageWriter.write(good.resolve("ckpt_rank_1/ckpt_a_gen1.mana"), "a", 1, 2, 1, new byte[8]);
        try {
            Ui.sync(() -> {
                Shell shell = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell();
                RestartDialog d = new RestartDialog(shell, null);
                d.setBlockOnOpen(false);
                d.open();
                try {
                    d.directoryText().setText(tmp.resolve("nothing-here").toString());
                    assertFalse(d.awaitValidation(10_000).isValid());
                    assertFalse(d.pressRestart(), "Restart stays disabled");
                    assertNotNull(d.getErrorMessage());
                    d.directoryText().setText(partial.toString());
                    assertFalse(d.awaitValidation(10_000).isValid());
                    assertTrue(d.getErrorMessage().contains("partial write"), d.getErrorMessage());
                    d.directoryText().setText(good.toString());
                    assertTrue(d.awaitValidation(10_000).isValid(), String.valueOf(d.getErrorMessage()));
                    assertNull(d.getErrorMessage());
                } finally {
                    d.close();
                }
            });
        } finally {
            c.delete();
        }
    }

    @Test
    void preferencePageChecksAndStoresTheRuntime() throws Exception {
        // a folder with the launchers alone (not a whole runtime), and the repository's runtime
        File partial = tmp.resolve("partial-runtime").toFile();
        File bin = new File(partial, "bin");
        assertTrue(bin.mkdirs());
        for (String name : new String[] {"mana_launch", "mana_restart"}) {
            java.nio.file.Path f = bin.toPath().resolve(name);
            java.nio.file.Files.writeString(f, "#!/bin/sh\nexit 0\n");
            assertTrue(f.toFile().setExecutable(true));
        }
        File launchersOnly = partial.getCanonicalFile();
        Ui.sync(() -> {
            Shell shell = new Shell(Ui.display());
            ManaPreferencePage page = new ManaPreferencePage();
            try {
                page.init(PlatformUI.getWorkbench());
                page.createControl(shell);
                page.setRuntimeLocationForTest(launchersOnly.getPath());
                page.runCheck(); // in the background: mpirun --version is not run on the UI thread
                RuntimeCheck r = page.awaitCheck(30_000);
                assertNotNull(r, "the check ended and was shown");
                assertNotNull(page.lastDebuggerCheck(), "gdb and ptrace_scope were checked too");
                assertEquals(r.report() + page.lastDebuggerCheck().report(), page.reportText());
                assertTrue(page.reportText().contains("Debugger: "), page.reportText());
                assertTrue(r.isOk(), r.report());
                assertTrue(r.report().contains("MANA runtime: " + launchersOnly.getPath()), r.report());
                assertTrue(r.report().contains("has no bin/lower-half"), "says what is missing: " + r.report());
                page.setRuntimeLocationForTest(tmp.toString());
                assertFalse(page.isValid(), "a folder without bin/mana_launch is refused");
                page.setRuntimeLocationForTest(launchersOnly.getPath());
                page.setGdbForTest("/usr/bin/gdb");
                assertTrue(page.performOk());
                assertEquals("/usr/bin/gdb",
                    InstanceScope.INSTANCE.getNode(ManaCore.PLUGIN_ID).get(ManaCore.PREF_GDB_PATH, ""));
                assertEquals(launchersOnly.getPath(),
                    InstanceScope.INSTANCE.getNode(ManaCore.PLUGIN_ID).get(ManaCore.PREF_RUNTIME_LOCATION, ""));
            } finally {
                InstanceScope.INSTANCE.getNode(ManaCore.PLUGIN_ID).remove(ManaCore.PREF_RUNTIME_LOCATION);
                InstanceScope.INSTANCE.getNode(ManaCore.PLUGIN_ID).remove(ManaCore.PREF_GDB_PATH);
                page.dispose();
                shell.dispose();
            }
        });
    }
}
