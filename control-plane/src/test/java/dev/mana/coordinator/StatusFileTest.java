package dev.mana.coordinator;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class StatusFileTest {
    @TempDir Path home;

    @Test
    void writesMode0600AndReadsBack() throws Exception {
        Path rc = home.resolve(".mana-slurm-42.rc");
        new StatusFile("node17", 7779, "ab".repeat(32), 1234, "42").write(rc);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(rc)));
        String text = Files.readString(rc);
        assertTrue(text.startsWith("Host: node17\nPort: 7779\nSecret: " + "ab".repeat(32) + "\nPid: 1234\nSLURM_JOB_ID: 42\n"), text);
        assertEquals(new StatusFile("node17", 7779, "ab".repeat(32), 1234, "42"), StatusFile.read(rc));
    }

    @Test
    void readsMansFileWithCommentsAndWithoutSecret() throws Exception {
        Path rc = home.resolve(".mana.rc");
        Files.writeString(rc, "Host: cn123.example.com\nPort: 7779\nSLURM_JOB_ID: 4567890       # only in the SLURM variant\n"
                + "# This is a temporary file\n");
        StatusFile sf = StatusFile.read(rc);
        assertEquals("cn123.example.com", sf.host());
        assertEquals(7779, sf.port());
        assertEquals("", sf.secret());
        assertEquals("4567890", sf.slurmJobId());
    }

    @Test
    void defaultPathFollowsSlurm() {
        assertEquals(home.resolve(".mana.rc"), StatusFile.defaultPath(Map.of(), home));
        assertEquals(home.resolve(".mana-slurm-99.rc"), StatusFile.defaultPath(Map.of("SLURM_JOB_ID", "99"), home));
        assertEquals(Path.of("/x/y.rc"), StatusFile.clientPath(Map.of("MANA_RC", "/x/y.rc", "SLURM_JOB_ID", "99"), home));
    }

    @Test
    void removesOnlyStaleRcFiles() throws Exception {
        Path old = home.resolve(".mana-slurm-1.rc");
        Path fresh = home.resolve(".mana.rc");
        Path other = home.resolve(".bashrc");
        for (Path p : new Path[] {old, fresh, other}) Files.writeString(p, "x");
        FileTime eightDays = FileTime.from(Instant.now().minus(Duration.ofDays(8)));
        Files.setLastModifiedTime(old, eightDays);
        Files.setLastModifiedTime(other, eightDays);
        assertEquals(1, StatusFile.removeStale(home, Duration.ofDays(7)));
        assertFalse(Files.exists(old));
        assertTrue(Files.exists(fresh));
        assertTrue(Files.exists(other));
    }

    @Test
    void addressResolutionOrder() throws Exception {
        new StatusFile("rchost", 1111, "rcsecret", 1, null).write(home.resolve(".mana.rc"));
        // status file
        assertEquals(new CoordinatorAddress("rchost", 1111, "rcsecret", home.resolve(".mana.rc").toString()),
                CoordinatorAddress.resolve(null, null, Map.of(), home));
        // environment over the file (DMTCP_ names as aliases); secret still from the file
        CoordinatorAddress env = CoordinatorAddress.resolve(null, null,
                Map.of("DMTCP_COORD_HOST", "envhost", "MANA_COORD_PORT", "2222"), home);
        assertEquals("envhost", env.host());
        assertEquals(2222, env.port());
        assertEquals("rcsecret", env.secret());
        assertEquals("environment", env.source());
        // flags over everything; MANA_COORD_SECRET over the file
        CoordinatorAddress flags = CoordinatorAddress.resolve("flaghost", 3333,
                Map.of("MANA_COORD_HOST", "envhost", "MANA_COORD_SECRET", "envsecret"), home);
        assertEquals(new CoordinatorAddress("flaghost", 3333, "envsecret", "flags"), flags);
        // nothing at all: localhost:7779, no secret
        Path empty = Files.createDirectory(home.resolve("empty"));
        assertEquals(new CoordinatorAddress("localhost", 7779, "", "default"),
                CoordinatorAddress.resolve(null, null, Map.of(), empty));
        // MANA_RC names a file explicitly (and must exist)
        assertEquals("rchost", CoordinatorAddress.resolve(null, null,
                Map.of("MANA_RC", home.resolve(".mana.rc").toString()), empty).host());
        assertThrows(CoordinatorException.class, () -> CoordinatorAddress.resolve(null, null,
                Map.of("MANA_RC", home.resolve("nope.rc").toString()), empty));
    }
}
