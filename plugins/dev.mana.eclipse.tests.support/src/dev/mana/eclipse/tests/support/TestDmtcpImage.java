package dev.mana.eclipse.tests.support;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The test kit's DMTCP v4.0 images (dev.mana.inspector.testkit.TestDmtcpImage, module image-testkit) under
 * the name the UI tests import. Holds no format code: every call goes to the kit. To be deleted once the UI
 * tests import dev.mana.inspector.testkit themselves, as the core tests do.
 */
public final class TestDmtcpImage {
    private final dev.mana.inspector.testkit.TestDmtcpImage image;

    private TestDmtcpImage(dev.mana.inspector.testkit.TestDmtcpImage image) {
        this.image = image;
    }

    /** The kit's sample process (seeded). */
    public static TestDmtcpImage sample(long seed) {
        return new TestDmtcpImage(dev.mana.inspector.testkit.TestDmtcpImage.sample(seed));
    }

    public byte[] bytes() throws IOException {
        return image.bytes();
    }

    public Path write(Path p, boolean gz) throws IOException {
        return image.write(p, gz);
    }

    public static byte[] gzip(byte[] plain) throws IOException {
        return dev.mana.inspector.testkit.TestDmtcpImage.gzip(plain);
    }
}
