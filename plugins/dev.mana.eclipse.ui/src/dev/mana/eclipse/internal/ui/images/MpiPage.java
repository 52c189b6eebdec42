package dev.mana.eclipse.internal.ui.images;

import java.nio.ByteBuffer;
import java.util.Optional;

import org.eclipse.jface.resource.JFaceResources;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.StyledText;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.widgets.Composite;

import dev.mana.inspector.HexDump;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.SectionInfo;

/**
 * The MPI section: its table entry and, since docs/image-format.md does not define its layout yet (the MPI
 * runtime will), its first 4 KiB raw, as {@code mana_inspect mpi} shows it.
 */
final class MpiPage extends ImagePage {
    private StyledText text;

    MpiPage(ImageEditor editor) {
        super(editor);
    }

    @Override
    String title() {
        return Messages.MpiPage_title;
    }

    @Override
    void createContents(Composite parent) {
        text = new StyledText(parent, SWT.BORDER | SWT.READ_ONLY | SWT.V_SCROLL | SWT.H_SCROLL);
        text.setFont(JFaceResources.getTextFont());
        text.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));
    }

    @Override
    void fill() throws ImageException {
        if (!(editor.image() instanceof ManaImage m)) {
            showMessage(Messages.MpiPage_dmtcp);
            return;
        }
        Optional<SectionInfo> sec = m.mpiSection();
        if (sec.isEmpty()) {
            showMessage(NLS.bind(Messages.MpiPage_noSection, m.header().mpi(),
                m.header().hasMpi() ? Messages.MpiPage_mpiFlag : ""));
            return;
        }
        SectionInfo s = sec.get();
        int n = (int) Math.min(4096, s.length());
        ByteBuffer b = ByteBuffer.allocate(n);
        m.readSection(s, 0, b);
        showMessage(NLS.bind(Messages.MpiPage_section, new Object[] {s.version(), s.length(), s.offset(), s.count(),
            String.format("0x%08x", s.crc()), s.length() > n ? NLS.bind(Messages.MpiPage_first, n) : ""}));

        text.setText(HexDump.lines(0, b.array(), n));
    }

    String getText() {
        return text.getText();
    }
}
