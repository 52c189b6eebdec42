package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.mana.eclipse.core.CheckpointDirectoryValidator;
import dev.mana.eclipse.core.CheckpointValidation;

/** Checkpoint-directory validation on good and broken directories. */
class CheckpointDirectoryValidatorTest {

    @TempDir
    Path dir;

    private void image(int rank, int gen, int size) throws IOException {
        image(rank, "ckpt_ping_gen" + gen + ".mana", size);
    }

    private void image(int rank, String name, int size) throws IOException {
        Path d = dir.resolve("ckpt_rank_" + rank);
        Files.createDirectories(d);
        Files.write(d.resolve(name), new byte[size]);
    }

    @Test
    void goodDirectory() throws IOException {
        image(0, 3, 100);
        image(1, 3, 200);
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertTrue(v.isValid(), v.problems().toString());
        assertEquals(2, v.ranks());
        assertEquals(3, v.generation());
        assertEquals(300, v.totalBytes());
        assertEquals(dir.resolve("ckpt_rank_1/ckpt_ping_gen3.mana").toFile(), v.images().get(1));
        assertEquals("2 ranks, generation 3, 300 B", v.summary());
        assertTrue(CheckpointDirectoryValidator.hasCheckpoint(dir.toFile()));
    }

    @Test
    void newestCommonGenerationIsTaken() throws IOException {
        image(0, 1, 10);
        image(1, 1, 10);
        image(0, 2, 10); // rank 1 has not written generation 2 (a checkpoint that was aborted)
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 0);
        assertTrue(v.isValid(), v.problems().toString());
        assertEquals(1, v.generation());
    }

    @Test
    void missingDirectory() {
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.resolve("nope").toFile(), 2);
        assertFalse(v.isValid());
        assertTrue(v.summary().contains("does not exist"), v.summary());
    }

    @Test
    void emptyDirectory() {
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertFalse(v.isValid());
        assertTrue(v.summary().contains("no ckpt_rank_N folder"), v.summary());
        assertFalse(CheckpointDirectoryValidator.hasCheckpoint(dir.toFile()));
    }

    @Test
    void missingRank() throws IOException {
        image(0, 1, 10);
        image(2, 1, 10);
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 0);
        assertFalse(v.isValid());
        assertTrue(v.problems().get(0).contains("Rank 1 missing"), v.problems().toString());
    }

    @Test
    void partialWrite() throws IOException {
        image(0, 2, 10);
        image(1, 2, 10);
        image(1, "ckpt_ping_gen3.mana.tmp", 5);
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertFalse(v.isValid());
        assertTrue(v.summary().contains("ckpt_rank_1/ckpt_ping_gen3.mana.tmp is a partial write"), v.summary());
    }

    @Test
    void partialWriteAtTopLevel() throws IOException {
        image(0, 2, 10);
        Files.write(dir.resolve("something.tmp"), new byte[1]);
        assertFalse(CheckpointDirectoryValidator.validate(dir.toFile(), 1).isValid());
    }

    @Test
    void differentGenerations() throws IOException {
        image(0, 1, 10);
        image(1, 2, 10);
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertFalse(v.isValid());
        assertTrue(v.summary().contains("different generations"), v.summary());
        assertTrue(v.summary().contains("rank 0: [1], rank 1: [2]"), v.summary());
    }

    @Test
    void rankWithoutImage() throws IOException {
        image(0, 1, 10);
        Files.createDirectories(dir.resolve("ckpt_rank_1"));
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertFalse(v.isValid());
        assertTrue(v.summary().contains("Rank 1 has no image"), v.summary());
    }

    @Test
    void rankCountMustMatch() throws IOException {
        image(0, 1, 10);
        image(1, 1, 10);
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 4);
        assertFalse(v.isValid());
        assertTrue(v.summary().contains("has 2 ranks but the job runs 4"), v.summary());
    }

    @Test
    void manaDmtcpImagesCountAsOneGeneration() throws IOException {
        image(0, "ckpt_ping_1a2b-40000-1.dmtcp", 10);
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 1);
        assertTrue(v.isValid(), v.problems().toString());
        assertEquals(0, v.generation());
        assertEquals(new File(dir.toFile(), "ckpt_rank_0/ckpt_ping_1a2b-40000-1.dmtcp"), v.images().get(0));
    }
}
