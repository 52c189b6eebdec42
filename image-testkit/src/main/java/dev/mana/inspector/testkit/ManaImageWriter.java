package dev.mana.inspector.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One-call images of our format for the checkpoint-directory tests: the header (rank, nranks, generation,
 * program), a saved heap holding {@code content} (padded to whole pages, every page stored), one MAIN thread
 * and its stack (mapped, nothing stored), no files, no signal handlers, no MPI section. Built with
 * {@link TestManaImage}, so the kit has one writer of the format.
 */
public final class ManaImageWriter {
    static final int PAGE = TestManaImage.PAGE;
    static final long HEAP = 0x555555600000L;

    private ManaImageWriter() {}

    /** The image, not yet laid out: a test may change it before {@link TestManaImage#bytes} or write. */
    public static TestManaImage image(String program, int rank, int nranks, int generation) {
        TestManaImage t = new TestManaImage();
        t.program = program;
        t.rank = rank;
        t.nranks = nranks;
        t.generation = generation;
        t.pid = 4000 + rank;
        t.timeNs = 1_764_000_000_000_000_000L + generation;
        t.exe = "/usr/bin/" + program;
        t.cwd = "/tmp";
        t.argv = new ArrayList<>(List.of(program));
        t.mpiSection = null;
        return t;
    }

    /** Adds the stack region (above every other region this class makes) and the MAIN thread on it. */
    public static TestManaImage withStack(TestManaImage t) {
        t.region(0x7ffffffde000L, 4 * PAGE, 3, TestManaImage.ANON | TestManaImage.STACK, "[stack]", null);
        t.thread(t.pid, 1, 0x7ffff7d8a740L, 0x7ffffffde000L, 0x7ffffffe2000L, 0x555555555123L, 0x7ffffffe1000L);
        return t;
    }

    public static byte[] bytes(String program, int rank, int nranks, int generation, byte[] content) {
        int pages = Math.max(1, (content.length + PAGE - 1) / PAGE);
        byte[] payload = new byte[pages * PAGE];
        System.arraycopy(content, 0, payload, 0, content.length);
        TestManaImage t = image(program, rank, nranks, generation);
        t.region(HEAP, payload.length, 3, TestManaImage.ANON | TestManaImage.HEAP, "[heap]", payload).storeZeroPages = true;
        return withStack(t).bytes();
    }

    /** Writes the image to {@code file} (its folder is created) and returns {@code file}. */
    public static Path write(Path file, String program, int rank, int nranks, int generation, byte[] content)
            throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, bytes(program, rank, nranks, generation, content));
        return file;
    }

    /**
     * A large image written as a stream (never whole in memory): the heap holds {@code payloadBytes} (rounded
     * up to pages) of pseudo-random bytes from {@code seed}, every byte written (no sparse file), so reading
     * it costs what reading a real image of that size costs.
     */
    public static Path writeLarge(Path file, String program, int rank, int nranks, int generation, long payloadBytes,
            long seed) throws IOException {
        long len = Math.max(PAGE, (payloadBytes + PAGE - 1) / PAGE * PAGE);
        Files.createDirectories(file.toAbsolutePath().getParent());
        TestManaImage t = image(program, rank, nranks, generation);
        TestManaImage.Region heap = t.region(HEAP, len, 3, TestManaImage.ANON | TestManaImage.HEAP, "[heap]", null);
        heap.hugeStored = len;
        heap.fillSeed = seed;
        return withStack(t).write(file);
    }
}
