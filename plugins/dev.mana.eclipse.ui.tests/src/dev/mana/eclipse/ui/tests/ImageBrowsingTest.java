package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.eclipse.core.filesystem.EFS;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchPart;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.ide.IDE;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mana.eclipse.internal.ui.actions.RestartDialog;
import dev.mana.eclipse.internal.ui.images.CheckpointDirectoryView;
import dev.mana.eclipse.internal.ui.images.DiffEditor;
import dev.mana.eclipse.internal.ui.images.ImageEditor;
import dev.mana.eclipse.internal.ui.images.ImageInputs;
import dev.mana.eclipse.internal.ui.images.Messages;
import dev.mana.inspector.testkit.ManaImageWriter;
import dev.mana.inspector.testkit.TestDmtcpImage;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.HexDump;
import dev.mana.inspector.Images;
import dev.mana.inspector.MemoryRegion;

/**
 * Browsing checkpoint images in the real workbench: the image editor on an image the real runtime wrote
 * (values against {@code mana_inspect --json} of the same file, a region's hex against
 * {@code mana_inspect hexdump}), opened the ways a person opens it (File > Open File..., the Project
 * Explorer); a truncated copy (banner, readable pages), a corrupted copy (verify names the region); DMTCP
 * images from the test writer, plain and gzip'd; the checkpoint directory view (verify all, compare two
 * generations, Restart from Here...); verify with progress and cancel on a 1 GiB image; the time to the first
 * painted page of that 1 GiB image (written, not sparse, into target/). Screenshots of the overview, the
 * memory map and the directory view go to target/screenshots (make screenshots copies them into docs/).
 */
class ImageBrowsingTest {
    static Path root;
    static Path tmp;
    /** /tmp/demo, where every image the pictures show lies (DemoDir); {@link #tmp} is its path. */
    static DemoDir demo;
    static Path target;
    static RealImages real;
    /** A two-generation, two-rank directory from the test writer (always there, real runtime or not). */
    static Path writtenDir;

    @BeforeAll
    static void setUp() throws Exception {
        root = Path.of(System.getProperty("mana.root"));
        target = Path.of(System.getProperty("mana.uitest.target", "target"));
        demo = DemoDir.open();
        tmp = demo.path();
        real = RealImages.make(root, demo);
        writtenDir = tmp.resolve("written");
        for (int g = 1; g <= 2; g++) {
            for (int r = 0; r < 2; r++) {
                byte[] content = new byte[3 * 4096 + 100];
                java.util.Arrays.fill(content, (byte) (r + 1));
                if (g == 2) {
                    java.util.Arrays.fill(content, 4096, 4096 + 10, (byte) 0x7f); // 10 bytes changed
                }
                ManaImageWriter.write(writtenDir.resolve("ckpt_rank_" + r + "/ckpt_sum_gen" + g + ".mana"), "sum", r, 2, g,
                    content);
            }
        }
        Ui.sync(() -> {
            var w = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
            w.getShell().setBounds(0, 0, 1280, 860);
            w.getActivePage().closeAllEditors(false);
        });
    }

    @AfterEach
    void closeEditors() {
        Ui.sync(() -> PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage().closeAllEditors(false));
    }

    @AfterAll
    static void cleanUp() throws Exception {
        Files.deleteIfExists(target.resolve("large-1gib.mana"));
        if (demo != null) {
            demo.close();
        }
    }

    static IWorkbenchPage page() {
        return PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
    }

    static ImageEditor open(Path image) {
        return Ui.sync(() -> (ImageEditor) ImageInputs.open(page(), image.toFile()));
    }

    /** A screenshot of the workbench with {@code part} maximized, into target/screenshots. */
    static void screenshot(IWorkbenchPart part, String name) {
        Ui.sync(() -> {
            var ref = page().getReference(part);
            page().setPartState(ref, IWorkbenchPage.STATE_MAXIMIZED);
            Shell shell = page().getWorkbenchWindow().getShell();
            Ui.screenshot(shell, name);
            page().setPartState(ref, IWorkbenchPage.STATE_RESTORED);
        });
    }

    /** The first saved region that stores bytes, preferring one named {@code like}. */
    static MemoryRegion storedRegion(List<MemoryRegion> rs, String like) {
        return rs.stream().filter(r -> r.saved() && r.storedBytes() > 0 && r.name().contains(like)).findFirst()
            .orElseGet(() -> rs.stream().filter(r -> r.saved() && r.storedBytes() > 0).findFirst().orElseThrow());
    }

    /** A cell of the directory view that says its image was verified OK. */
    static boolean verifiedOk(String cell) {
        return cell != null
            && Ui.pattern(Messages.CheckpointDirectoryView_verified, null, null, Messages.Verification_ok).matcher(cell).matches();
    }

    static String firstLine(String s) {
        int i = s.indexOf('\n');
        return i < 0 ? s : s.substring(0, i);
    }

    @Test
    void realImageAsManaInspectSeesIt() throws Exception {
        if (real.dir == null) {
            Cannot.skipOrFail("real-image", "no real image: " + real.why);
        }
        Path img = real.gen2;
        String json = RealImages.inspect(root, "summary", "--json", img.toString());
        // File > Open File... opens a file by its name's editor: ours for *.mana
        ImageEditor ed = Ui.sync(() -> (ImageEditor) IDE.openEditorOnFileStore(page(),
            EFS.getLocalFileSystem().getStore(img.toUri())));
        Map<String, String> o = Ui.sync(ed::getOverview);
        assertFalse(Ui.sync(ed::isBannerShown), () -> Ui.sync(ed::getBannerText));
        assertEquals(RealImages.json(json, "program"), o.get(Messages.OverviewPage_program));
        assertEquals(RealImages.json(json, "executable"), o.get(Messages.OverviewPage_executable));
        assertEquals(RealImages.json(json, "pid"), o.get(Messages.OverviewPage_pid));
        assertEquals(NLS.bind(Messages.OverviewPage_rankOf, RealImages.json(json, "rank"), RealImages.json(json, "nranks")),
            o.get(Messages.OverviewPage_rank));
        assertEquals(RealImages.json(json, "generation"), o.get(Messages.OverviewPage_generation));
        assertEquals("2", o.get(Messages.OverviewPage_generation));
        assertEquals(RealImages.json(json, "host"), o.get(Messages.OverviewPage_host));
        assertEquals(RealImages.json(json, "mpi"), o.get(Messages.OverviewPage_mpi));
        assertTrue(o.get(Messages.OverviewPage_time).startsWith(RealImages.json(json, "time").replaceAll("0+Z$", "")),
            o.get(Messages.OverviewPage_time) + " vs " + RealImages.json(json, "time"));
        for (String[] f : new String[][] {{Messages.OverviewPage_fileSize, "file_size"},
            {Messages.OverviewPage_mapped, "mapped_bytes"}, {Messages.OverviewPage_stored, "stored_bytes"},
            {Messages.OverviewPage_zero, "zero_bytes"}}) {
            assertTrue(Ui.pattern(Messages.OverviewPage_bytes, null, RealImages.json(json, f[1])).matcher(o.get(f[0])).matches(),
                f[0] + ": " + o.get(f[0]));
        }
        assertEquals(RealImages.json(json, "regions"), o.get(Messages.OverviewPage_regions));
        assertEquals(RealImages.json(json, "threads"), o.get(Messages.OverviewPage_threads));
        assertEquals(RealImages.json(json, "files"), o.get(Messages.OverviewPage_files));
        assertTrue(o.get(Messages.OverviewPage_headerChecks).contains(NLS.bind(Messages.OverviewPage_crcMatches,
            RealImages.json(json, "header_crc"))), o.get(Messages.OverviewPage_headerChecks));
        assertEquals(Messages.OverviewPage_noMpiSection, o.get(Messages.OverviewPage_mpiState));
        screenshot(ed, "image-editor-overview");

        // the memory map: every region; a region of the program selected, its hex as mana_inspect shows it
        List<MemoryRegion> rs = Ui.sync(ed::getRegions);
        assertEquals(Long.parseLong(RealImages.json(json, "regions")), rs.size());
        MemoryRegion r = storedRegion(rs, "/heat");
        Ui.sync(() -> ed.selectRegion(r));
        assertTrue(Ui.sync(ed::getMemoryStripBreaks) >= 1, "the gap between the program and the libraries is drawn as a break");
        screenshot(ed, "image-editor-memory-map");
        Ui.sync(ed::showSelectedRegionInHex);
        String expect = RealImages.inspect(root, "hexdump", img.toString(), "0x" + Long.toHexString(r.start()), "64");
        String hex = Ui.sync(ed::getHexText);
        assertTrue(hex.startsWith(expect), "hex page:\n" + hex.substring(0, Math.min(400, hex.length())) + "\nmana_inspect:\n" + expect);
        assertEquals(NLS.bind(Messages.HexPage_where, new Object[] {r.index(),
            r.name().isEmpty() ? Messages.ImagePage_anonymous : r.name(), r.permissions(), 1,
            (r.mappedBytes() + 4095) / 4096}), Ui.sync(ed::getHexLocation));
        // filter: the program's regions only
        int total = rs.size();
        Ui.sync(() -> ed.setMemoryFilter("/heat", false));
        int shown = Ui.sync(ed::getMemoryMapVisibleRows);
        assertTrue(shown > 0 && shown < total, shown + " of " + total);
        Ui.sync(() -> ed.setMemoryFilter("", true));
        assertEquals(rs.stream().filter(MemoryRegion::saved).count(), (long) Ui.sync(ed::getMemoryMapVisibleRows));
        // threads and files: as many rows as mana_inspect counts
        assertEquals(Integer.parseInt(RealImages.json(json, "threads")), (int) Ui.sync(() -> ed.getTableRows(Messages.ThreadsPage_title)));
        assertEquals(Integer.parseInt(RealImages.json(json, "files")), (int) Ui.sync(() -> ed.getTableRows(Messages.FilesPage_title)));
        Ui.sync(() -> ed.getTableRows(Messages.SignalsPage_title));
        assertTrue(Ui.sync(() -> ed.getPageMessage(Messages.MpiPage_title)).startsWith(Ui.head(Messages.MpiPage_noSection)));
        // verify: OK, every stored region's checksum checked
        Ui.sync(ed::startVerify);
        Ui.waitFor("verify to end", 60_000, () -> ed.getVerifyVerdict() != null);
        assertEquals(Messages.Verification_ok, Ui.sync(ed::getVerifyVerdict), Ui.sync(ed::getVerifyStatus));
        assertEquals(Messages.Verification_checksum, Ui.sync(() -> ed.getVerifyRegionResult(r)));
    }

    @Test
    void truncatedAndCorruptCopies() throws Exception {
        Path src = real.dir != null ? real.gen2 : writtenDir.resolve("ckpt_rank_0/ckpt_sum_gen1.mana");
        Path cut = tmp.resolve("cut/" + src.getFileName());
        Files.createDirectories(cut.getParent());
        Files.copy(src, cut);
        long size = Files.size(cut);
        try (RandomAccessFile f = new RandomAccessFile(cut.toFile(), "rw")) {
            f.setLength(size * 2 / 3);
        }
        byte[] before = Files.readAllBytes(cut);
        ImageEditor ed = open(cut);
        assertTrue(Ui.sync(ed::isBannerShown));
        String banner = Ui.sync(ed::getBannerText);
        // "Truncated", TRUNCATED and what follows are the image library's words
        assertTrue(banner.startsWith(NLS.bind(Messages.ImageEditor_problem, new Object[] {"Truncated", "TRUNCATED",
            "the file has " + (size * 2 / 3) + " bytes, its header declares " + size})), banner);
        Map<String, String> o = Ui.sync(ed::getOverview);
        assertEquals(real.dir != null ? "heat" : "sum", o.get(Messages.OverviewPage_program), "the header is still shown");
        assertTrue(o.get(Messages.OverviewPage_headerChecks).contains(Ui.head(Messages.OverviewPage_sizeShort)),
            o.get(Messages.OverviewPage_headerChecks));
        assertTrue(Ui.sync(() -> ed.getPageMessage(Messages.MemoryMapPage_title))
            .startsWith(Ui.head(Messages.ImagePage_cannotShow, Messages.MemoryMapPage_title)),
            Ui.sync(() -> ed.getPageMessage(Messages.MemoryMapPage_title)));
        Ui.sync(ed::startVerify);
        Ui.waitFor("verify of the truncated copy", 30_000, () -> ed.getVerifyVerdict() != null);
        assertTrue(Ui.sync(ed::getVerifyVerdict).startsWith("TRUNCATED"), Ui.sync(ed::getVerifyVerdict));
        screenshot(ed, "image-editor-truncated");
        Ui.sync(() -> page().closeAllEditors(false));
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(cut)), "nothing written to the image");

        // not an image at all: the banner says so, no page has anything
        Path text = Files.writeString(tmp.resolve("notes.mana"), "these are my notes, not an image\n");
        ImageEditor ed3 = open(text);
        assertTrue(Ui.sync(ed3::getBannerText).startsWith(Ui.head(Messages.ImageEditor_problem, "Not a checkpoint image",
            "NOT_AN_IMAGE")), Ui.sync(ed3::getBannerText));
        assertEquals(Messages.ImagePage_nothingReadable, Ui.sync(() -> ed3.getPageMessage(Messages.MemoryMapPage_title)));
        Ui.sync(() -> page().closeAllEditors(false));

        // one flipped byte in a payload: opens cleanly, verify names the region
        Path bad = tmp.resolve("bad/" + src.getFileName());
        Files.createDirectories(bad.getParent());
        Files.copy(src, bad);
        MemoryRegion victim;
        try (CheckpointImage img = Images.open(bad)) {
            victim = storedRegion(img.regions(), "[heap]");
        }
        try (RandomAccessFile f = new RandomAccessFile(bad.toFile(), "rw")) {
            f.seek(victim.payloadOffset() + 100);
            int b = f.read();
            f.seek(victim.payloadOffset() + 100);
            f.write(b ^ 0x10);
        }
        ImageEditor ed2 = open(bad);
        assertFalse(Ui.sync(ed2::isBannerShown));
        Ui.sync(ed2::startVerify);
        Ui.waitFor("verify of the corrupt copy", 30_000, () -> ed2.getVerifyVerdict() != null);
        assertEquals(NLS.bind(Messages.Verification_problem, "CORRUPT", 1), Ui.sync(ed2::getVerifyVerdict));
        MemoryRegion v = Ui.sync(ed2::getRegions).get(victim.index());
        assertTrue(Ui.sync(() -> ed2.getVerifyRegionResult(v)).startsWith("corrupt: region " + victim.index()),
            Ui.sync(() -> ed2.getVerifyRegionResult(v)));
        assertTrue(Ui.sync(ed2::isBannerShown), "the verify's verdict goes to the banner");
    }

    @Test
    void dmtcpImagesPlainAndGzipped() throws Exception {
        for (boolean gz : new boolean[] {false, true}) {
            Path p = TestDmtcpImage.sample(7).write(tmp.resolve("ckpt_ping_pong_1a2b3c4d-31337-65f0a1b2" + (gz ? "-gz" : "")
                + ".dmtcp"), gz);
            // the Project Explorer: a workspace file opens in its default editor, ours
            IProject project = ResourcesPlugin.getWorkspace().getRoot().getProject("images");
            if (!project.exists()) {
                project.create(null);
            }
            project.open(null);
            IFile f = project.getFile(p.getFileName().toString());
            if (!f.exists()) {
                f.create(new ByteArrayInputStream(Files.readAllBytes(p)), true, null);
            }
            IEditorPart part = Ui.sync(() -> IDE.openEditor(page(), f));
            assertTrue(part instanceof ImageEditor, String.valueOf(part));
            ImageEditor ed = (ImageEditor) part;
            // a gzip'd image is read through once in the background before its pages fill
            Ui.waitFor("the DMTCP image read", 30_000, ed::isReady);
            Map<String, String> o = Ui.sync(ed::getOverview);
            assertEquals(gz ? NLS.bind(Messages.OverviewPage_formatGzipped, "DMTCP v4.0 image") : "DMTCP v4.0 image",
                o.get(Messages.OverviewPage_format));
            assertEquals("ping_pong", o.get(Messages.OverviewPage_program));
            assertTrue(Ui.pattern(Messages.OverviewPage_computationValue, null, null, 4).matcher(o.get(Messages.OverviewPage_computation))
                .matches(), o.get(Messages.OverviewPage_computation));
            List<MemoryRegion> rs = Ui.sync(ed::getRegions);
            try (CheckpointImage img = Images.open(p)) {
                assertEquals(img.regions().size(), rs.size());
                MemoryRegion r = storedRegion(img.regions(), "[heap]");
                ByteBuffer b = ByteBuffer.allocate(16);
                img.readMemory(r.start(), b);
                Ui.sync(() -> ed.showHex(r.start()));
                assertEquals(HexDump.line(r.start(), b.array(), 0, 16), firstLine(Ui.sync(ed::getHexText)));
            }
            assertEquals(Messages.ThreadsPage_dmtcp, Ui.sync(() -> ed.getPageMessage(Messages.ThreadsPage_title)));
            Ui.sync(ed::startVerify);
            Ui.waitFor("verify of the DMTCP image", 30_000, () -> ed.getVerifyVerdict() != null);
            assertEquals(Messages.Verification_okStructure, Ui.sync(ed::getVerifyVerdict));
            Ui.sync(() -> page().closeAllEditors(false));
        }
    }

    @Test
    void directoryViewVerifiesComparesAndRestarts() throws Exception {
        Path dir = real.dir != null ? real.dir : writtenDir;
        long ranks = real.dir != null ? 1 : 2;
        CheckpointDirectoryView view = Ui.sync(() -> CheckpointDirectoryView.show(page(), dir.toFile()));
        // the scan runs in the background (never on the UI thread): its result is shown when it ends
        Ui.waitFor("the directory scanned", 30_000, () -> !view.isScanning());
        assertEquals(List.of(1L, 2L), Ui.sync(view::getGenerations));
        assertEquals(ranks, (long) Ui.sync(view::getRankRows));
        assertTrue(Ui.sync(view::getSummaryText).contains(Ui.head(Messages.CheckpointDirectoryView_restartable, 2)),
            Ui.sync(view::getSummaryText));
        assertTrue(Ui.pattern(Messages.CheckpointDirectoryView_notVerified).matcher(Ui.sync(() -> view.getCellText(0, 1))).matches());
        Job verify = Ui.sync(view::verifyAll);
        assertTrue(verify.join(120_000, null));
        Ui.waitFor("every cell verified", 10_000, () -> verifiedOk(view.getCellText(ranks - 1, 2)));
        for (long r = 0; r < ranks; r++) {
            for (long g = 1; g <= 2; g++) {
                long rank = r;
                long gen = g;
                assertEquals(Messages.Verification_ok, Ui.sync(() -> view.verdictOf(rank, gen)), "rank " + r + " generation " + g);
            }
        }

        // compare generation 1 with 2: a diff editor, a region changed with its byte count
        Ui.sync(() -> view.selectCell(0, 1, false));
        Ui.sync(() -> view.selectCell(0, 2, true));
        Job cmp = Ui.sync(() -> view.compare(1, 2));
        assertTrue(cmp.join(120_000, null));
        Ui.waitFor("the diff editor", 10_000, () -> page().getActiveEditor() instanceof DiffEditor);
        DiffEditor diff = Ui.sync(() -> (DiffEditor) page().getActiveEditor());
        String summary = Ui.sync(diff::getSummary);
        assertTrue(Ui.pattern(Messages.DiffEditor_head, null, 1, 2).matcher(summary).find(), summary);
        var r0 = Ui.sync(() -> diff.rank(0));
        assertNotNull(r0.diff(), r0.error());
        assertTrue(r0.diff().count(dev.mana.inspector.ImageDiff.Kind.CHANGED) >= 1, summary);
        assertTrue(r0.diff().headerChanges().stream().anyMatch(c -> c.startsWith("generation")), summary);
        if (real.dir == null) {
            assertEquals(10, r0.diff().bytesChanged(), summary);
        } else {
            assertTrue(r0.diff().bytesChanged() > 0, summary);
        }
        assertTrue(Ui.pattern(Messages.DiffEditor_rankSummary, 0, null, null, null, null, null, r0.diff().bytesChanged())
            .matcher(summary).find(), summary);
        assertTrue(Ui.sync(diff::getVisibleRows) >= 1);
        screenshot(diff, "generation-diff");

        // double-click a cell: the image editor
        Ui.sync(() -> view.openImage(0, 2));
        assertTrue(Ui.sync(() -> page().getActiveEditor()) instanceof ImageEditor);

        // Restart from Here...: the restart dialog, on this directory
        Ui.sync(() -> page().closeAllEditors(false));
        // the dialog restarts a launch configuration: have one
        var lm = org.eclipse.debug.core.DebugPlugin.getDefault().getLaunchManager();
        var wc = lm.getLaunchConfigurationType(dev.mana.eclipse.core.ManaCore.LAUNCH_CONFIGURATION_TYPE)
            .newInstance(null, "images test");
        wc.setAttribute(dev.mana.eclipse.core.ManaCore.ATTR_PROGRAM, "/bin/true");
        wc.setAttribute(dev.mana.eclipse.core.ManaCore.ATTR_RANKS, (int) ranks);
        var config = wc.doSave();
        RestartDialog d = Ui.sync(() -> view.restartFromHere(false));
        try {
            assertEquals(dir.toAbsolutePath().toString(), Ui.sync(() -> d.directoryText().getText()));
            // a double-click on an image of the dialog opens it (once the background check listed them)
            assertTrue(Ui.sync(() -> d.awaitValidation(10_000) != null && d.openImage(0)));
            ImageEditor ed = Ui.sync(() -> (ImageEditor) page().getActiveEditor());
            assertEquals("2", Ui.sync(ed::getOverview).get(Messages.OverviewPage_generation));
        } finally {
            Ui.sync(() -> d.close());
            config.delete();
        }

        // four ranks, two generations, a writer that died in rank 3 while writing generation 3
        Path rich = tmp.resolve("rich");
        for (int g = 1; g <= 2; g++) {
            for (int r = 0; r < 4; r++) {
                ManaImageWriter.write(rich.resolve("ckpt_rank_" + r + "/ckpt_sum_gen" + g + ".mana"), "sum", r, 4, g,
                    new byte[(r + 1) * 40_000 + g * 5000]);
            }
        }
        Files.write(rich.resolve("ckpt_rank_3/ckpt_sum_gen3.mana.tmp"), new byte[5000]);
        Ui.sync(() -> view.setDirectory(rich));
        Ui.waitFor("the rich directory scanned", 30_000, () -> !view.isScanning());
        assertEquals(4, (int) Ui.sync(view::getRankRows));
        assertEquals(List.of(1L, 2L), Ui.sync(view::getGenerations));
        String sum = Ui.sync(view::getSummaryText);
        // generation 2 is complete: restart moves the dead writer's file aside and takes it
        assertTrue(sum.contains(Ui.head(Messages.CheckpointDirectoryView_restartable, 2))
            && sum.contains(NLS.bind(Messages.CheckpointDirectoryView_stale, "ckpt_rank_3/ckpt_sum_gen3.mana.tmp")), sum);
        assertTrue(Ui.sync(view::verifyAll).join(120_000, null));
        Ui.waitFor("the rich directory verified", 10_000, () -> verifiedOk(view.getCellText(3, 2)));
        Ui.sync(() -> view.selectCell(1, 1, false));
        Ui.sync(() -> view.selectCell(1, 2, true));
        screenshot(view, "checkpoint-directory-view");
    }

    @Test
    void largeImageFirstPaintAndVerifyWithProgressAndCancel() throws Exception {
        Path big = target.resolve("large-1gib.mana");
        long t0 = System.nanoTime();
        ManaImageWriter.writeLarge(big, "big", 0, 1, 1, 1L << 30, 20261130);
        double writeS = (System.nanoTime() - t0) / 1e9;
        assertTrue(Files.size(big) > (1L << 30));
        long[] times = Ui.sync(() -> {
            Display d = Display.getCurrent();
            long start = System.nanoTime();
            ImageEditor ed = (ImageEditor) ImageInputs.open(page(), big.toFile());
            long created = System.nanoTime();
            long deadline = start + TimeUnit.SECONDS.toNanos(10);
            while (ed.getFirstPaintNanos() == 0 && System.nanoTime() < deadline) {
                if (!d.readAndDispatch()) {
                    Thread.sleep(1);
                }
            }
            return new long[] {start, created, ed.getFirstPaintNanos()};
        });
        assertTrue(times[2] != 0, "the overview was painted");
        double firstPaintMs = (times[2] - times[0]) / 1e6;
        double createdMs = (times[1] - times[0]) / 1e6;
        String line = String.format(java.util.Locale.ROOT,
            "image editor, %d-byte image: first page painted %.1f ms after open (editor created %.1f ms); image written in %.1f s",
            Files.size(big), firstPaintMs, createdMs, writeS);
        System.out.println(line);
        Files.writeString(target.resolve("image-editor-timing.txt"), line + "\n");
        assertTrue(firstPaintMs < 1000, line);
        ImageEditor ed = Ui.sync(() -> (ImageEditor) page().getActiveEditor());
        assertEquals("big", Ui.sync(ed::getOverview).get(Messages.OverviewPage_program));
        assertTrue(Ui.sync(ed::getRegions).size() == 2);

        // verify: progress arrives; Cancel (pressed at the second report, 16 MiB into the 1 GiB) stops it
        java.util.concurrent.atomic.AtomicInteger reports = new java.util.concurrent.atomic.AtomicInteger();
        ed.setVerifyProgressListener(done -> {
            if (reports.incrementAndGet() == 2) {
                ed.cancelVerify(); // as the Cancel button does, from the job's thread at a known point
            }
        });
        Ui.sync(ed::startVerify);
        Ui.waitFor("verify to stop", 30_000, () -> ed.getVerifyVerdict() != null);
        assertEquals(Messages.Verification_canceled, Ui.sync(ed::getVerifyVerdict));
        assertFalse(Ui.sync(ed::isVerifying));
        assertTrue(reports.get() >= 2 && reports.get() < 120, reports.get() + " progress reports before the cancel took");
        ed.setVerifyProgressListener(null);
        // and to the end: progress all the way, OK
        Ui.sync(ed::startVerify);
        Ui.waitFor("verify of 1 GiB", 120_000, () -> ed.getVerifyVerdict() != null);
        assertEquals(Messages.Verification_ok, Ui.sync(ed::getVerifyVerdict), Ui.sync(ed::getVerifyStatus));
        assertTrue(Ui.sync(ed::getVerifyProgressEvents) >= 100, "one progress report per 8 MiB read");
        assertTrue(Ui.sync(ed::getVerifyStatus).startsWith(Ui.head(Messages.VerifyPage_done, Messages.Verification_ok, "1.0 GiB")),
            Ui.sync(ed::getVerifyStatus));
    }
}
