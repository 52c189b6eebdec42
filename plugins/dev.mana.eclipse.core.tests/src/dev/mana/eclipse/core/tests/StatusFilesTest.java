package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.mana.coordinator.StatusFile;
import dev.mana.eclipse.core.CoordinatorEndpoint;
import dev.mana.eclipse.internal.core.StatusFiles;

/** The plugin reads and writes the status file through control-plane's StatusFile: the same answers as it. */
class StatusFilesTest {
    @TempDir
    Path tmp;

    @Test
    void readsAsTheCoordinatorsParserDoes() throws Exception {
        Path rc = tmp.resolve(".mana.rc");
        Files.writeString(rc, "# written by hand\n  Host: node7  \nPort: 4321 # the coordinator's\n"
            + "Secret: 00ff00ff\nPid: 12\n#Port: 1\n");
        CoordinatorEndpoint ep = StatusFiles.endpoint(rc.toFile());
        StatusFile s = StatusFile.read(rc);
        assertEquals(s.host(), ep.host());
        assertEquals("node7", ep.host());
        assertEquals(4321, ep.port());
        assertEquals("00ff00ff", ep.secret());
        assertEquals(rc.toFile(), ep.statusFile());
    }

    @Test
    void noHostIsLocalhostAndNoPortIsRefused() throws Exception {
        Path rc = tmp.resolve("a.rc");
        Files.writeString(rc, "Port: 7779\n");
        assertEquals("localhost", StatusFiles.endpoint(rc.toFile()).host());
        Files.writeString(rc, "Host: x\n");
        assertThrows(IOException.class, () -> StatusFiles.endpoint(rc.toFile()));
    }

    @Test
    void writesWhatItReadsMode0600() throws Exception {
        File f = tmp.resolve("sub/.mana.rc").toFile();
        StatusFiles.write(f, new CoordinatorEndpoint("h", 5555, "abc", f), 99);
        CoordinatorEndpoint back = StatusFiles.endpoint(f);
        assertEquals("h", back.host());
        assertEquals(5555, back.port());
        assertEquals("abc", back.secret());
        assertEquals(99, StatusFile.read(f.toPath()).pid());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f.toPath())));
    }
}
