package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mana.eclipse.internal.ui.images.ImageEditor;
import dev.mana.eclipse.internal.ui.images.ImageInputs;
import dev.mana.eclipse.internal.ui.images.Messages;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.HexDump;
import dev.mana.inspector.Images;
import dev.mana.inspector.MemoryRegion;

/**
 * The image editor on incremental images the real runtime wrote: incrmem (core-native/tests/process) under
 * {@code mana_launch --incremental}, checkpointed three times by signal 40 without a coordinator (as incr_test.sh
 * does). Generation 3 is shown with its chain: the overview names its parent, the Hex page shows the pages it leaves
 * to generation 1 as they are there (the file alone has zeros). With generation 1 gone, the banner names it.
 */
class IncrementalImagesTest {
    static Path tmp;
    static Path rankDir;

    @BeforeAll
    static void threeGenerations() throws Exception {
        Path root = Path.of(System.getProperty("mana.root"));
        tmp = Files.createTempDirectory("mana-incremental-ui");
        Path data = Files.createDirectories(tmp.resolve("data"));
        rankDir = tmp.resolve("ck/ckpt_rank_0");
        ProcessBuilder pb = new ProcessBuilder(root.resolve("bin/mana_launch").toString(), "--incremental", "--ckptdir",
            tmp.resolve("ck").toString(), root.resolve("core-native/build/tests/process/incrmem").toString(),
            data.toString(), "3").redirectError(tmp.resolve("incrmem.err").toFile());
        for (String v : new String[] {"MANA_COORD_HOST", "MANA_COORD_PORT", "MANA_COORD_SECRET", "MANA_CKPT_DIR",
            "MANA_COMPRESS", "MANA_FORKED"}) {
            pb.environment().remove(v);
        }
        pb.environment().put("MANA_NO_COORD", "1");
        pb.environment().put("MANA_DEBUG", "1");
        pb.environment().put("MANA_INCREMENTAL", "1");
        pb.environment().put("MANA_INCREMENTAL_FULL_EVERY", "10");
        Process p = pb.start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (int g = 1; g <= 3; g++) {
                // readLine blocks until incrmem prints or ends (then null): bounded by the program's own 60 s waits
                for (String l; !("ready " + g).equals(l = out.readLine()); ) {
                    assertTrue(l != null && !l.startsWith("FAIL"), "incrmem: " + l + " " + Files.readString(tmp.resolve("incrmem.err")));
                }
                new ProcessBuilder("kill", "-40", Long.toString(p.pid())).start().waitFor();
                Path img = gen(g);
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!Files.exists(img)) {
                    assertTrue(p.isAlive() && System.nanoTime() < end, "no image of generation " + g + ": "
                        + Files.readString(tmp.resolve("incrmem.err")));
                    Thread.sleep(10);
                }
                Files.createFile(data.resolve("go_" + g));
            }
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    static Path gen(int g) {
        return rankDir.resolve("ckpt_incrmem_gen" + g + ".mana");
    }

    @AfterEach
    void closeEditors() {
        Ui.sync(() -> PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage().closeAllEditors(false));
    }

    @AfterAll
    static void cleanUp() throws Exception {
        try (var s = Files.walk(tmp)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    static ImageEditor open(Path image) {
        return Ui.sync(() -> (ImageEditor) ImageInputs.open(
            PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage(), image.toFile()));
    }

    /** incrmem's 24 MiB from malloc: written in full before generation 1, a few pages changed after. */
    static MemoryRegion mallocRegion(CheckpointImage img) throws Exception {
        return img.regions().stream()
            .filter(r -> r.saved() && r.anonymous() && r.mappedBytes() > 24L << 20 && r.mappedBytes() < 32L << 20)
            .findFirst().orElseThrow();
    }

    @Test
    void theEditorReadsThroughTheChain() throws Exception {
        ImageEditor ed = open(gen(3));
        assertFalse(Ui.sync(ed::isBannerShown), () -> Ui.sync(ed::getBannerText));
        Map<String, String> o = Ui.sync(ed::getOverview);
        String on = NLS.bind(Messages.OverviewPage_chainValue, new Object[] {"ckpt_incrmem_gen2.mana", 2, 2});
        assertEquals(NLS.bind(Messages.OverviewPage_chainRead, on, 3), o.get(Messages.OverviewPage_chain));
        byte[] chained = new byte[16];
        byte[] alone = new byte[16];
        MemoryRegion r;
        try (CheckpointImage c = Images.openChain(gen(3)); CheckpointImage a = Images.open(gen(3))) {
            r = mallocRegion(c);
            c.readMemory(r.start(), ByteBuffer.wrap(chained));
            a.readMemory(r.start(), ByteBuffer.wrap(alone));
        }
        assertNotEquals(HexDump.line(r.start(), alone, 0, 16), HexDump.line(r.start(), chained, 0, 16),
            "the page is generation 1's: the file alone reads it as zeros");
        Ui.sync(() -> ed.showHex(r.start()));
        assertEquals(HexDump.line(r.start(), chained, 0, 16), ImageBrowsingTest.firstLine(Ui.sync(ed::getHexText)));
    }

    @Test
    void aMissingParentIsNamedInTheBanner() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("missing"));
        Files.copy(gen(2), dir.resolve(gen(2).getFileName()));
        Files.copy(gen(3), dir.resolve(gen(3).getFileName()));
        ImageEditor ed = open(dir.resolve(gen(3).getFileName()));
        assertTrue(Ui.sync(ed::isBannerShown));
        String banner = Ui.sync(ed::getBannerText);
        assertTrue(banner.startsWith(Ui.head(Messages.ImageEditor_problem, "Incomplete checkpoint", "INCOMPLETE"))
            && banner.contains("ckpt_incrmem_gen1.mana (generation 1), which is gone"), banner);
        Map<String, String> o = Ui.sync(ed::getOverview);
        String on = NLS.bind(Messages.OverviewPage_chainValue, new Object[] {"ckpt_incrmem_gen2.mana", 2, 2});
        assertEquals(NLS.bind(Messages.OverviewPage_chainUnread, on), o.get(Messages.OverviewPage_chain));
        assertEquals("3", o.get(Messages.OverviewPage_generation), "the image itself is shown");
    }
}
