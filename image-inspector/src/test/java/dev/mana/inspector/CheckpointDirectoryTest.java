package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.inspector.testkit.TestDmtcpImage;
import dev.mana.inspector.testkit.TestManaImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointDirectoryTest {
    @TempDir
    Path ckpt;

    private void image(int rank, int nranks, int gen) throws Exception {
        image(rank, rank, nranks, gen, "ckpt_hello_gen" + gen + ".mana");
    }

    private void image(int dirRank, int rank, int nranks, int gen, String name) throws Exception {
        TestManaImage t = TestManaImage.sample(rank * 10 + gen);
        t.rank = rank;
        t.nranks = nranks;
        t.generation = gen;
        t.write(Files.createDirectories(ckpt.resolve("ckpt_rank_" + dirRank)).resolve(name));
    }

    @Test
    void newestGenerationEveryRankHas() throws Exception {
        image(0, 3, 1);
        image(0, 3, 2);
        image(1, 3, 1);
        image(2, 3, 1);
        image(2, 3, 2);
        CheckpointDirectory d = CheckpointDirectory.scan(ckpt);
        assertTrue(d.restartable(), d.problems().toString());
        assertEquals(3, d.nranks());
        assertEquals(1, d.newestCommonGeneration());
        image(1, 3, 2);
        d = CheckpointDirectory.scan(ckpt);
        assertEquals(2, d.newestCommonGeneration());
        assertEquals(3 * Files.size(ckpt.resolve("ckpt_rank_1/ckpt_hello_gen2.mana")), d.bytesOfNewest(), 3 * 4096.0);
    }

    @Test
    void missingRanksMismatchesAndUnfinishedImages() throws Exception {
        image(0, 3, 1);
        image(2, 3, 1);
        CheckpointDirectory d = CheckpointDirectory.scan(ckpt);
        assertFalse(d.restartable());
        assertEquals(List.of(1L), d.missingRanks());
        image(1, 3, 1);
        assertTrue(CheckpointDirectory.scan(ckpt).restartable());
        // a dead writer's *.tmp (ours) or *.dmtcp.temp (DMTCP's) beside a complete generation: listed,
        // and restart goes ahead with that generation (it moves the unfinished image aside)
        Files.write(ckpt.resolve("ckpt_rank_1/ckpt_hello_gen2.mana.tmp"), new byte[100]);
        Files.write(ckpt.resolve("ckpt_rank_0/ckpt_hello_1234.dmtcp.temp"), new byte[100]);
        d = CheckpointDirectory.scan(ckpt);
        assertTrue(d.restartable(), d.problems().toString());
        assertEquals(2, d.tmpFiles().size());
        assertEquals(1, d.newestCommonGeneration());
        Files.delete(ckpt.resolve("ckpt_rank_0/ckpt_hello_1234.dmtcp.temp"));
        // with no complete image for rank 1, the unfinished one is named as the likely reason
        Files.delete(ckpt.resolve("ckpt_rank_1/ckpt_hello_gen1.mana"));
        d = CheckpointDirectory.scan(ckpt);
        assertFalse(d.restartable());
        assertTrue(d.problems().toString().contains("unfinished image"), d.problems().toString());
        Files.delete(ckpt.resolve("ckpt_rank_1/ckpt_hello_gen2.mana.tmp"));
        image(1, 2, 3, 2, "ckpt_hello_gen2.mana"); // rank 2's image in rank 1's directory
        d = CheckpointDirectory.scan(ckpt);
        assertFalse(d.restartable());
        assertTrue(d.problems().toString().contains("holds rank 2"), d.problems().toString());
    }

    @Test
    void damagedImagesAndNamesAreReported() throws Exception {
        image(0, 2, 1);
        image(1, 1, 2, 1, "ckpt_hello_gen7.mana"); // name says 7, header says 1
        CheckpointDirectory d = CheckpointDirectory.scan(ckpt);
        assertFalse(d.restartable());
        assertTrue(d.problems().toString().contains("named generation 7"), d.problems().toString());
        Files.delete(ckpt.resolve("ckpt_rank_1/ckpt_hello_gen7.mana"));
        Files.write(ckpt.resolve("ckpt_rank_1/ckpt_hello_gen1.mana"), new byte[] {'M', 'A', 'N'});
        d = CheckpointDirectory.scan(ckpt);
        assertFalse(d.restartable());
        assertTrue(d.problems().toString().contains("truncated"), d.problems().toString());
        assertEquals(List.of(1L), d.missingRanks());
    }

    @Test
    void dmtcpDirectoriesAndNonDirectories() throws Exception {
        for (int r = 0; r < 4; r++) {
            Path dir = Files.createDirectories(ckpt.resolve("ckpt_rank_" + r));
            TestDmtcpImage.sample(r).write(dir.resolve("ckpt_ping_pong_1a2b3c4d-3133" + r + "-65f0a1b2.dmtcp"), r % 2 == 0);
            Files.write(dir.resolve("header.mana"), new byte[] {1, 2, 3});
        }
        CheckpointDirectory d = CheckpointDirectory.scan(ckpt);
        assertTrue(d.restartable(), d.problems().toString());
        assertEquals(4, d.nranks());
        assertEquals(2, d.newestCommonGeneration());
        assertEquals(ErrorKind.INCOMPLETE,
                assertThrows(ImageException.class, () -> CheckpointDirectory.scan(ckpt.resolve("ckpt_rank_0"))).kind());
        assertEquals(ErrorKind.IO,
                assertThrows(ImageException.class, () -> CheckpointDirectory.scan(ckpt.resolve("nothing"))).kind());
    }
}
