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
import dev.mana.eclipse.core.ManaFormat;

import dev.mana.inspector.testkit.ManaImageWriter;
import dev.mana.inspector.testkit.TestDmtcpImage;

/** Checkpoint-directory validation on good and broken directories. */
class CheckpointDirectoryValidatorTest {

    @TempDir
    Path dir;

    /** A real image (the validator reads headers) of rank {@code rank} of {@code nranks} at {@code gen}. */
    private Path image(int rank, int nranks, int gen, int size) throws IOException {
        return ManaImageWriter.write(dir.resolve("ckpt_rank_" + rank).resolve("ckpt_ping_gen" + gen + ".mana"), "ping",
            rank, nranks, gen, new byte[size]);
    }

    private void file(int rank, String name, int size) throws IOException {
        Path d = dir.resolve("ckpt_rank_" + rank);
        Files.createDirectories(d);
        Files.write(d.resolve(name), new byte[size]);
    }

    @Test
    void goodDirectory() throws IOException {
        long bytes = Files.size(image(0, 2, 3, 100)) + Files.size(image(1, 2, 3, 5000));
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertTrue(v.isValid(), v.problems().toString());
        assertEquals(2, v.ranks());
        assertEquals(3, v.generation());
        assertEquals(bytes, v.totalBytes());
        assertEquals(dir.resolve("ckpt_rank_1/ckpt_ping_gen3.mana").toFile(), v.images().get(1));
        assertEquals("2 ranks, generation 3, " + ManaFormat.bytes(bytes), v.summary());
        assertTrue(CheckpointDirectoryValidator.hasCheckpoint(dir.toFile()));
    }

    @Test
    void newestCommonGenerationIsTaken() throws IOException {
        image(0, 2, 1, 10);
        image(1, 2, 1, 10);
        image(0, 2, 2, 10); // rank 1 has not written generation 2 (a checkpoint that was aborted)
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
        image(0, 3, 1, 10);
        image(2, 3, 1, 10);
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 0);
        assertFalse(v.isValid());
        assertTrue(v.problems().get(0).contains("Rank 1 missing"), v.problems().toString());
    }

    @Test
    void partialWrite() throws IOException {
        image(0, 2, 2, 10);
        image(1, 2, 2, 10);
        file(1, "ckpt_ping_gen3.mana.tmp", 5);
        // generation 2 is complete: restart moves the dead writer's generation-3 file aside and uses it
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertTrue(v.isValid(), v.problems().toString());
        assertEquals(2, v.generation());
        // with no complete generation, the partial write is named as the reason
        Files.delete(dir.resolve("ckpt_rank_1/ckpt_ping_gen2.mana"));
        v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertFalse(v.isValid());
        assertTrue(String.join(" ", v.problems()).contains("ckpt_rank_1/ckpt_ping_gen3.mana.tmp is a partial write"),
            v.problems().toString());
    }

    @Test
    void partialWriteAtTopLevel() throws IOException {
        image(0, 1, 2, 10);
        assertTrue(CheckpointDirectoryValidator.validate(dir.toFile(), 1).isValid());
        // a stray *.tmp beside a complete generation does not stop a restart (it restarts from that
        // generation, as mana_restart does); it only counts when no generation is complete
        Files.write(dir.resolve("something.tmp"), new byte[1]);
        assertTrue(CheckpointDirectoryValidator.validate(dir.toFile(), 1).isValid());
        Files.delete(dir.resolve("ckpt_rank_0/ckpt_ping_gen2.mana"));
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 1);
        assertFalse(v.isValid());
        assertTrue(String.join(" ", v.problems()).contains("something.tmp is a partial write"), v.problems().toString());
    }

    @Test
    void differentGenerations() throws IOException {
        image(0, 2, 1, 10);
        image(1, 2, 2, 10);
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertFalse(v.isValid());
        assertTrue(v.summary().contains("different generations"), v.summary());
        assertTrue(v.summary().contains("rank 0: [1], rank 1: [2]"), v.summary());
    }

    @Test
    void rankWithoutImage() throws IOException {
        image(0, 2, 1, 10);
        Files.createDirectories(dir.resolve("ckpt_rank_1"));
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertFalse(v.isValid());
        assertTrue(v.summary().contains("Rank 1 has no image"), v.summary());
    }

    @Test
    void headersAreRead() throws IOException {
        image(0, 2, 1, 10);
        file(1, "ckpt_ping_gen1.mana", 10); // named as an image, but not one
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertFalse(v.isValid());
        assertTrue(v.problems().toString().contains("ckpt_rank_1/ckpt_ping_gen1.mana is not a usable image"),
            v.problems().toString());
        Files.delete(dir.resolve("ckpt_rank_1/ckpt_ping_gen1.mana"));
        ManaImageWriter.write(dir.resolve("ckpt_rank_1/ckpt_ping_gen1.mana"), "ping", 0, 2, 1, new byte[10]);
        v = CheckpointDirectoryValidator.validate(dir.toFile(), 2);
        assertFalse(v.isValid()); // rank 0's image in rank 1's folder
        assertTrue(v.problems().toString().contains("holds rank 0, not 1"), v.problems().toString());
    }

    @Test
    void rankCountMustMatch() throws IOException {
        image(0, 2, 1, 10);
        image(1, 2, 1, 10);
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 4);
        assertFalse(v.isValid());
        assertTrue(v.summary().contains("has 2 ranks but the job runs 4"), v.summary());
    }

    @Test
    void manaDmtcpImagesCountAsOneGeneration() throws IOException {
        // MANA's own (DMTCP v4.0) images: the generation is the computation group's, from the header
        TestDmtcpImage t = TestDmtcpImage.sample(1);
        t.numPeers = 1;
        t.generation = 3;
        Files.createDirectories(dir.resolve("ckpt_rank_0"));
        t.write(dir.resolve("ckpt_rank_0/ckpt_ping_1a2b-40000-1.dmtcp"), true);
        CheckpointValidation v = CheckpointDirectoryValidator.validate(dir.toFile(), 1);
        assertTrue(v.isValid(), v.problems().toString());
        assertEquals(3, v.generation());
        assertEquals(new File(dir.toFile(), "ckpt_rank_0/ckpt_ping_1a2b-40000-1.dmtcp"), v.images().get(0));
    }
}
