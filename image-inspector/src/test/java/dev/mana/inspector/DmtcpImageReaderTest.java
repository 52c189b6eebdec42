package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.inspector.testkit.TestDmtcpImage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DmtcpImageReaderTest {
    @TempDir
    Path tmp;

    static final String EXPECTED_SIMULATE = TestDmtcpImage.SAMPLE_SIMULATE;

    private DmtcpImage open(TestDmtcpImage t, boolean gz) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("ckpt_rank_3"));
        Path p = t.write(dir.resolve("ckpt_ping_pong_1a2b3c4d-31337-65f0a1b2" + (gz ? "_gz" : "") + ".dmtcp"), gz);
        return (DmtcpImage) Images.open(p);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void simulateMatchesMtcpRestartLineForLine(boolean gz) throws Exception {
        try (DmtcpImage img = open(TestDmtcpImage.sample(1), gz)) {
            assertEquals(gz, img.compressed());
            assertEquals(EXPECTED_SIMULATE, img.simulate());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void summaryAndMemoryMap(boolean gz) throws Exception {
        try (DmtcpImage img = open(TestDmtcpImage.sample(2), gz)) {
            ImageSummary s = img.summary();
            assertEquals(ImageFormat.DMTCP_V4, s.format());
            assertEquals("ping_pong", s.program());
            assertEquals("/home/user/ping_pong", s.executable());
            assertEquals(31337, s.pid());
            assertEquals(3, s.rank()); // from ckpt_rank_3/
            assertEquals(4, s.nranks());
            assertEquals("1a2b3c4d", s.host());
            assertEquals(2, s.generation());
            assertEquals(8, s.regionCount());
            assertEquals(14, img.areas().size());
            List<MemoryRegion> rs = img.regions();
            MemoryRegion heap = rs.get(3);
            assertEquals("[heap]", heap.name());
            assertTrue(heap.anonymous());
            assertEquals(0x6000, heap.mappedBytes());
            assertEquals(0x3000, heap.storedBytes());
            assertEquals(0x3000, heap.zeroBytes());
            assertEquals("rw-s", rs.get(5).permissions());
            assertEquals(Half.UPPER, rs.get(0).half());
            long mapped = rs.stream().mapToLong(MemoryRegion::mappedBytes).sum();
            assertEquals(mapped, s.mappedBytes());
            assertEquals(s.mappedBytes(), s.storedBytes() + s.zeroBytes());
            assertEquals(0x7ffff7a00000L, img.header().restoreBufStart());
            assertEquals(4, img.header().numPeers());
            VerifyReport r = img.verify(null);
            assertTrue(r.ok(), r.problems().toString());
            assertFalse(r.checksums());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void readMemoryFollowsParentAndChildren(boolean gz) throws Exception {
        TestDmtcpImage t = TestDmtcpImage.sample(3);
        try (DmtcpImage img = open(t, gz)) {
            // heap: child 0 data (8192), child 1 zero (12288), child 2 data (4096)
            byte[] got = new byte[0x6000];
            img.readMemory(0x555555600000L, ByteBuffer.wrap(got));
            byte[] want = new byte[0x6000];
            System.arraycopy(t.areas.get(4).data, 0, want, 0, 8192);
            System.arraycopy(t.areas.get(6).data, 0, want, 0x5000, 4096);
            assertArrayEquals(want, got);
            byte[] ld = new byte[100];
            img.readMemory(0x80000000L + 10, ByteBuffer.wrap(ld));
            assertArrayEquals(Arrays.copyOfRange(t.areas.get(0).data, 10, 110), ld);
            assertEquals(ErrorKind.NOT_FOUND, assertThrows(ImageException.class,
                    () -> img.readMemory(0x1000, ByteBuffer.allocate(4))).kind());
        }
    }

    @Test
    void fileShorterThanItsMappingStoresMmapFileSizeBytes() throws Exception {
        TestDmtcpImage t = new TestDmtcpImage();
        java.util.Random r = new java.util.Random(9);
        TestDmtcpImage.Area a = t.file(0x400000L, 5, false, "/data/short.bin", TestDmtcpImage.bytes(r, 5000));
        a.size = 8192; // the mapping is two pages, the file only 5000 bytes: 5000 bytes of data follow
        a.endAddr = a.addr + a.size;
        t.file(0x402000L, 1, false, "/data/next.bin", TestDmtcpImage.bytes(r, 4096));
        try (DmtcpImage img = open(t, false)) {
            List<DmtcpArea> as = img.areas();
            assertEquals(2, as.size());
            assertEquals(5000, as.get(0).dataLength());
            assertEquals(as.get(0).dataOffset() + 5000 + 4096, as.get(1).dataOffset()); // unaligned, as stored
            byte[] b = new byte[100];
            img.readMemory(0x400000L + 4900, ByteBuffer.wrap(b));
            assertArrayEquals(Arrays.copyOfRange(a.data, 4900, 5000), b);
            // past the file's end the mapping reads as zeros, as restore recreates it (a python3
            // image's locale archive is such a region: diff and extract must read it)
            byte[] tail = new byte[8192 - 4900];
            Arrays.fill(tail, (byte) 0x55);
            img.readMemory(0x400000L + 4900, ByteBuffer.wrap(tail));
            assertArrayEquals(Arrays.copyOfRange(a.data, 4900, 5000), Arrays.copyOf(tail, 100));
            for (int i = 100; i < tail.length; i++) {
                assertEquals(0, tail[i], "byte " + (4900 + i));
            }
            assertTrue(ImageDiff.compare(img, img, null).identical());
            byte[] n = new byte[16];
            img.readMemory(0x402000L, ByteBuffer.wrap(n));
            assertArrayEquals(Arrays.copyOf(t.areas.get(1).data, 16), n);
            assertTrue(img.verify(null).ok());
            assertEquals(5000, img.regions().get(0).storedBytes());
        }
    }

    @Test
    void regionWithManyChildHeadersReadsInOrder() throws Exception {
        // 2,048 child headers (alternately data and zero pages) under one parent: read back whole
        TestDmtcpImage t = new TestDmtcpImage();
        java.util.Random r = new java.util.Random(11);
        long base = 0x7f0000000000L;
        int pages = 2048;
        byte[] want = new byte[pages * 4096];
        List<byte[]> chunks = new java.util.ArrayList<>();
        long[] zeros = new long[pages];
        for (int i = 0; i < pages; i++) {
            byte[] c = i % 2 == 0 ? TestDmtcpImage.bytes(r, 4096) : null;
            chunks.add(c);
            zeros[i] = 4096;
            if (c != null) {
                System.arraycopy(c, 0, want, i * 4096, 4096);
            }
        }
        t.anon(base, 3, "[heap]", chunks, zeros);
        try (DmtcpImage img = open(t, false)) {
            assertEquals(1, img.regions().size());
            byte[] got = new byte[want.length];
            img.readMemory(base, ByteBuffer.wrap(got));
            assertArrayEquals(want, got);
            assertTrue(ImageDiff.compare(img, img, null).identical());
        }
    }

    @Test
    void aMovedBoundaryIsNotCountedTwice() throws Exception {
        java.util.Random r = new java.util.Random(12);
        byte[] one = TestDmtcpImage.bytes(r, 2 * 4096);
        byte[] two = TestDmtcpImage.bytes(r, 2 * 4096);
        TestDmtcpImage ta = new TestDmtcpImage();
        ta.file(0x400000L, 1, false, "/data/x", one);
        ta.file(0x402000L, 1, false, "/data/x", two);
        // B: the same bytes, the boundary between the two regions one page higher, one byte changed
        TestDmtcpImage tb = new TestDmtcpImage();
        byte[] grown = Arrays.copyOf(one, 3 * 4096);
        System.arraycopy(two, 0, grown, 2 * 4096, 4096);
        tb.file(0x400000L, 1, false, "/data/x", grown);
        byte[] shrunk = Arrays.copyOfRange(two, 4096, 2 * 4096);
        shrunk[7] ^= 1;
        tb.file(0x403000L, 1, false, "/data/x", shrunk);
        Path pa = ta.write(tmp.resolve("ma.dmtcp"), false);
        Path pb = tb.write(tmp.resolve("mb.dmtcp"), false);
        try (CheckpointImage a = Images.open(pa); CheckpointImage b = Images.open(pb)) {
            ImageDiff d = ImageDiff.compare(a, b, null);
            assertEquals(1, d.bytesChanged(), d.regions().toString());
            assertEquals(1, d.count(ImageDiff.Kind.CHANGED));
            assertEquals(1, d.count(ImageDiff.Kind.REMOVED));
            assertEquals(1, d.count(ImageDiff.Kind.ADDED));
            assertFalse(d.identical());
        }
    }

    @Test
    void verifyFindsBytesAfterTheImageAndASecondGzipMember() throws Exception {
        byte[] plain = TestDmtcpImage.sample(5).bytes();
        assertTrue(verifyProblems(plain).isEmpty());
        assertTrue(verifyProblems(TestDmtcpImage.gzip(plain)).isEmpty());
        byte[] garbage = "left over\n".getBytes();
        List<Problem> p = verifyProblems(concat(plain, garbage));
        assertEquals(1, p.size(), p.toString());
        assertTrue(p.get(0).message().contains("10 bytes after the end marker"), p.toString());
        byte[] gz = TestDmtcpImage.gzip(plain);
        p = verifyProblems(concat(gz, garbage));
        assertEquals(1, p.size(), p.toString());
        assertTrue(p.get(0).message().contains("garbage after the gzip stream (file offset " + gz.length + ")"), p.toString());
        p = verifyProblems(concat(gz, TestDmtcpImage.gzip(garbage)));
        assertTrue(p.toString().contains("a second gzip member at file offset " + gz.length), p.toString());
        assertTrue(p.toString().contains("after the end marker"), p.toString());
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    private List<Problem> verifyProblems(byte[] bytes) throws Exception {
        Path p = tmp.resolve("v_" + System.nanoTime() + ".dmtcp");
        Files.write(p, bytes);
        try (CheckpointImage img = Images.open(p)) {
            img.regions();
            return img.verify(null).problems();
        }
    }

    private ErrorKind failure(byte[] bytes) throws Exception {
        Path p = tmp.resolve("bad_" + System.nanoTime() + ".dmtcp");
        Files.write(p, bytes);
        try (CheckpointImage img = Images.open(p)) {
            img.summary();
            img.regions();
            VerifyReport r = img.verify(null);
            return r.ok() ? null : r.worstKind();
        } catch (ImageException e) {
            return e.kind();
        }
    }

    @Test
    void badInputHasDistinctClasses() throws Exception {
        byte[] plain = TestDmtcpImage.sample(4).bytes();
        byte[] v3 = plain.clone();
        v3[24] = '3';
        assertEquals(ErrorKind.UNSUPPORTED, failure(v3));
        // cut inside a region's data, and right before the end marker
        assertEquals(ErrorKind.TRUNCATED, failure(Arrays.copyOf(plain, 3 * 4096 + 100)));
        assertEquals(ErrorKind.TRUNCATED, failure(Arrays.copyOf(plain, plain.length - 4096)));
        assertEquals(ErrorKind.TRUNCATED, failure(Arrays.copyOf(plain, 5000)));
        byte[] gz = TestDmtcpImage.gzip(plain);
        assertEquals(ErrorKind.TRUNCATED, failure(Arrays.copyOf(gz, gz.length / 2)));
        assertEquals(ErrorKind.TRUNCATED, failure(Arrays.copyOf(gz, gz.length - 4))); // trailer cut
        byte[] gzBad = gz.clone();
        gzBad[gz.length - 6] ^= 0x55; // gzip CRC32 in the trailer
        assertEquals(ErrorKind.CORRUPT, failure(gzBad));
        assertEquals(ErrorKind.NOT_AN_IMAGE, failure(TestDmtcpImage.gzip("a gzip'd changelog\n".getBytes())));
        assertEquals(ErrorKind.TRUNCATED, failure(TestDmtcpImage.gzip("DMTCP_CHECKPOINT_IMA".getBytes())));
        assertEquals(ErrorKind.TRUNCATED, failure(TestDmtcpImage.gzip(Arrays.copyOf(plain, 3000))));
        byte[] junk = {0x1f, (byte) 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        ErrorKind k = failure(junk);
        assertTrue(k == ErrorKind.CORRUPT || k == ErrorKind.TRUNCATED, String.valueOf(k));
        byte[] absurd = plain.clone();
        ByteBuffer.wrap(absurd).order(ByteOrder.LITTLE_ENDIAN).putLong(2 * 4096 + 16, 1L << 60); // first region's size
        ByteBuffer.wrap(absurd).order(ByteOrder.LITTLE_ENDIAN).putLong(2 * 4096 + 72, -1L); // so the size is its length
        assertEquals(ErrorKind.MALFORMED, failure(absurd));
        byte[] copies = plain.clone();
        copies[4096 + 300] ^= 1; // second header copy differs
        assertEquals(ErrorKind.CORRUPT, failure(copies));
    }
}
