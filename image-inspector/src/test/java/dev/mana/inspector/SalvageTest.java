package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.inspector.testkit.TestManaImage;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Images#salvage}, the per-region verify problems and {@link HexDump} (what the Eclipse editor needs). */
class SalvageTest {
    @TempDir
    Path tmp;

    @Test
    void aSoundImageOpensCleanly() throws Exception {
        Path p = TestManaImage.sample(1).write(tmp.resolve("a.mana"));
        Salvaged s = Images.salvage(p);
        try (CheckpointImage img = s.image()) {
            assertFalse(s.damaged());
            assertEquals("hello", img.summary().program());
        }
    }

    @Test
    void aTruncatedImageStillShowsItsHeader() throws Exception {
        TestManaImage t = TestManaImage.sample(2);
        Path p = t.write(tmp.resolve("t.mana"));
        byte[] before = Files.readAllBytes(p);
        long half = Files.size(p) / 2;
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(half);
        }
        assertEquals(ErrorKind.TRUNCATED, assertThrows(ImageException.class, () -> Images.open(p)).kind());
        Salvaged s = Images.salvage(p);
        assertTrue(s.damaged());
        assertEquals(ErrorKind.TRUNCATED, s.problems().get(0).kind());
        try (CheckpointImage img = s.image()) {
            ImageSummary sum = img.summary();
            assertEquals("hello", sum.program());
            assertEquals(t.generation, sum.generation());
            assertEquals(-1, sum.regionCount(), "no section table: counts unknown");
            ImageException e = assertThrows(ImageException.class, img::regions);
            assertEquals(ErrorKind.TRUNCATED, e.kind());
            VerifyReport v = img.verify(null);
            assertEquals(ErrorKind.TRUNCATED, v.worstKind());
        }
        assertArrayEquals(Arrays.copyOf(before, (int) half), Files.readAllBytes(p), "salvage never writes");
    }

    @Test
    void aBadHeaderChecksumIsReportedNotFatal() throws Exception {
        Path p = TestManaImage.sample(3).write(tmp.resolve("c.mana"));
        byte[] b = Files.readAllBytes(p);
        b[100] ^= 1; // the host name
        Files.write(p, b);
        Salvaged s = Images.salvage(p);
        assertEquals(ErrorKind.CORRUPT, s.problems().get(0).kind());
        try (CheckpointImage img = s.image()) {
            assertFalse(img.regions().isEmpty(), "the sections are intact");
        }
    }

    @Test
    void notAnImageHasNoImage() throws Exception {
        Path p = Files.writeString(tmp.resolve("x.mana"), "hello world, not an image");
        Salvaged s = Images.salvage(p);
        assertNull(s.image());
        assertEquals(ErrorKind.NOT_AN_IMAGE, s.problems().get(0).kind());
    }

    @Test
    void aCorruptPayloadNamesItsRegion() throws Exception {
        TestManaImage t = TestManaImage.sample(4);
        Path p = t.write(tmp.resolve("r.mana"));
        int region;
        long off;
        try (CheckpointImage img = Images.open(p)) {
            MemoryRegion r = img.regions().stream().filter(x -> x.storedBytes() > 0).findFirst().orElseThrow();
            region = r.index();
            off = r.payloadOffset() + 10;
        }
        byte[] b = Files.readAllBytes(p);
        b[(int) off] ^= 0x40;
        Files.write(p, b);
        try (CheckpointImage img = Images.open(p)) {
            VerifyReport v = img.verify(null);
            assertEquals(1, v.problems().size(), v.problems().toString());
            assertEquals(region, v.problems().get(0).region());
            assertEquals(ErrorKind.CORRUPT, v.problems().get(0).kind());
        }
    }

    @Test
    void hexDumpLinesMatchTheCommand() throws Exception {
        byte[] b = "ABCDEFGHIJKLMNOPqr\0".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        String s = HexDump.lines(0x1000, b, b.length);
        assertEquals("0000000000001000  41 42 43 44 45 46 47 48  49 4a 4b 4c 4d 4e 4f 50  |ABCDEFGHIJKLMNOP|\n"
            + "0000000000001010  71 72 00                                          |qr.|\n", s);
        Path p = TestManaImage.sample(5).write(tmp.resolve("h.mana"));
        try (CheckpointImage img = Images.open(p)) {
            MemoryRegion r = img.regions().stream().filter(x -> x.storedBytes() > 0).findFirst().orElseThrow();
            ByteBuffer buf = ByteBuffer.allocate(32);
            img.readMemory(r.start(), buf);
            assertNotNull(HexDump.line(r.start(), buf.array(), 0, 16));
            assertEquals("", r.whyNotSaved());
        }
    }
}
