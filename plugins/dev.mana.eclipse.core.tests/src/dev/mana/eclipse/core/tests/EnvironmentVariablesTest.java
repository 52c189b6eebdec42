package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.core.ManaEnvironmentVariable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The Environment tab offers only variables the runtime reads: each name is in its C sources or launch scripts. */
class EnvironmentVariablesTest {
    @Test
    void everyOfferedVariableIsReadByTheRuntime() throws IOException {
        String root = System.getProperty("mana.root");
        assertNotNull(root, "the build passes -Dmana.root");
        StringBuilder all = new StringBuilder();
        for (String dir : new String[] {"core-native/src", "core-native/scripts"}) {
            try (Stream<Path> files = Files.walk(Path.of(root, dir))) {
                for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                    all.append(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)).append('\n');
                }
            }
        }
        for (ManaEnvironmentVariable v : ManaEnvironmentVariable.ALL) {
            assertTrue(all.indexOf(v.name()) >= 0, v.name() + " is offered, but nothing in core-native reads it");
        }
    }
}
