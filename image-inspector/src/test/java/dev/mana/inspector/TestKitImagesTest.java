package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.inspector.testkit.ManaImageWriter;
import dev.mana.inspector.testkit.TestManaImage;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test kit's one-call images (what the Eclipse tests write) read back and verify: the small one with its
 * content, zero pages stored too, and the large streamed one with every payload byte written and its CRC right.
 */
class TestKitImagesTest {
    @TempDir
    Path tmp;

    @Test
    void oneCallImagesVerify() throws Exception {
        byte[] content = "a checkpoint of sum".getBytes();
        Path p = ManaImageWriter.write(tmp.resolve("ckpt_rank_1/ckpt_sum_gen3.mana"), "sum", 1, 2, 3, content);
        try (ManaImage img = (ManaImage) Images.open(p)) {
            VerifyReport v = img.verify(null);
            assertTrue(v.ok(), v.problems().toString());
            assertEquals("sum", img.header().program());
            assertEquals(1, img.header().rank());
            assertEquals(3, img.header().generation());
            assertEquals(TestManaImage.PAGE, img.header().storedBytes(), "the one page, its zeros stored too");
            ByteBuffer b = ByteBuffer.allocate(content.length);
            img.readMemory(0x555555600000L, b);
            assertEquals(new String(content), new String(b.array()));
            assertEquals(1, img.threads().size());
        }
    }

    @Test
    void theLargeImageIsWrittenWhole() throws Exception {
        long payload = 5L << 20;
        Path p = ManaImageWriter.writeLarge(tmp.resolve("big.mana"), "big", 0, 1, 1, payload, 20261201);
        assertTrue(Files.size(p) > payload);
        try (ManaImage img = (ManaImage) Images.open(p)) {
            VerifyReport v = img.verify(null);
            assertTrue(v.ok(), v.problems().toString());
            assertEquals(payload, img.header().storedBytes());
        }
    }
}
