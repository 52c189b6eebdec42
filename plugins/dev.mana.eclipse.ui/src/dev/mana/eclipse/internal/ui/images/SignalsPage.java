package dev.mana.eclipse.internal.ui.images;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Composite;

import dev.mana.inspector.ImageException;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.SignalState;

/** Signals (our format): handlers that are not SIG_DFL, interval timers, pending signals. */
final class SignalsPage extends ImagePage {
    private TableViewer viewer;

    SignalsPage(ImageEditor editor) {
        super(editor);
    }

    @Override
    String title() {
        return "Signals";
    }

    @Override
    void createContents(Composite parent) {
        viewer = table(parent, SWT.SINGLE);
        viewer.setContentProvider(ArrayContentProvider.getInstance());
        column(viewer, "Signal / timer", 160, String[].class, r -> r[0]);
        column(viewer, "Handler / interval", 200, String[].class, r -> r[1]);
        column(viewer, "Flags / value", 200, String[].class, r -> r[2]);
        column(viewer, "Mask", 170, String[].class, r -> r[3]);
        column(viewer, "Restorer", 150, String[].class, r -> r[4]);
    }

    @Override
    void fill() throws ImageException {
        if (!(editor.image() instanceof ManaImage m)) {
            showMessage("DMTCP v4.0 images keep signal state in DMTCP's plugin state; this reader does not decode it.");
            return;
        }
        SignalState s = m.signals();
        List<String[]> rows = new ArrayList<>();
        for (SignalState.Action a : s.actions()) {
            rows.add(new String[] {SignalState.signalName(a.signo()) + " (" + a.signo() + ")",
                a.ignored() ? "SIG_IGN" : hex(a.handler()), hex(a.flags()), String.format("0x%016x", a.mask()),
                hex(a.restorer())});
        }
        for (SignalState.Timer t : s.timers()) {
            rows.add(new String[] {t.whichName(), "interval " + t.intervalNs() + " ns", "value " + t.valueNs() + " ns", "", ""});
        }
        viewer.setInput(rows);
        showMessage(s.actions().size() + " handler(s) other than SIG_DFL, " + s.timers().size()
            + " interval timer(s); pending signals " + String.format("0x%016x", s.pending()));
    }

    int rows() {
        return viewer.getTable().getItemCount();
    }
}
