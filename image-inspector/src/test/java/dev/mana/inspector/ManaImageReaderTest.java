package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.inspector.testkit.TestManaImage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManaImageReaderTest {
    @TempDir
    Path tmp;

    private ManaImage open(TestManaImage t) throws Exception {
        Path p = t.write(tmp.resolve("img_" + System.nanoTime() + ".mana"));
        return (ManaImage) Images.open(p);
    }

    @Test
    void summaryComesFromTheHeader() throws Exception {
        TestManaImage t = TestManaImage.sample(1);
        try (ManaImage img = open(t)) {
            ImageSummary s = img.summary();
            assertEquals(ImageFormat.MANA_V1, s.format());
            assertEquals("hello", s.program());
            assertEquals("/home/user/hello", s.executable());
            assertEquals(4242, s.pid());
            assertEquals(0, s.rank());
            assertEquals(2, s.nranks());
            assertEquals("testhost", s.host());
            assertEquals("openmpi", s.mpi());
            assertEquals(1, s.generation());
            assertEquals(t.timeNs, s.timeUnixNs());
            assertEquals(t.regions.size(), s.regionCount());
            assertEquals(2, s.threadCount());
            assertEquals(3, s.fileCount());
            assertTrue(s.mpiSection());
            // saved: text 2 + data 3 + heap 8 + libc 4 + stack 4 pages mapped; stored 2+2+3+4+2 pages
            assertEquals(21L * 4096, s.mappedBytes());
            assertEquals(13L * 4096, s.storedBytes());
            assertEquals(8L * 4096, s.zeroBytes());
            assertEquals(Files.size(img.path()), s.fileSize());
        }
    }

    @Test
    void memoryMapHasRunsHalvesAndSizes() throws Exception {
        try (ManaImage img = open(TestManaImage.sample(2))) {
            List<MemoryRegion> rs = img.regions();
            assertEquals(9, rs.size());
            MemoryRegion data = rs.get(1);
            assertEquals("rw-p", data.permissions());
            assertEquals(2 * 4096, data.storedBytes());
            assertEquals(4096, data.zeroBytes());
            assertEquals(2, data.runCount());
            assertEquals(0, data.runFirstPage(0));
            assertEquals(2, data.runFirstPage(1));
            MemoryRegion heap = rs.get(2);
            assertEquals("[heap]", heap.name());
            assertTrue(heap.anonymous());
            assertEquals(List.of("anon", "heap"), heap.flagNames());
            assertEquals(3 * 4096, heap.storedBytes());
            assertEquals(Half.LOWER, rs.get(3).half());
            assertFalse(rs.get(3).saved());
            assertEquals(0, rs.get(3).zeroBytes());
            assertEquals(List.of("anon", "guard"), rs.get(4).flagNames());
            assertFalse(rs.get(4).saved());
            assertEquals(Half.KERNEL, rs.get(6).half());
            assertEquals(Half.KERNEL, rs.get(7).half());
            assertEquals(Half.UPPER, rs.get(8).half());
            assertEquals(rs.get(2), img.regionAt(0x555555600000L + 5000));
            assertNull(img.regionAt(0x1000));
        }
    }

    @Test
    void readMemoryServesStoredAndZeroPages() throws Exception {
        TestManaImage t = TestManaImage.sample(3);
        try (ManaImage img = open(t)) {
            for (TestManaImage.Region r : t.regions) {
                if (r.content == null) {
                    continue;
                }
                byte[] got = new byte[r.content.length];
                img.readMemory(r.start, ByteBuffer.wrap(got));
                assertArrayEquals(r.content, got, r.name);
                // an unaligned read across page boundaries
                byte[] part = new byte[5000];
                img.readMemory(r.start + 3000, ByteBuffer.wrap(part));
                assertArrayEquals(Arrays.copyOfRange(r.content, 3000, 8000), part);
            }
            ImageException lower = assertThrows(ImageException.class,
                    () -> img.readMemory(0x7f0000000000L, ByteBuffer.allocate(16)));
            assertEquals(ErrorKind.NOT_FOUND, lower.kind());
            assertTrue(lower.getMessage().contains("lower-half"), lower.getMessage());
            ImageException none = assertThrows(ImageException.class, () -> img.readMemory(0x1000, ByteBuffer.allocate(1)));
            assertEquals(ErrorKind.NOT_FOUND, none.kind());
            // a read running off the end of a region into unmapped space
            ImageException off = assertThrows(ImageException.class,
                    () -> img.readMemory(0x555555600000L + 8 * 4096 - 8, ByteBuffer.allocate(16)));
            assertEquals(ErrorKind.NOT_FOUND, off.kind());
        }
    }

    @Test
    void threadsFilesSignalsProcessAndMpi() throws Exception {
        try (ManaImage img = open(TestManaImage.sample(4))) {
            List<ThreadInfo> ts = img.threads();
            assertEquals(2, ts.size());
            assertTrue(ts.get(0).main());
            assertTrue(ts.get(1).checkpointThread());
            assertEquals(0x7ffff7d8a740L, ts.get(0).fsBase());
            assertEquals(0x555555555123L, ts.get(0).register("rip"));
            assertEquals(0x7ffffffe1000L, ts.get(0).register("rsp"));
            assertEquals(0x7ffffffde000L, ts.get(0).stackStart());
            List<OpenFile> fs = img.files();
            assertEquals(3, fs.size());
            assertEquals("/home/user/out.txt", fs.get(2).path());
            assertEquals("O_WRONLY|O_CREAT|O_APPEND", fs.get(2).openFlagNames());
            assertEquals(1234, fs.get(2).offset());
            assertTrue(fs.get(1).inherited());
            assertFalse(fs.get(2).inherited());
            SignalState s = img.signals();
            assertEquals(2, s.actions().size());
            assertEquals("SIGUSR1", SignalState.signalName(s.actions().get(0).signo()));
            assertTrue(s.actions().get(1).ignored());
            assertEquals(1, s.timers().size());
            assertEquals("ITIMER_REAL", s.timers().get(0).whichName());
            ProcessInfo p = img.process();
            assertEquals(List.of("./hello", "--size", "8"), p.argv());
            assertEquals("/home/user", p.cwd());
            SectionInfo mpi = img.mpiSection().orElseThrow();
            assertEquals(300, mpi.length());
            ByteBuffer b = ByteBuffer.allocate(300);
            img.readSection(mpi, 0, b);
            assertEquals(0x5a, b.get(0));
            assertEquals(6, img.sections().size());
        }
    }

    @Test
    void verifyAcceptsASoundImage() throws Exception {
        try (ManaImage img = open(TestManaImage.sample(5))) {
            VerifyReport r = img.verify(null);
            assertTrue(r.ok(), r.problems().toString());
            assertEquals(5, r.regionsChecked());
            assertEquals(6, r.sectionsChecked());
            assertEquals(Files.size(img.path()), r.bytesRead());
            assertTrue(r.checksums());
        }
    }

    @Test
    void verifyStreamsImagesLargerThanItsBuffersInOrder() throws Exception {
        TestManaImage t = TestManaImage.sample(14);
        java.util.Random rnd = new java.util.Random(14);
        byte[] big = TestManaImage.random(rnd, 6000 * 4096, 0);
        Arrays.fill(big, 100 * 4096, 300 * 4096, (byte) 0);
        t.region(0x7e0000000000L, big.length, 3, TestManaImage.ANON, "", big);
        t.region(0x7e1000000000L, big.length, 3, TestManaImage.ANON, "", big.clone());
        t.regions.sort((x, y) -> Long.compareUnsigned(x.start, y.start));
        byte[] img = t.bytes();
        assertTrue(img.length > 40 << 20);
        Path p = tmp.resolve("large.mana");
        Files.write(p, img);
        for (int i = 0; i < 3; i++) {
            try (CheckpointImage c = Images.open(p)) {
                VerifyReport r = c.verify(null);
                assertTrue(r.ok(), r.problems().toString());
                assertEquals(img.length, r.bytesRead());
            }
        }
        img[img.length / 2] ^= 0x10;
        Files.write(p, img);
        try (CheckpointImage c = Images.open(p)) {
            VerifyReport r = c.verify(null);
            assertEquals(1, r.problems().size(), r.problems().toString());
            assertEquals(ErrorKind.CORRUPT, r.worstKind());
        }
    }

    @Test
    void unknownSectionsAreSkipped() throws Exception {
        TestManaImage t = TestManaImage.sample(6);
        t.extraSections.add(new Object[] {99, new byte[24]});
        try (ManaImage img = open(t)) {
            assertEquals(7, img.sections().size());
            assertEquals("type 99", img.sections().get(6).name());
            assertTrue(img.verify(null).ok());
        }
    }

    @Test
    void opensAMultiGiBImageInstantly() throws Exception {
        TestManaImage t = TestManaImage.sample(7);
        TestManaImage.Region big = t.region(0x7e0000000000L, 6L << 30, 3, TestManaImage.ANON, "", null);
        big.hugeStored = 6L << 30;
        t.regions.remove(big);
        t.regions.add(3, big); // keep address order
        Path p = t.write(tmp.resolve("big.mana"));
        assertTrue(Files.size(p) > (6L << 30));
        long t0 = System.nanoTime();
        try (ManaImage img = (ManaImage) Images.open(p)) {
            ImageSummary s = img.summary();
            List<MemoryRegion> rs = img.regions();
            byte[] b = new byte[64];
            img.readMemory(0x7e0000000000L + (5L << 30), ByteBuffer.wrap(b));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(s.storedBytes() > (6L << 30));
            assertEquals(10, rs.size());
            assertTrue(ms < 2000, "open + summary + map + a read took " + ms + " ms");
        }
    }

    // ---- bad input, class by class ----

    private ImageException failOpen(byte[] bytes) throws Exception {
        Path p = tmp.resolve("bad_" + System.nanoTime() + ".mana");
        Files.write(p, bytes);
        return assertThrows(ImageException.class, () -> {
            try (CheckpointImage img = Images.open(p)) {
                img.summary();
                img.regions();
                VerifyReport r = img.verify(null);
                if (!r.ok()) {
                    throw new ImageException(r.worstKind(), r.problems().get(0).message());
                }
            }
        });
    }

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void wrongMagicIsNotAnImage() throws Exception {
        byte[] b = TestManaImage.sample(8).bytes();
        b[0] = 'X';
        assertEquals(ErrorKind.NOT_AN_IMAGE, failOpen(b).kind());
        assertEquals(ErrorKind.NOT_AN_IMAGE, failOpen("hello world, not an image".getBytes()).kind());
    }

    @Test
    void otherVersionsAreUnsupported() throws Exception {
        byte[] b = TestManaImage.sample(9).bytes();
        b[7] = '2';
        assertEquals(ErrorKind.UNSUPPORTED, failOpen(b).kind());
        byte[] c = TestManaImage.sample(9).bytes();
        le(c).putInt(8, 2);
        TestManaImage.fixHeaderCrc(c);
        assertEquals(ErrorKind.UNSUPPORTED, failOpen(c).kind());
    }

    @Test
    void shortFilesAreTruncated() throws Exception {
        byte[] b = TestManaImage.sample(10).bytes();
        assertEquals(ErrorKind.TRUNCATED, failOpen(new byte[0]).kind());
        assertEquals(ErrorKind.TRUNCATED, failOpen(Arrays.copyOf(b, 5)).kind());
        assertEquals(ErrorKind.TRUNCATED, failOpen(Arrays.copyOf(b, 200)).kind());
        assertEquals(ErrorKind.TRUNCATED, failOpen(Arrays.copyOf(b, b.length - 1)).kind());
        assertEquals(ErrorKind.TRUNCATED, failOpen(Arrays.copyOf(b, 4096 * 3)).kind());
    }

    @Test
    void damagedBytesAreCorrupt() throws Exception {
        byte[] b = TestManaImage.sample(11).bytes();
        b[100] ^= 1; // host name: header CRC
        assertEquals(ErrorKind.CORRUPT, failOpen(b).kind());
        byte[] c = TestManaImage.sample(11).bytes();
        c[4096 + 10] ^= 0x40; // first payload page
        ImageException e = failOpen(c);
        assertEquals(ErrorKind.CORRUPT, e.kind());
        assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
        byte[] d = TestManaImage.sample(11).bytes();
        d[2000] = 1; // page 0 padding must be zero
        assertEquals(ErrorKind.CORRUPT, failOpen(d).kind());
    }

    @Test
    void absurdCountsAndLengthsAreMalformed() throws Exception {
        byte[] b = TestManaImage.sample(12).bytes();
        le(b).putInt(32, 100_000); // section count
        TestManaImage.fixHeaderCrc(b);
        assertEquals(ErrorKind.MALFORMED, failOpen(b).kind());
        byte[] c = TestManaImage.sample(12).bytes();
        long table = le(c).getLong(24);
        le(c).putLong((int) table + 16, 1L << 40); // first section's length
        assertEquals(ErrorKind.MALFORMED, failOpen(c).kind());
        byte[] d = TestManaImage.sample(12).bytes();
        // MEMORY's count (second entry), huge: must be refused before allocating anything
        le(d).putInt((int) table + 32 + 28, Integer.MAX_VALUE);
        assertEquals(ErrorKind.MALFORMED, failOpen(d).kind());
        byte[] e = TestManaImage.sample(12).bytes();
        le(e).putLong(16, le(e).getLong(16) - 32); // file_size too small: trailing bytes
        TestManaImage.fixHeaderCrc(e);
        assertEquals(ErrorKind.MALFORMED, failOpen(e).kind());
    }

    @Test
    void verifyReportsInconsistentRecords() throws Exception {
        TestManaImage t = TestManaImage.sample(13);
        byte[] b = t.bytes();
        le(b).putLong(80, 12345); // stored_bytes
        TestManaImage.fixHeaderCrc(b);
        Path p = tmp.resolve("inconsistent.mana");
        Files.write(p, b);
        try (CheckpointImage img = Images.open(p)) {
            assertInstanceOf(ManaImage.class, img);
            VerifyReport r = img.verify(null);
            assertFalse(r.ok());
            assertEquals(ErrorKind.MALFORMED, r.worstKind());
            assertTrue(r.problems().get(0).message().contains("stored_bytes"), r.problems().toString());
        }
        byte[] c = t.bytes();
        le(c).putLong(72, 12345); // mapped_bytes: counted differently by writers; a note, not a problem
        TestManaImage.fixHeaderCrc(c);
        Files.write(p, c);
        try (CheckpointImage img = Images.open(p)) {
            VerifyReport r = img.verify(null);
            assertTrue(r.ok(), r.problems().toString());
            assertEquals(1, r.notes().size());
        }
    }
}
