package dev.mana.inspector.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.Images;
import dev.mana.inspector.testkit.TestManaImage;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What extract's --region and --range select in the test kit's sample image. */
class MemorySelectionTest {
    static final long[] HEAP = {0x555555600000L, 0x555555608000L};

    @TempDir
    Path tmp;

    private CheckpointImage sample() throws Exception {
        return Images.open(TestManaImage.sample(21).write(tmp.resolve("ckpt_hello_gen1.mana")));
    }

    @Test
    void aRegionByIndexAddressOrName() throws Exception {
        try (CheckpointImage img = sample()) {
            assertArrayEquals(HEAP, MemorySelection.select(img, "2", null));
            assertArrayEquals(HEAP, MemorySelection.select(img, "0x555555601234", null));
            assertArrayEquals(HEAP, MemorySelection.select(img, "[heap]", null));
            // a name's last component: the first region of that file
            assertArrayEquals(new long[] {0x555555554000L, 0x555555556000L}, MemorySelection.select(img, "hello", null));
            assertArrayEquals(new long[] {0x7ffff7a00000L, 0x7ffff7a04000L}, MemorySelection.select(img, "libc.so.6", null));
        }
    }

    @Test
    void noSuchRegionIsNotFound() throws Exception {
        try (CheckpointImage img = sample()) {
            for (String r : new String[] {"99", "0x10", "libnothing.so"}) {
                ImageException e = assertThrows(ImageException.class, () -> MemorySelection.select(img, r, null), r);
                assertEquals(ErrorKind.NOT_FOUND, e.kind(), r);
            }
        }
    }

    @Test
    void aRangeIsTakenAsGivenButMustBeOrdered() throws Exception {
        try (CheckpointImage img = sample()) {
            assertArrayEquals(new long[] {0x1000, 0x3000}, MemorySelection.select(img, null, "0x1000-0x3000"));
            assertArrayEquals(new long[] {4096, 8192}, MemorySelection.select(img, null, "4096-8192"));
            assertEquals("--range wants START-END", assertThrows(CommandLine.ParameterException.class,
                    () -> MemorySelection.select(img, null, "0x1000")).getMessage());
            assertEquals("--range: END must be above START", assertThrows(CommandLine.ParameterException.class,
                    () -> MemorySelection.select(img, null, "0x3000-0x1000")).getMessage());
        }
    }
}
