package dev.mana.eclipse.ui.tests;

import java.io.File;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.GC;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.graphics.ImageData;
import org.eclipse.swt.graphics.ImageLoader;
import org.eclipse.swt.graphics.Rectangle;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.PlatformUI;

/** Helpers for tests that run beside the workbench's UI thread. */
final class Ui {
    private Ui() {}

    /**
     * A message's text up to its first argument not given, bound with those given: what a longer text made
     * from it starts with, or contains ({@code head(Messages.X_summary, 2)} of "{0} of {1} ranks" is "2 of ").
     */
    static String head(String message, Object... args) {
        int cut = message.indexOf("{" + args.length + "}");
        return org.eclipse.osgi.util.NLS.bind(cut < 0 ? message : message.substring(0, cut), args);
    }

    /**
     * A bound message as a pattern: the given arguments as they are, a null one (or one not given) any text;
     * {@code matcher(text).matches()} for the whole text, {@code find()} for a part of it.
     */
    static java.util.regex.Pattern pattern(String message, Object... args) {
        StringBuilder re = new StringBuilder();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{(\\d+)\\}").matcher(message);
        int at = 0;
        while (m.find()) {
            re.append(java.util.regex.Pattern.quote(message.substring(at, m.start()).replace("''", "'")));
            int i = Integer.parseInt(m.group(1));
            re.append(i < args.length && args[i] != null ? java.util.regex.Pattern.quote(String.valueOf(args[i])) : ".*?");
            at = m.end();
        }
        re.append(java.util.regex.Pattern.quote(message.substring(at).replace("''", "'")));
        return java.util.regex.Pattern.compile(re.toString(), java.util.regex.Pattern.DOTALL);
    }

    static Display display() {
        return PlatformUI.getWorkbench().getDisplay();
    }

    static <T> T sync(Callable<T> c) {
        AtomicReference<T> r = new AtomicReference<>();
        AtomicReference<Throwable> t = new AtomicReference<>();
        display().syncExec(() -> {
            try {
                r.set(c.call());
            } catch (Throwable e) {
                t.set(e);
            }
        });
        if (t.get() != null) {
            throw new AssertionError(t.get().toString(), t.get());
        }
        return r.get();
    }

    static void sync(Runnable r) {
        sync(() -> {
            r.run();
            return null;
        });
    }

    /** Waits (off the UI thread) until cond holds, checking it on the UI thread. */
    static void waitFor(String what, long millis, BooleanSupplier cond) throws InterruptedException {
        waitFor(() -> what, millis, cond);
    }

    /** As above, the description (computed at the time out) says what was seen. */
    static void waitFor(java.util.function.Supplier<String> what, long millis, BooleanSupplier cond)
            throws InterruptedException {
        long end = System.currentTimeMillis() + millis;
        while (!sync(cond::getAsBoolean)) {
            if (System.currentTimeMillis() > end) {
                String desc = what.get();
                failureScreenshot(desc);
                throw new AssertionError("timed out after " + millis + " ms waiting for " + desc);
            }
            Thread.sleep(100);
        }
    }

    /** On a time out: a screenshot of every visible shell into target/failure-screenshots (for diagnosis). */
    static void failureScreenshot(String what) {
        String dir = System.getProperty("mana.failure.screenshots");
        if (dir == null) {
            return;
        }
        try {
            display().syncExec(() -> {
                int i = 0;
                for (Shell s : display().getShells()) {
                    if (s.isVisible()) {
                        screenshot(s, new File(dir, System.currentTimeMillis() + "-" + (i++) + "-"
                            + what.replaceAll("[^A-Za-z0-9]+", "_")).getPath(), true);
                        System.err.println("failure screenshot of '" + s.getText() + "' in " + dir);
                    }
                }
            });
        } catch (RuntimeException e) {
            // diagnosis only
        }
    }

    /**
     * Opens the Run dialog on {@code config} and saves a screenshot of tab {@code i} as {@code names[i]}
     * (a null name: that tab is skipped), then closes it. The dialog is modal: it is found and captured from
     * a timer on the UI thread once it shows (20 s at most), while this call sits in its event loop.
     */
    static void screenshotLaunchDialog(org.eclipse.debug.core.ILaunchConfiguration config, String... names) {
        sync(() -> {
            Shell window = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell();
            Runnable[] capture = new Runnable[1];
            int[] tries = {0};
            capture[0] = () -> {
                Shell dialog = null;
                for (Shell sh : display().getShells()) {
                    if (sh != window && sh.isVisible()
                        && sh.getData() instanceof org.eclipse.debug.ui.ILaunchConfigurationDialog) {
                        dialog = sh;
                    }
                }
                if (dialog == null) {
                    if (++tries[0] < 100) {
                        display().timerExec(200, capture[0]);
                    }
                    return;
                }
                dialog.setBounds(60, 40, 1100, 760);
                dialog.layout(true, true); // at the new size (the filter field's clear button sat mid-field)
                var d = (org.eclipse.debug.ui.ILaunchConfigurationDialog) dialog.getData();
                for (int i = 0; i < names.length; i++) {
                    if (names[i] != null) {
                        d.setActiveTab(i);
                        screenshot(dialog, names[i]);
                    }
                }
                dialog.close();
            };
            display().timerExec(1000, capture[0]);
            org.eclipse.debug.ui.DebugUITools.openLaunchConfigurationDialogOnGroup(window,
                new org.eclipse.jface.viewers.StructuredSelection(config),
                org.eclipse.debug.ui.IDebugUIConstants.ID_RUN_LAUNCH_GROUP);
        });
    }

    /** Saves a PNG of a shell (as shown on the screen) into the screenshots folder; call on the UI thread. */
    static File screenshot(Shell shell, String name) {
        String dir = System.getProperty("mana.screenshots");
        if (dir == null) {
            return null;
        }
        return screenshot(shell, new File(dir, name).getPath(), true);
    }

    /**
     * Where the shell is on the screen: from its origin to the end of its client area. Not
     * {@code getBounds()}: under Xvfb there is no window manager, so no frame, yet SWT takes a guessed frame
     * off the size it is given (some pixels across, about 30 down), and a picture of the bounds has a strip
     * of whatever lies right of and below the window (the workbench behind a dialog, the black root window
     * below the workbench). The window starts at its location (nothing is drawn above it); its client area
     * ends where the window does ({@code toDisplay} asks X where it is); a menu bar lies between the two
     * (the workbench's), and JFace draws a dialog's title inside its client area.
     */
    static Rectangle shownArea(Shell shell) {
        Rectangle at = shell.getBounds();
        Rectangle ca = shell.getClientArea();
        org.eclipse.swt.graphics.Point end = shell.toDisplay(ca.x + ca.width, ca.y + ca.height);
        return new Rectangle(at.x, at.y, Math.max(1, end.x - at.x), Math.max(1, end.y - at.y));
    }

    /** Saves a PNG of {@link #shownArea}, as the screen shows it, into {@code pathWithoutExtension}.png. */
    static File screenshot(Shell shell, String pathWithoutExtension, boolean unused) {
        Display d = shell.getDisplay();
        for (int i = 0; i < 20; i++) { // let pending paints finish
            while (d.readAndDispatch()) {
                // spin
            }
        }
        shell.update();
        Rectangle b = shownArea(shell).intersection(d.getBounds());
        Image img = new Image(d, b.width, b.height);
        GC gc = new GC(d);
        try {
            gc.copyArea(img, b.x, b.y);
            ImageLoader l = new ImageLoader();
            l.data = new ImageData[] {img.getImageData()};
            File f = new File(pathWithoutExtension + ".png");
            f.getParentFile().mkdirs();
            l.save(f.getPath(), SWT.IMAGE_PNG);
            return f;
        } finally {
            gc.dispose();
            img.dispose();
        }
    }
}
