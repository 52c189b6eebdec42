package dev.mana.eclipse.internal.ui.images;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.jface.resource.JFaceResources;
import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Text;

import dev.mana.inspector.ImageException;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.ThreadInfo;

/** Threads (our format): tid, main/checkpoint thread, FS/GS base, stack, sigmask; the 23 registers of the selected one. */
final class ThreadsPage extends ImagePage {
    private TableViewer viewer;
    private Text registers;

    ThreadsPage(ImageEditor editor) {
        super(editor);
    }

    @Override
    String title() {
        return Messages.ThreadsPage_title;
    }

    @Override
    void createContents(Composite parent) {
        viewer = table(parent, SWT.SINGLE);
        viewer.setContentProvider(ArrayContentProvider.getInstance());
        column(viewer, Messages.ThreadsPage_columnTid, 70, ThreadInfo.class, t -> Integer.toString(t.tid()));
        column(viewer, Messages.ThreadsPage_columnRole, 120, ThreadInfo.class, ThreadsPage::role);
        column(viewer, Messages.ThreadsPage_columnFs, 130, ThreadInfo.class, t -> hex(t.fsBase()));
        column(viewer, Messages.ThreadsPage_columnGs, 90, ThreadInfo.class, t -> hex(t.gsBase()));
        column(viewer, Messages.ThreadsPage_columnStack, 260, ThreadInfo.class, t -> hex(t.stackStart()) + "-" + hex(t.stackEnd()));
        column(viewer, Messages.ThreadsPage_columnSigmask, 150, ThreadInfo.class, t -> String.format("0x%016x", t.sigmask()));
        column(viewer, Messages.ThreadsPage_columnRip, 130, ThreadInfo.class, t -> hex(t.register("rip")));
        column(viewer, Messages.ThreadsPage_columnRsp, 130, ThreadInfo.class, t -> hex(t.register("rsp")));
        registers = new Text(parent, SWT.BORDER | SWT.READ_ONLY | SWT.MULTI | SWT.V_SCROLL);
        registers.setFont(JFaceResources.getTextFont());
        GridData gd = new GridData(SWT.FILL, SWT.FILL, true, false);
        gd.heightHint = 130;
        registers.setLayoutData(gd);
        viewer.addSelectionChangedListener(e -> {
            ThreadInfo t = (ThreadInfo) ((IStructuredSelection) e.getSelection()).getFirstElement();
            registers.setText(t == null ? "" : registers(t));
        });
    }

    private static String role(ThreadInfo t) {
        List<String> roles = new ArrayList<>();
        if (t.main()) {
            roles.add(Messages.ThreadsPage_roleMain);
        }
        if (t.checkpointThread()) {
            roles.add(Messages.ThreadsPage_roleCheckpoint);
        }
        return String.join(" ", roles);
    }

    private static String registers(ThreadInfo t) {
        StringBuilder sb = new StringBuilder(NLS.bind(Messages.ThreadsPage_registersHead, t.tid()) + "\n");
        for (int i = 0; i < ThreadInfo.GREG_NAMES.size() && i < t.gregs().size(); i++) {
            sb.append(String.format("%-8s 0x%016x%s", ThreadInfo.GREG_NAMES.get(i), t.gregs().get(i), i % 4 == 3 ? "\n" : "    "));
        }
        sb.append('\n').append(NLS.bind(Messages.ThreadsPage_registersTail, new Object[] {hex(t.ctidAddr()),
            hex(t.robustList()), t.robustListLen(), hex(t.altstackSp()), t.altstackSize(), t.altstackFlags()}));
        return sb.toString();
    }

    @Override
    void fill() throws ImageException {
        if (!(editor.image() instanceof ManaImage m)) {
            showMessage(Messages.ThreadsPage_dmtcp);

            return;
        }
        viewer.setInput(m.threads());
        if (!m.threads().isEmpty()) {
            viewer.getTable().select(0);
            registers.setText(registers(m.threads().get(0)));
        }
    }

    int rows() {
        return viewer.getTable().getItemCount();
    }
}
