package dev.mana.eclipse.internal.ui.images;

import java.util.Optional;

import org.eclipse.jface.resource.JFaceResources;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.StyledText;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.widgets.Composite;

import dev.mana.inspector.ImageException;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.MpiSummary;
import dev.mana.inspector.MpiText;
import dev.mana.inspector.SectionInfo;

/**
 * The MPI section decoded (counts of the rank's MPI state) and the MPI objects the image lists (open MPI-IO
 * files: mode, pointers, view, path), as {@code mana_inspect mpi} shows them.
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
        showMessage(NLS.bind(Messages.MpiPage_section, new Object[] {s.version(), s.length(), s.offset(), s.count(),
            String.format("0x%08x", s.crc())}));
        MpiSummary sum = m.mpi().orElseThrow();
        text.setText(MpiText.describe(sum, m.mpiObjects()));
    }

    String getText() {
        return text.getText();
    }
}
