package dev.mana.eclipse.internal.ui.preferences;

import java.io.File;

import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jface.preference.PreferencePage;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.DirectoryDialog;
import org.eclipse.swt.widgets.Group;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Spinner;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPreferencePage;
import org.eclipse.ui.PlatformUI;
import org.osgi.service.prefs.BackingStoreException;

import dev.mana.eclipse.core.DebuggerCheck;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.MpiLauncher;
import dev.mana.eclipse.core.RuntimeCheck;
import dev.mana.eclipse.internal.ui.IManaHelpContexts;
import dev.mana.eclipse.internal.ui.Messages;

/**
 * Preferences &gt; MANA: which runtime to use (the bundled one, or another install with bin/ and lib/),
 * a check that says what is missing, and how often the MANA Job view refreshes.
 */
public final class ManaPreferencePage extends PreferencePage implements IWorkbenchPreferencePage {
    Button bundled;
    Button other;
    Text location;
    Button browse;
    Combo mpi;
    Text report;
    Spinner poll;
    Text gdb;

    @Override
    public void init(IWorkbench workbench) {
        setDescription(Messages.Preferences_description);
    }

    @Override
    protected Control createContents(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        c.setLayout(new GridLayout(1, false));
        PlatformUI.getWorkbench().getHelpSystem().setHelp(c, IManaHelpContexts.PREFERENCE_PAGE);

        Group g = new Group(c, SWT.NONE);
        g.setText(Messages.Preferences_runtime);
        g.setLayout(new GridLayout(3, false));
        g.setLayoutData(new GridData(SWT.FILL, SWT.TOP, true, false));
        bundled = new Button(g, SWT.RADIO);
        File b = ManaRuntime.bundled();
        bundled.setText(b == null ? Messages.Preferences_bundledMissing : NLS.bind(Messages.Preferences_bundled, b));
        bundled.setLayoutData(span(3));
        other = new Button(g, SWT.RADIO);
        other.setText(Messages.Preferences_other);
        location = new Text(g, SWT.BORDER);
        location.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        location.setMessage(Messages.Preferences_locationHint);
        browse = new Button(g, SWT.PUSH);
        browse.setText(Messages.Preferences_browse);
        browse.addListener(SWT.Selection, e -> {
            DirectoryDialog d = new DirectoryDialog(getShell());
            d.setFilterPath(location.getText());
            String p = d.open();
            if (p != null) {
                location.setText(p);
            }
        });

        Group dg = new Group(c, SWT.NONE);
        dg.setText(Messages.Preferences_debugger);
        dg.setLayout(new GridLayout(3, false));
        dg.setLayoutData(new GridData(SWT.FILL, SWT.TOP, true, false));
        new Label(dg, SWT.NONE).setText(Messages.Preferences_gdb);
        gdb = new Text(dg, SWT.BORDER);
        gdb.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        gdb.setMessage(Messages.Preferences_gdbHint);
        Button gdbBrowse = new Button(dg, SWT.PUSH);
        gdbBrowse.setText(Messages.Preferences_browse);
        gdbBrowse.addListener(SWT.Selection, e -> {
            org.eclipse.swt.widgets.FileDialog d = new org.eclipse.swt.widgets.FileDialog(getShell(), SWT.OPEN);
            String p0 = d.open();
            if (p0 != null) {
                gdb.setText(p0);
            }
        });

        Group k = new Group(c, SWT.NONE);
        k.setText(Messages.Preferences_checkGroup);
        k.setLayout(new GridLayout(3, false));
        k.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));
        new Label(k, SWT.NONE).setText(Messages.Preferences_checkWith);
        mpi = new Combo(k, SWT.READ_ONLY);
        for (MpiImplementation m : MpiImplementation.values()) {
            mpi.add(m.label());
        }
        mpi.select(0);
        Button check = new Button(k, SWT.PUSH);
        check.setText(Messages.Preferences_checkButton);
        check.addListener(SWT.Selection, e -> runCheck());
        report = new Text(k, SWT.MULTI | SWT.READ_ONLY | SWT.WRAP | SWT.BORDER | SWT.V_SCROLL);
        GridData rg = new GridData(SWT.FILL, SWT.FILL, true, true);
        rg.horizontalSpan = 3;
        rg.heightHint = 110;
        rg.widthHint = 420;
        report.setLayoutData(rg);

        Composite p = new Composite(c, SWT.NONE);
        p.setLayout(new GridLayout(3, false));
        new Label(p, SWT.NONE).setText(Messages.Preferences_refresh);
        poll = new Spinner(p, SWT.BORDER);
        poll.setMinimum(100);
        poll.setMaximum(60000);
        poll.setIncrement(100);
        new Label(p, SWT.NONE).setText(Messages.Preferences_refreshUnit);

        String loc = ManaRuntime.preferences().get(ManaCore.PREF_RUNTIME_LOCATION, "");
        other.setSelection(!loc.isBlank());
        bundled.setSelection(loc.isBlank());
        location.setText(loc);
        gdb.setText(ManaRuntime.preferences().get(ManaCore.PREF_GDB_PATH, ""));
        poll.setSelection((int) ManaRuntime.preferences().getLong(ManaCore.PREF_POLL_MILLIS, 500));
        bundled.addListener(SWT.Selection, e -> update());
        other.addListener(SWT.Selection, e -> update());
        location.addModifyListener(e -> update());
        update();
        runCheck();
        return c;
    }

    private static GridData span(int n) {
        GridData gd = new GridData();
        gd.horizontalSpan = n;
        return gd;
    }

    private File chosen() {
        return other.getSelection() ? new File(location.getText().trim()) : ManaRuntime.bundled();
    }

    private void update() {
        location.setEnabled(other.getSelection());
        browse.setEnabled(other.getSelection());
        if (other.getSelection() && !location.getText().isBlank()
            && !new File(location.getText().trim(), "bin/mana_launch").isFile()) {
            setErrorMessage(NLS.bind(Messages.Preferences_noLauncher, location.getText().trim()));
            setValid(false);
        } else {
            setErrorMessage(null);
            setValid(true);
        }
    }

    /** Chooses "another installation" at this folder (tests, and callers that know the runtime). */
    public void setRuntimeLocationForTest(String folder) {
        other.setSelection(true);
        bundled.setSelection(false);
        location.setText(folder);
        update();
    }

    /** Sets the gdb field (tests). */
    public void setGdbForTest(String path) {
        gdb.setText(path);
    }

    /** The newest check; an older one still running is dropped when it ends. */
    private org.eclipse.core.runtime.jobs.Job checkJob;
    private RuntimeCheck lastCheck;
    private DebuggerCheck lastDebuggerCheck;

    /** The debugger part of the last check shown (tests). */
    public DebuggerCheck lastDebuggerCheck() {
        return lastDebuggerCheck;
    }

    /**
     * Checks the chosen runtime and MPI in a background job, and shows what is missing when it ends. The
     * check runs {@code mpirun --version} and looks at the runtime's folders (perhaps on a slow or hung
     * file system): never on the UI thread.
     */
    public void runCheck() {
        File runtime = chosen();
        MpiImplementation m = MpiImplementation.values()[mpi.getSelectionIndex()];
        String gdbSetting = gdb.getText().isBlank() ? "gdb" : gdb.getText().trim();
        lastCheck = null;
        report.setText(NLS.bind(Messages.Preferences_checking, runtime));
        org.eclipse.swt.widgets.Display display = report.getDisplay();
        org.eclipse.core.runtime.jobs.Job[] self = new org.eclipse.core.runtime.jobs.Job[1];
        org.eclipse.core.runtime.jobs.Job job = org.eclipse.core.runtime.jobs.Job.create(
            NLS.bind(Messages.Preferences_checkJob, runtime), monitor -> {
                RuntimeCheck r = ManaRuntime.check(runtime, m, MpiLauncher.MPIRUN, null);
                // gdb and the kernel's ptrace restriction (Yama): what Debug mode needs
                DebuggerCheck dc = DebuggerCheck.check(gdbSetting, System.getenv("PATH"), DebuggerCheck.PTRACE_SCOPE,
                    ManaRuntime.runningAsRoot());
                display.asyncExec(() -> {
                    if (checkJob == self[0] && !report.isDisposed()) {
                        lastCheck = r;
                        lastDebuggerCheck = dc;
                        report.setText(r.report() + dc.report());
                    }
                });
            });
        job.setSystem(true);
        self[0] = job;
        checkJob = job;
        job.schedule();
    }

    /**
     * Runs the event loop (call on the UI thread) until the last {@link #runCheck()} has been shown, at most
     * {@code millis}; returns its result, or null at the time out (tests).
     */
    public RuntimeCheck awaitCheck(long millis) {
        org.eclipse.swt.widgets.Display d = report.getDisplay();
        long end = System.currentTimeMillis() + millis;
        while (lastCheck == null && System.currentTimeMillis() < end) {
            if (!d.readAndDispatch()) {
                d.timerExec(50, () -> { });
                d.sleep();
            }
        }
        return lastCheck;
    }

    /** The text of the check's report as shown (tests). */
    public String reportText() {
        return report.getText();
    }

    @Override
    protected void performDefaults() {
        bundled.setSelection(true);
        other.setSelection(false);
        location.setText("");
        poll.setSelection(500);
        gdb.setText("");
        update();
        super.performDefaults();
    }

    @Override
    public boolean performOk() {
        var prefs = InstanceScope.INSTANCE.getNode(ManaCore.PLUGIN_ID);
        if (other.getSelection() && !location.getText().isBlank()) {
            prefs.put(ManaCore.PREF_RUNTIME_LOCATION, location.getText().trim());
        } else {
            prefs.remove(ManaCore.PREF_RUNTIME_LOCATION);
        }
        prefs.putLong(ManaCore.PREF_POLL_MILLIS, poll.getSelection());
        if (gdb.getText().isBlank()) {
            prefs.remove(ManaCore.PREF_GDB_PATH);
        } else {
            prefs.put(ManaCore.PREF_GDB_PATH, gdb.getText().trim());
        }
        try {
            prefs.flush();
        } catch (BackingStoreException e) {
            setErrorMessage(e.getMessage());
            return false;
        }
        return true;
    }
}
