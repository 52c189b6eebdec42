package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The screenshot tests' /tmp/demo (DemoDir): made fresh over what a dead run left, removed after, and refused
 * while another run holds its lock, in this JVM or in another process.
 */
class DemoDirTest {

    @Test
    void aDeadRunsDirectoryIsReplacedAndRemovedAfter() throws Exception {
        // what a killed run leaves: the directory with files, the lock file unlocked
        Files.createDirectories(DemoDir.DIR.resolve("ck/ckpt_rank_0"));
        Files.writeString(DemoDir.DIR.resolve("ck/ckpt_rank_0/old.mana"), "left by a dead run");
        try (DemoDir d = DemoDir.open()) {
            assertEquals(Path.of("/tmp/demo"), d.path());
            try (var s = Files.list(d.path())) {
                assertEquals(0, s.count(), "a fresh, empty /tmp/demo");
            }
            Files.writeString(d.resolve("x"), "mine");
        }
        assertFalse(Files.exists(DemoDir.DIR), "removed by close");
    }

    @Test
    void aSecondRunInThisJvmIsRefusedAndTheFirstKeepsItsFiles() throws Exception {
        try (DemoDir d = DemoDir.open()) {
            Files.writeString(d.resolve("x"), "mine");
            IllegalStateException e = assertThrows(IllegalStateException.class, DemoDir::open);
            assertTrue(e.getMessage().contains(DemoDir.LOCK.toString()), e.getMessage());
            assertEquals("mine", Files.readString(d.resolve("x")), "the refused run removed nothing");
        }
        try (DemoDir d = DemoDir.open()) { // free again once closed
            assertTrue(Files.isDirectory(d.path()));
        }
    }

    /**
     * Another process holds the lock (an fcntl lock, as a second test JVM's would be: python3's lockf): refused
     * while it holds it, the holder's file untouched; taken once the holder has ended.
     */
    @Test
    void aRunInAnotherProcessIsRefusedUntilItEnds() throws Exception {
        Files.createDirectories(DemoDir.DIR);
        Files.writeString(DemoDir.DIR.resolve("other"), "the other run's");
        Process holder = new ProcessBuilder("python3", "-c",
            "import fcntl,sys\n"
                + "f=open('" + DemoDir.LOCK + "','a')\n"
                + "fcntl.lockf(f,fcntl.LOCK_EX|fcntl.LOCK_NB)\n"
                + "print('locked',flush=True)\n"
                + "sys.stdin.read()\n").redirectErrorStream(true).start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("locked", r.readLine(), "the holder took the lock"); // ends at EOF if python3 failed
            IllegalStateException e = assertThrows(IllegalStateException.class, DemoDir::open);
            assertTrue(e.getMessage().contains("in use by another run"), e.getMessage());
            assertEquals("the other run's", Files.readString(DemoDir.DIR.resolve("other")));
        } finally {
            holder.getOutputStream().close(); // told to end
            assertTrue(holder.waitFor(30, TimeUnit.SECONDS), "the holder ended");
        }
        try (DemoDir d = DemoDir.open()) {
            assertFalse(Files.exists(d.resolve("other")), "the ended run's files are gone");
        }
    }
}
