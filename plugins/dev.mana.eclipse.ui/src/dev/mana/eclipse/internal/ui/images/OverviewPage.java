package dev.mana.eclipse.internal.ui.images;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.swt.widgets.Composite;

import dev.mana.eclipse.core.ManaFormat;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.DmtcpHeader;
import dev.mana.inspector.DmtcpImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ImageSummary;
import dev.mana.inspector.ManaHeader;
import dev.mana.inspector.ManaImage;
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
        return "Overview";
    }

    @Override
    void createContents(Composite parent) {
        viewer = table(parent, 0);
        column(viewer, "Field", 200, String[].class, r -> r[0]);
        column(viewer, "Value", 720, String[].class, r -> r[1]);
        viewer.setContentProvider(ArrayContentProvider.getInstance());
    }

    @Override
    void fill() throws ImageException {
        CheckpointImage img = editor.image();
        ImageSummary s = img.summary();
        put("Image", img.path().toString());
        put("Format", s.format().displayName() + (s.compressed() ? " (gzip'd)" : ""));
        put("Program", s.program());
        if (!s.executable().isEmpty()) {
            put("Executable", s.executable());
        }
        put("Rank", s.rank() < 0 ? "unknown (DMTCP images do not record it)" : s.rank() + " of " + s.nranks());
        put("Generation", Long.toString(s.generation()));
        put("PID", Long.toString(s.pid()));
        put("Host", s.host());
        put("MPI", s.mpi().isEmpty() ? "unknown" : s.mpi());
        put("MPI state", mpiState(img, s));
        put("Checkpoint time", s.timeUnixNs() < 0 ? "unknown" : Instant.ofEpochSecond(0, s.timeUnixNs()).toString()
            + " (" + ManaFormat.time(s.timeUnixNs() / 1_000_000) + " local)");
        put("File size", size(s.fileSize()));
        put("Mapped", size(s.mappedBytes()));
        put("Stored", size(s.storedBytes()));
        put("Zero pages skipped", size(s.zeroBytes()));
        put("Regions", count(s.regionCount()));
        put("Threads", count(s.threadCount()));
        put("Files", count(s.fileCount()));
        if (img instanceof ManaImage m) {
            ManaHeader h = m.header();
            put("Format version", h.version() + " (header " + h.headerSize() + " bytes, page " + h.pageSize() + ")");
            put("Sections", m.sections().isEmpty() ? "the section table cannot be read"
                : m.sections().size() + ": " + String.join(", ", m.sections().stream().map(SectionInfo::name).toList()));
            put("Header checks", headerChecks(h));
        } else if (img instanceof DmtcpImage d) {
            DmtcpHeader h = d.header();
            put("Format version", h.signature().strip());
            put("Process", h.procname() + " (" + h.procSelfExe() + "), ppid " + h.ppid() + ", upid " + h.upid());
            put("Computation", h.compGroup() + ", generation " + h.compGroup().generation() + ", " + h.numPeers()
                + " peers");
            put("Header checks", "signature DMTCP v4.0; DMTCP images carry no checksums (Verify checks the structure)");
        }
        viewer.setInput(rows());
    }

    private String headerChecks(ManaHeader h) {
        List<String> out = new ArrayList<>();
        out.add("magic MANAIMG1, version 1");
        Problem crc = editor.openProblem(ErrorKind.CORRUPT);
        out.add(String.format("header CRC 0x%08x %s", h.headerCrc(), crc == null ? "matches" : "MISMATCH"));
        Problem size = editor.openProblem(ErrorKind.TRUNCATED);
        out.add(size == null ? "file size as declared (" + h.fileSize() + " bytes)"
            : "file size SHORT: " + editor.image().fileSize() + " of " + h.fileSize() + " bytes");
        return String.join("; ", out);
    }

    private static String mpiState(CheckpointImage img, ImageSummary s) {
        if (img instanceof ManaImage m) {
            return m.mpiSection().map(sec -> "MPI section of " + sec.length() + " bytes, " + sec.count()
                + " records (layout not yet defined by the MPI runtime: shown raw on the MPI page)")
                .orElse("no MPI section (a program without MPI, or MPI state not saved)");
        }
        return "kept by MANA's plugins in the image's memory (not decoded)";
    }

    static String size(long n) {
        return n < 0 ? "unknown" : ManaFormat.bytes(n) + " (" + n + " bytes)";
    }

    private static String count(long n) {
        return n < 0 ? "unknown" : Long.toString(n);
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
