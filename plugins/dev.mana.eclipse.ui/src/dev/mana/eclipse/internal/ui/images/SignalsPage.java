package dev.mana.eclipse.internal.ui.images;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.osgi.util.NLS;
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
        return Messages.SignalsPage_title;
    }

    @Override
    void createContents(Composite parent) {
        viewer = table(parent, SWT.SINGLE);
        viewer.setContentProvider(ArrayContentProvider.getInstance());
        column(viewer, Messages.SignalsPage_columnSignal, 160, String[].class, r -> r[0]);
        column(viewer, Messages.SignalsPage_columnHandler, 200, String[].class, r -> r[1]);
        column(viewer, Messages.SignalsPage_columnFlags, 200, String[].class, r -> r[2]);
        column(viewer, Messages.SignalsPage_columnMask, 170, String[].class, r -> r[3]);
        column(viewer, Messages.SignalsPage_columnRestorer, 150, String[].class, r -> r[4]);
    }

    @Override
    void fill() throws ImageException {
        if (!(editor.image() instanceof ManaImage m)) {
            showMessage(Messages.SignalsPage_dmtcp);
            return;
        }
        SignalState s = m.signals();
        List<String[]> rows = new ArrayList<>();
        for (SignalState.Action a : s.actions()) {
            rows.add(new String[] {NLS.bind(Messages.SignalsPage_signal, SignalState.signalName(a.signo()), a.signo()),
                a.ignored() ? "SIG_IGN" : hex(a.handler()), hex(a.flags()), String.format("0x%016x", a.mask()),
                hex(a.restorer())});
        }
        for (SignalState.Timer t : s.timers()) {
            rows.add(new String[] {t.whichName(), NLS.bind(Messages.SignalsPage_interval, t.intervalNs()),
                NLS.bind(Messages.SignalsPage_value, t.valueNs()), "", ""});
        }
        viewer.setInput(rows);
        showMessage(NLS.bind(Messages.SignalsPage_summary, new Object[] {s.actions().size(), s.timers().size(),
            String.format("0x%016x", s.pending())}));

    }

    int rows() {
        return viewer.getTable().getItemCount();
    }
}
