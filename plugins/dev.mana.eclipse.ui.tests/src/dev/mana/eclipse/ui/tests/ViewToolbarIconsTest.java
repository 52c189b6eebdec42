package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.eclipse.jface.action.ActionContributionItem;
import org.eclipse.jface.action.IContributionItem;
import org.eclipse.jface.action.IToolBarManager;
import org.eclipse.jface.action.ToolBarManager;
import org.eclipse.swt.graphics.ImageData;
import org.eclipse.swt.widgets.ToolBar;
import org.eclipse.swt.widgets.ToolItem;
import org.eclipse.ui.IViewPart;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.Test;

import dev.mana.eclipse.internal.ui.images.CheckpointDirectoryView;
import dev.mana.eclipse.internal.ui.views.ManaJobView;

/**
 * The MANA views' toolbars are icons, not words: every action of the Checkpoint Directory view (Refresh,
 * Open, Verify All, Compare, Restart from Here...) and of the MANA Job view (Checkpoint Directory, beside the
 * checkpoint and restart commands plugin.xml puts there) shows an icon and no text, says what it does in its
 * tooltip, and no two of a view's icons are the same picture.
 */
class ViewToolbarIconsTest {

    @Test
    void checkpointDirectoryViewToolbarIsIcons() throws Exception {
        assertIcons(CheckpointDirectoryView.ID, 5);
    }

    @Test
    void jobViewToolbarIsIcons() throws Exception {
        assertIcons(ManaJobView.ID, 1);
    }

    private static void assertIcons(String viewId, int actions) throws Exception {
        IViewPart view = Ui.sync(() -> PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage()
            .showView(viewId, null, IWorkbenchPage.VIEW_ACTIVATE));
        try {
            IToolBarManager tbm = view.getViewSite().getActionBars().getToolBarManager();
            List<ActionContributionItem> items = new ArrayList<>();
            for (IContributionItem i : tbm.getItems()) {
                if (i instanceof ActionContributionItem a) {
                    items.add(a);
                }
            }
            assertEquals(actions, items.size(), viewId + "'s toolbar actions");
            for (ActionContributionItem a : items) {
                assertNotNull(a.getAction().getImageDescriptor(), a.getAction().getText() + " has an icon");
                String tip = a.getAction().getToolTipText();
                assertTrue(tip != null && !tip.isBlank(), a.getAction().getText() + " has a tooltip");
            }
            // as drawn: the view's toolbar, rendered once the view shows (waited for, bounded)
            assertTrue(tbm instanceof ToolBarManager, tbm.getClass().getName());
            ToolBarManager m = (ToolBarManager) tbm;
            Ui.waitFor(viewId + "'s toolbar drawn with " + actions + " items", 10_000, () -> {
                ToolBar bar = m.getControl();
                return bar != null && !bar.isDisposed() && bar.isVisible() && bar.getItemCount() >= actions;
            });
            Ui.sync(() -> {
                List<ImageData> seen = new ArrayList<>();
                for (ToolItem t : m.getControl().getItems()) {
                    if ((t.getStyle() & org.eclipse.swt.SWT.SEPARATOR) != 0) {
                        continue;
                    }
                    String what = t.getToolTipText();
                    assertNotNull(t.getImage(), what + ": an icon");
                    assertEquals("", t.getText(), what + ": no text beside the icon");
                    assertTrue(what != null && !what.isBlank(), "a tooltip");
                    ImageData d = t.getImage().getImageData();
                    assertEquals(16, d.width, what + ": 16x16 at 100 %");
                    for (ImageData o : seen) {
                        assertFalse(Arrays.equals(o.data, d.data), what + ": an icon of its own");
                    }
                    seen.add(d);
                }
                assertTrue(seen.size() >= actions, seen.size() + " icons"); // with commands the plug-in adds (job view)
            });
        } finally {
            Ui.sync(() -> view.getSite().getPage().hideView(view));
        }
    }
}
