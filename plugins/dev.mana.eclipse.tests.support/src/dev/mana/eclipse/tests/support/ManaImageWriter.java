package dev.mana.eclipse.tests.support;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The test kit's one-call images (dev.mana.inspector.testkit.ManaImageWriter, module image-testkit) under
 * the name the UI tests import. Holds no format code: every call goes to the kit. To be deleted once the UI
 * tests import dev.mana.inspector.testkit themselves, as the core tests do.
 */
public final class ManaImageWriter {
    private ManaImageWriter() {}

    public static Path write(Path file, String program, int rank, int nranks, int generation, byte[] content)
            throws IOException {
        return dev.mana.inspector.testkit.ManaImageWriter.write(file, program, rank, nranks, generation, content);
    }

    public static byte[] bytes(String program, int rank, int nranks, int generation, byte[] content) {
        return dev.mana.inspector.testkit.ManaImageWriter.bytes(program, rank, nranks, generation, content);
    }

    public static Path writeLarge(Path file, String program, int rank, int nranks, int generation, long payloadBytes,
            long seed) throws IOException {
        return dev.mana.inspector.testkit.ManaImageWriter.writeLarge(file, program, rank, nranks, generation,
                payloadBytes, seed);
    }
}
