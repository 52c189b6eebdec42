package dev.mana.eclipse.internal.debug.ui;

import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankStackFrame;
import dev.mana.eclipse.debug.RankThread;
import dev.mana.gdb.mi.Disassembly;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.core.runtime.IAdaptable;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.IDebugEventSetListener;
import org.eclipse.debug.core.model.IStackFrame;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.debug.ui.contexts.DebugContextEvent;
import org.eclipse.debug.ui.contexts.IDebugContextListener;
import org.eclipse.jface.action.Action;
import org.eclipse.jface.action.IAction;
import org.eclipse.jface.action.IToolBarManager;
import org.eclipse.jface.resource.JFaceResources;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Table;
import org.eclipse.swt.widgets.TableColumn;
import org.eclipse.swt.widgets.TableItem;
import org.eclipse.ui.part.ViewPart;

/**
 * The Disassembly view of MANA ranks (CDT's is not in our target platform): the machine instructions of the
 * function of the frame selected in the Debug view ({@code -data-disassemble}), the frame's pc marked and
 * shown, and two steps by instruction ({@code stepi}, {@code nexti}) in its toolbar. gdb is asked in a
 * background job, never on the UI thread; a newer selection or stop drops an older answer. Above the table a
 * line says what is shown, or why nothing is (no MANA rank selected, the rank runs, gdb's error).
 */
public final class DisassemblyView extends ViewPart implements IDebugContextListener, IDebugEventSetListener {
    public static final String ID = "dev.mana.eclipse.debug.ui.disassemblyView";
    /** The mark in the first column of the pc's row. */
    public static final String PC_MARK = "\u25B6";

    private Label status;
    private Table table;
    private IAction stepInto;
    private IAction stepOver;
    /** The frame shown; null when none. */
    private volatile RankStackFrame frame;
    /** The rank of the debug context (shown, running or being read); null when the context is no MANA rank. */
    private volatile RankDebugTarget rank;
    private volatile List<Disassembly.Instruction> shown = List.of();
    private volatile long shownPc;
    /** Each read gets a number; an answer that is not the newest one's is dropped. */
    private final AtomicInteger generation = new AtomicInteger();

    @Override
    public void createPartControl(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        GridLayout gl = new GridLayout(1, false);
        gl.marginWidth = 0;
        gl.marginHeight = 0;
        c.setLayout(gl);
        status = new Label(c, SWT.WRAP);
        status.setLayoutData(new GridData(SWT.FILL, SWT.TOP, true, false));
        table = new Table(c, SWT.FULL_SELECTION | SWT.SINGLE | SWT.V_SCROLL | SWT.H_SCROLL);
        table.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));
        table.setHeaderVisible(true);
        table.setFont(JFaceResources.getTextFont());
        column("", 24);
        column(Messages.Disassembly_columnAddress, 170);
        column(Messages.Disassembly_columnLocation, 200);
        column(Messages.Disassembly_columnBytes, 170);
        column(Messages.Disassembly_columnInstruction, 360);

        stepInto = new Action(Messages.Disassembly_stepInto, DebugUiImages.descriptor(DebugUiImages.STEP_INSTRUCTION_INTO)) {
            @Override
            public void run() {
                step(false);
            }
        };
        stepOver = new Action(Messages.Disassembly_stepOver, DebugUiImages.descriptor(DebugUiImages.STEP_INSTRUCTION_OVER)) {
            @Override
            public void run() {
                step(true);
            }
        };
        stepInto.setToolTipText(Messages.Disassembly_stepIntoTip);
        stepOver.setToolTipText(Messages.Disassembly_stepOverTip);
        IToolBarManager tb = getViewSite().getActionBars().getToolBarManager();
        tb.add(stepInto);
        tb.add(stepOver);

        DebugUITools.getDebugContextManager().getContextService(getSite().getWorkbenchWindow()).addDebugContextListener(this);
        DebugPlugin.getDefault().addDebugEventListener(this);
        show(DebugUITools.getDebugContext());
    }

    private void column(String name, int width) {
        TableColumn col = new TableColumn(table, SWT.LEFT);
        col.setText(name);
        col.setWidth(width);
    }

    @Override
    public void dispose() {
        DebugUITools.getDebugContextManager().getContextService(getSite().getWorkbenchWindow()).removeDebugContextListener(this);
        DebugPlugin.getDefault().removeDebugEventListener(this);
        super.dispose();
    }

    @Override
    public void setFocus() {
        table.setFocus();
    }

    @Override
    public void debugContextChanged(DebugContextEvent event) {
        if ((event.getFlags() & DebugContextEvent.ACTIVATED) != 0) {
            show(DebugUITools.getDebugContext());
        }
    }

    /** A stop, resume or end of the rank of the debug context: show it again. Any thread. */
    @Override
    public void handleDebugEvents(DebugEvent[] events) {
        RankDebugTarget r = rank;
        for (DebugEvent e : events) {
            if (r != null && e.getSource() instanceof org.eclipse.debug.core.model.IDebugElement d && d.getDebugTarget() == r
                    && (e.getKind() == DebugEvent.RESUME || e.getKind() == DebugEvent.SUSPEND
                            || e.getKind() == DebugEvent.TERMINATE)) {
                boolean stop = e.getKind() == DebugEvent.SUSPEND;
                Display.getDefault().asyncExec(() -> {
                    if (!table.isDisposed()) {
                        show(stop ? afterStop(DebugUITools.getDebugContext()) : DebugUITools.getDebugContext());
                    }
                });
                return;
            }
        }
    }

    /**
     * At a stop the selected top frame is the one before it (its pc is the old one) until the Debug view selects
     * the new one, if it is open at all: its thread stands for the new top frame.
     */
    private static IAdaptable afterStop(IAdaptable context) {
        return context instanceof RankStackFrame f && f.level() == 0 ? (RankThread) f.getThread() : context;
    }

    /**
     * Shows the instructions of {@code context}: a MANA frame, or the top frame of a MANA thread or rank. UI
     * thread; gdb is read by a job.
     */
    private void show(IAdaptable context) {
        int gen = generation.incrementAndGet();
        Object o = context == null ? null : context.getAdapter(org.eclipse.debug.core.model.IDebugElement.class);
        if (o == null) {
            o = context;
        }
        if (!(o instanceof RankStackFrame || o instanceof RankThread || o instanceof RankDebugTarget)) {
            rank = null;
            empty(Messages.Disassembly_noRank);
            return;
        }
        RankDebugTarget target = (RankDebugTarget) ((org.eclipse.debug.core.model.IDebugElement) o).getDebugTarget();
        rank = target;
        if (target.isTerminated()) {
            empty(NLS.bind(Messages.Disassembly_terminated, target.getName()));
            return;
        }
        if (!target.isSuspended()) {
            empty(NLS.bind(Messages.Disassembly_running, target.getName()));
            return;
        }
        Object selected = o;
        status.setText(NLS.bind(Messages.Disassembly_reading, target.getName()));
        Job job = Job.create(NLS.bind(Messages.Disassembly_job, target.getName()), (IProgressMonitor m) -> {
            try {
                RankStackFrame f = frameOf(selected);
                if (f == null) {
                    answer(gen, null, List.of(), NLS.bind(Messages.Disassembly_noFrame, target.getName()));
                    return Status.OK_STATUS;
                }
                List<Disassembly.Instruction> code = target.disassemble(f.pc());
                answer(gen, f, code, null);
            } catch (DebugException e) {
                answer(gen, null, List.of(), NLS.bind(Messages.Disassembly_error, target.getName(), e.getStatus().getMessage()));
            }
            return Status.OK_STATUS;
        });
        job.setSystem(true);
        job.schedule();
    }

    /** The frame to show for a selected frame, thread (its top frame) or rank (its first thread's top frame). */
    private static RankStackFrame frameOf(Object selected) throws DebugException {
        if (selected instanceof RankStackFrame f) {
            return f;
        }
        org.eclipse.debug.core.model.IThread t = selected instanceof RankThread th ? th : null;
        if (t == null && selected instanceof RankDebugTarget target) {
            org.eclipse.debug.core.model.IThread[] all = target.getThreads();
            t = all.length == 0 ? null : all[0];
        }
        IStackFrame top = t == null ? null : t.getTopStackFrame();
        return top instanceof RankStackFrame f ? f : null;
    }

    private void answer(int gen, RankStackFrame f, List<Disassembly.Instruction> code, String message) {
        Display.getDefault().asyncExec(() -> {
            if (table.isDisposed() || gen != generation.get()) {
                return; // a newer selection or stop is being read
            }
            if (f == null) {
                empty(message);
                return;
            }
            fill(f, code);
        });
    }

    private void empty(String message) {
        frame = null;
        shown = List.of();
        table.removeAll();
        status.setText(message);
        status.getParent().layout();
        updateActions();
    }

    private void fill(RankStackFrame f, List<Disassembly.Instruction> code) {
        frame = f;
        shown = code;
        long pc = f.pc();
        shownPc = pc;
        table.setRedraw(false);
        try {
            table.removeAll();
            int at = Disassembly.indexOf(code, pc);
            for (int i = 0; i < code.size(); i++) {
                Disassembly.Instruction in = code.get(i);
                TableItem item = new TableItem(table, SWT.NONE);
                boolean isPc = in.address() == pc;
                item.setText(new String[] {isPc ? PC_MARK : "", String.format("0x%016x", in.address()), in.location(),
                        in.opcodes(), in.text()});
                if (isPc) {
                    item.setFont(JFaceResources.getFontRegistry().getBold(JFaceResources.TEXT_FONT));
                }
            }
            if (!code.isEmpty()) {
                table.setSelection(at);
                table.showSelection();
            }
        } finally {
            table.setRedraw(true);
        }
        String where = f.function() == null ? String.format("0x%x", pc) : f.function();
        String at = String.format("0x%x", pc);
        String name = ((RankDebugTarget) f.getDebugTarget()).getName();
        if (f.level() == 0) {
            status.setText(NLS.bind(Messages.Disassembly_showing, new Object[] {name, where, at}));
        } else {
            status.setText(NLS.bind(Messages.Disassembly_showingCaller, new Object[] {name, where, at, f.level()}));
        }
        status.getParent().layout();
        updateActions();
    }

    private void updateActions() {
        boolean can = frame != null && frame.isSuspended();
        stepInto.setEnabled(can);
        stepOver.setEnabled(can);
    }

    /** One instruction of the shown frame's thread; the stop comes back as a new debug context. */
    private void step(boolean over) {
        RankStackFrame f = frame;
        if (f == null) {
            return;
        }
        stepInto.setEnabled(false);
        stepOver.setEnabled(false);
        Job job = Job.create(over ? Messages.Disassembly_stepOver : Messages.Disassembly_stepInto, (IProgressMonitor m) -> {
            try {
                ((RankThread) f.getThread()).stepInstruction(over);
                return Status.OK_STATUS;
            } catch (DebugException e) {
                return e.getStatus();
            }
        });
        job.setSystem(true);
        job.schedule();
    }

    // --- what the tests read ---

    /** The instructions shown (empty with a message instead). */
    public List<Disassembly.Instruction> instructions() {
        return shown;
    }

    /** The pc of the frame shown (valid while {@link #instructions()} is not empty). */
    public long pc() {
        return shownPc;
    }

    /** The line above the table. UI thread. */
    public String message() {
        return status.getText();
    }

    /** The table (rows as shown). UI thread. */
    public Table table() {
        return table;
    }

    public IAction stepIntoAction() {
        return stepInto;
    }

    public IAction stepOverAction() {
        return stepOver;
    }
}
