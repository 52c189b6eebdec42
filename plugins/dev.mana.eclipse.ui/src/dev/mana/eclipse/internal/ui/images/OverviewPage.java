package dev.mana.eclipse.internal.ui.images;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.widgets.Composite;

import dev.mana.eclipse.core.ManaFormat;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.DmtcpHeader;
import dev.mana.inspector.DmtcpImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ImageSummary;
import dev.mana.inspector.ManaHeader;
import dev.mana.inspector.ManaChain;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.ParentInfo;
import dev.mana.inspector.Problem;
import dev.mana.inspector.SectionInfo;

/**
 * Overview: program, rank, generation, MPI, times, sizes, format and the header's checks. For our format it
 * reads the 256-byte header only (instant at any image size); the executable comes from the PROCESS section.
 */
final class OverviewPage extends ImagePage {
    private TableViewer viewer;
    private final Map<String, String> values = new LinkedHashMap<>();

    OverviewPage(ImageEditor editor) {
        super(editor);
    }

    @Override
    String title() {
        return Messages.OverviewPage_title;
    }

    @Override
    void createContents(Composite parent) {
        viewer = table(parent, 0);
        column(viewer, Messages.OverviewPage_columnField, 200, String[].class, r -> r[0]);
        column(viewer, Messages.OverviewPage_columnValue, 720, String[].class, r -> r[1]);
        viewer.setContentProvider(ArrayContentProvider.getInstance());
    }

    @Override
    void fill() throws ImageException {
        CheckpointImage img = editor.image();
        ImageSummary s = img.summary();
        put(Messages.OverviewPage_image, img.path().toString());
        String format = s.format().displayName();
        put(Messages.OverviewPage_format, s.compressed() ? NLS.bind(Messages.OverviewPage_formatGzipped, format) : format);
        put(Messages.OverviewPage_program, s.program());
        if (!s.executable().isEmpty()) {
            put(Messages.OverviewPage_executable, s.executable());
        }
        put(Messages.OverviewPage_rank, s.rank() < 0 ? Messages.OverviewPage_rankUnknown
            : NLS.bind(Messages.OverviewPage_rankOf, s.rank(), s.nranks()));
        put(Messages.OverviewPage_generation, Long.toString(s.generation()));
        put(Messages.OverviewPage_pid, Long.toString(s.pid()));
        put(Messages.OverviewPage_host, s.host());
        put(Messages.OverviewPage_mpi, s.mpi().isEmpty() ? Messages.OverviewPage_unknown : s.mpi());
        put(Messages.OverviewPage_mpiState, mpiState(img, s));
        put(Messages.OverviewPage_time, s.timeUnixNs() < 0 ? Messages.OverviewPage_unknown
            : NLS.bind(Messages.OverviewPage_timeValue, Instant.ofEpochSecond(0, s.timeUnixNs()),
                ManaFormat.time(s.timeUnixNs() / 1_000_000)));
        put(Messages.OverviewPage_fileSize, size(s.fileSize()));
        put(Messages.OverviewPage_mapped, size(s.mappedBytes()));
        put(Messages.OverviewPage_stored, size(s.storedBytes()));
        put(Messages.OverviewPage_zero, size(s.zeroBytes()));
        put(Messages.OverviewPage_regions, count(s.regionCount()));
        put(Messages.OverviewPage_threads, count(s.threadCount()));
        put(Messages.OverviewPage_files, count(s.fileCount()));
        if (img instanceof ManaImage m) {
            ManaHeader h = m.header();
            put(Messages.OverviewPage_version,
                NLS.bind(Messages.OverviewPage_versionValue, new Object[] {h.version(), h.headerSize(), h.pageSize()}));
            put(Messages.OverviewPage_sections, m.sections().isEmpty() ? Messages.OverviewPage_noSectionTable
                : NLS.bind(Messages.OverviewPage_sectionsValue, m.sections().size(),
                    String.join(", ", m.sections().stream().map(SectionInfo::name).toList())));
            put(Messages.OverviewPage_headerChecks, headerChecks(h));
            chain(m);
        } else if (img instanceof DmtcpImage d) {
            DmtcpHeader h = d.header();
            put(Messages.OverviewPage_version, h.signature().strip());
            put(Messages.OverviewPage_process, NLS.bind(Messages.OverviewPage_processValue,
                new Object[] {h.procname(), h.procSelfExe(), h.ppid(), h.upid()}));
            put(Messages.OverviewPage_computation, NLS.bind(Messages.OverviewPage_computationValue,
                new Object[] {h.compGroup(), h.compGroup().generation(), h.numPeers()}));
            put(Messages.OverviewPage_headerChecks, Messages.OverviewPage_dmtcpChecks);
        }
        viewer.setInput(rows());
    }

    /** An incremental image: its parent, and whether the Hex page reads through the chain. */
    private void chain(ManaImage m) {
        try {
            var parent = m.parent();
            if (parent.isEmpty()) {
                return;
            }
            ParentInfo p = parent.get();
            String on = NLS.bind(Messages.OverviewPage_chainValue, new Object[] {p.name(), p.generation(), p.depth()});
            put(Messages.OverviewPage_chain, m instanceof ManaChain c
                ? NLS.bind(Messages.OverviewPage_chainRead, on, c.images().size())
                : NLS.bind(Messages.OverviewPage_chainUnread, on));
        } catch (ImageException e) {
            put(Messages.OverviewPage_chain, e.getMessage());
        }
    }

    private String headerChecks(ManaHeader h) {
        List<String> out = new ArrayList<>();
        out.add(Messages.OverviewPage_magic);
        Problem crc = editor.openProblem(ErrorKind.CORRUPT);
        out.add(NLS.bind(crc == null ? Messages.OverviewPage_crcMatches : Messages.OverviewPage_crcMismatch,
            String.format("0x%08x", h.headerCrc())));
        Problem size = editor.openProblem(ErrorKind.TRUNCATED);
        out.add(size == null ? NLS.bind(Messages.OverviewPage_sizeAsDeclared, h.fileSize())
            : NLS.bind(Messages.OverviewPage_sizeShort, editor.image().fileSize(), h.fileSize()));
        return String.join("; ", out);
    }

    private static String mpiState(CheckpointImage img, ImageSummary s) {
        if (img instanceof ManaImage m) {
            return m.mpiSection().map(sec -> NLS.bind(Messages.OverviewPage_mpiSection, sec.length(), sec.count()))
                .orElse(Messages.OverviewPage_noMpiSection);
        }
        return Messages.OverviewPage_dmtcpMpi;
    }

    static String size(long n) {
        return n < 0 ? Messages.OverviewPage_unknown : NLS.bind(Messages.OverviewPage_bytes, ManaFormat.bytes(n), n);
    }

    private static String count(long n) {
        return n < 0 ? Messages.OverviewPage_unknown : Long.toString(n);
    }


    private void put(String k, String v) {
        values.put(k, v);
    }

    private List<String[]> rows() {
        List<String[]> r = new ArrayList<>();
        values.forEach((k, v) -> r.add(new String[] {k, v}));
        return r;
    }

    /** Field name to value as shown (for tests and the copy action). */
    Map<String, String> values() {
        return values;
    }

    TableViewer viewer() {
        return viewer;
    }
}
