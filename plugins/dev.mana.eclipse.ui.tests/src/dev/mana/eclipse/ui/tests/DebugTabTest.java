package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.debug.ManaDebugLaunchDelegate;
import dev.mana.eclipse.debug.ui.ManaDebugTab;
import java.util.Arrays;
import java.util.Set;
import org.eclipse.core.runtime.IConfigurationElement;
import org.eclipse.core.runtime.Platform;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Spinner;
import org.eclipse.swt.widgets.Text;
import org.junit.jupiter.api.Test;

/** The Debug tab of MANA MPI Job configurations: registration for Debug mode, round trip, validation. */
class DebugTabTest {

    @Test
    void contributedToTheManaTabGroupForTheDebugDelegate() {
        IConfigurationElement tab = Arrays.stream(Platform.getExtensionRegistry()
                .getConfigurationElementsFor("org.eclipse.debug.ui.launchConfigurationTabs"))
                .filter(e -> "dev.mana.eclipse.debug.ui.debugTab".equals(e.getAttribute("id"))).findFirst().orElseThrow();
        assertEquals("dev.mana.eclipse.ui.tabGroup", tab.getAttribute("group"));
        assertEquals("dev.mana.eclipse.debug.restartDebugDelegate",
                tab.getChildren("associatedDelegate")[0].getAttribute("delegate"));
        // and the launch type offers Debug mode through that delegate
        var type = DebugPlugin.getDefault().getLaunchManager().getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE);
        assertTrue(type.supportsMode(ILaunchManager.DEBUG_MODE));
        try {
            assertEquals("dev.mana.eclipse.debug.restartDebugDelegate",
                    type.getDelegates(Set.of(ILaunchManager.DEBUG_MODE))[0].getId());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void roundTripAndValidation() throws Exception {
        ILaunchConfigurationWorkingCopy wc = DebugPlugin.getDefault().getLaunchManager()
                .getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE).newInstance(null, "debug-tab");
        wc.setAttribute(ManaCore.ATTR_RANKS, 4);
        Ui.sync(() -> {
            Shell shell = new Shell();
            try {
                ManaDebugTab tab = new ManaDebugTab();
                tab.createControl(shell);
                tab.setDefaults(wc);
                tab.initializeFrom(wc);
                Spinner level = find(shell, Spinner.class);
                Text ranks = find(shell, Text.class);
                assertEquals(2, level.getSelection());
                assertEquals("0", ranks.getText());
                level.setSelection(3);
                ranks.setText("0, 3");
                tab.performApply(wc);
                assertEquals(3, wc.getAttribute(ManaDebugLaunchDelegate.ATTR_PAUSE_LEVEL, -1));
                assertEquals("0, 3", wc.getAttribute(ManaDebugLaunchDelegate.ATTR_DEBUG_RANKS, ""));
                assertTrue(tab.isValid(wc));
                assertNull(tab.getErrorMessage());
                ranks.setText("4");
                assertFalse(tab.isValid(wc));
                assertEquals("rank 4 to debug is not in the job (0-3)", tab.getErrorMessage());
                ranks.setText("zero");
                assertFalse(tab.isValid(wc));
                assertTrue(tab.getErrorMessage().contains("is not a list of ranks and ranges"), tab.getErrorMessage());
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                shell.dispose();
            }
        });
    }

    static <T> T find(org.eclipse.swt.widgets.Composite c, Class<T> type) {
        for (var child : c.getChildren()) {
            if (type.isInstance(child)) {
                return type.cast(child);
            }
            if (child instanceof org.eclipse.swt.widgets.Composite cc) {
                T t = find(cc, type);
                if (t != null) {
                    return t;
                }
            }
        }
        return null;
    }
}
