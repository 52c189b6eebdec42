package dev.mana.eclipse.internal.ui.images;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.ProgressBar;
import org.eclipse.swt.widgets.Text;

import dev.mana.eclipse.core.ManaFormat;
import dev.mana.inspector.MemoryRegion;
import dev.mana.inspector.Problem;

/**
 * Verify: the inspector's checks (checksums, truncation, consistency: one pass over every byte of the file)
 * in a background Job, with its progress here and in the Progress view, and Cancel; then the result per
 * region and every other problem and note.
 */
final class VerifyPage extends ImagePage {
    /** Job family of every verify (the editor's and the directory view's). */
    static final Object FAMILY = new Object();
    private Button start;
    private Button cancel;
    private ProgressBar bar;
    private Label status;
    private TableViewer viewer;
    private Text others;
    private volatile Job job;
    private Verification result;
    private final AtomicLong progressEvents = new AtomicLong();
    private final AtomicLong lastProgress = new AtomicLong();
    /** Also told every progress report, on the Job's thread (tests cancel from it at a known point). */
    private volatile java.util.function.LongConsumer progressListener;

    VerifyPage(ImageEditor editor) {
        super(editor);
    }

    @Override
    String title() {
        return Messages.VerifyPage_title;
    }

    @Override
    void createContents(Composite parent) {
        Composite bar0 = new Composite(parent, SWT.NONE);
        bar0.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        GridLayout gl = new GridLayout(4, false);
        gl.marginWidth = 0;
        bar0.setLayout(gl);
        start = new Button(bar0, SWT.PUSH);
        start.setText(Messages.VerifyPage_verify);
        start.addListener(SWT.Selection, e -> start());
        cancel = new Button(bar0, SWT.PUSH);
        cancel.setText(Messages.VerifyPage_cancel);
        cancel.setEnabled(false);
        cancel.addListener(SWT.Selection, e -> cancel());
        bar = new ProgressBar(bar0, SWT.HORIZONTAL | SWT.SMOOTH);
        bar.setMaximum(1000);
        GridData bd = new GridData(SWT.LEFT, SWT.CENTER, false, false);
        bd.widthHint = 260;
        bar.setLayoutData(bd);
        status = new Label(bar0, SWT.NONE);
        status.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        status.setText(Messages.VerifyPage_intro);
        viewer = table(parent, SWT.SINGLE);
        viewer.setContentProvider(ArrayContentProvider.getInstance());
        column(viewer, Messages.ImagePage_columnIndex, 45, MemoryRegion.class, r -> Integer.toString(r.index()));
        column(viewer, Messages.VerifyPage_columnRange, 260, MemoryRegion.class, r -> hex(r.start()) + "-" + hex(r.end()));
        column(viewer, Messages.VerifyPage_columnName, 260, MemoryRegion.class, ImagePage::name);
        column(viewer, Messages.VerifyPage_columnStored, 80, MemoryRegion.class, r -> ManaFormat.bytes(r.storedBytes()));
        column(viewer, Messages.VerifyPage_columnResult, 420, MemoryRegion.class, r -> result == null ? "" : result.regionResult(r));
        others = new Text(parent, SWT.BORDER | SWT.READ_ONLY | SWT.MULTI | SWT.V_SCROLL | SWT.WRAP);
        GridData od = new GridData(SWT.FILL, SWT.FILL, true, false);
        od.heightHint = 90;
        others.setLayoutData(od);
    }

    @Override
    void fill() {
        // nothing is read until Verify is pressed
    }

    void start() {
        if (job != null || editor.image() == null) {
            return;
        }
        result = null;
        progressEvents.set(0);
        lastProgress.set(0);
        long size = Math.max(1, editor.image().fileSize());
        start.setEnabled(false);
        cancel.setEnabled(true);
        bar.setSelection(0);
        status.setText(Messages.VerifyPage_verifying);
        var display = root.getDisplay();
        job = new Job(NLS.bind(Messages.VerifyPage_job, editor.path().getFileName())) {
            @Override
            protected IStatus run(IProgressMonitor monitor) {
                Verification v = Verification.run(editor.path(), monitor, done -> {
                    progressEvents.incrementAndGet();
                    lastProgress.set(done);
                    java.util.function.LongConsumer l = progressListener;
                    if (l != null) {
                        l.accept(done);
                    }
                    display.asyncExec(() -> {
                        if (!bar.isDisposed()) {
                            bar.setSelection((int) (done * 1000 / size));
                            status.setText(NLS.bind(Messages.VerifyPage_progress, ManaFormat.bytes(done),
                                ManaFormat.bytes(size)));
                        }
                    });
                });
                display.asyncExec(() -> finished(v));
                return v.canceled() ? Status.CANCEL_STATUS : Status.OK_STATUS;
            }

            @Override
            public boolean belongsTo(Object family) {
                return family == FAMILY;
            }
        };
        job.setUser(false);
        job.schedule();
    }

    /** Cancel (any thread: the Job stops at its next read). */
    void cancel() {
        Job j = job;
        if (j != null && j.cancel()) {
            // it had not started: it never will, so it ends here
            root.getDisplay().asyncExec(() -> finished(new Verification(null, List.of(), "", true)));
        }
    }

    void setProgressListener(java.util.function.LongConsumer l) {
        progressListener = l;
    }

    private void finished(Verification v) {
        if (root.isDisposed()) {
            return;
        }
        job = null;
        result = v;
        start.setEnabled(true);
        cancel.setEnabled(false);
        if (v.canceled()) {
            status.setText(Messages.VerifyPage_canceled);
            return;
        }
        bar.setSelection(v.report() == null ? 0 : 1000);
        status.setText(v.report() == null ? NLS.bind(Messages.VerifyPage_cannotVerify, v.failure())
            : NLS.bind(Messages.VerifyPage_done, new Object[] {v.verdict(), ManaFormat.bytes(v.report().bytesRead()),
                v.report().regionsChecked(), v.report().sectionsChecked()}));
        status.getParent().layout();
        viewer.setInput(v.regions());
        List<String> lines = new ArrayList<>();
        if (v.report() != null) {
            for (Problem p : v.report().problems()) {
                if (p.region() < 0) {
                    lines.add(Verification.describe(p));
                }
            }
            for (String n : v.report().notes()) {
                lines.add(NLS.bind(Messages.VerifyPage_note, n));
            }
            if (!v.report().ok()) {
                editor.reportLine(NLS.bind(Messages.VerifyPage_banner, v.verdict(),
                    Verification.describe(v.report().problems().get(0))));
            }
        }
        others.setText(lines.isEmpty() ? Messages.VerifyPage_noOtherProblem : String.join("\n", lines));

    }

    Verification result() {
        return result;
    }

    boolean running() {
        return job != null;
    }

    long progressEvents() {
        return progressEvents.get();
    }

    String status() {
        return status.getText();
    }

    int progressSelection() {
        return bar.getSelection();
    }
}
