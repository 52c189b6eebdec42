package dev.mana.eclipse.ui.tests;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;

/**
 * The neutral directory the screenshot-taking tests work in, {@code /tmp/demo}: what their pictures show
 * (program, working directory, checkpoint directory, image paths, the runtime's libmana.so) is a short path
 * of no machine, not a build tree or a random temporary name.
 * <p>
 * {@link #open} takes {@code /tmp/demo.lock} (an fcntl lock: the kernel drops it when its process dies), then
 * removes a {@code /tmp/demo} a dead run left and makes it fresh; {@link #close} removes it and lets the lock
 * go. A second run while one holds the lock (another JVM, or a test of this one that did not close its own)
 * fails at once, naming the lock, instead of sharing or deleting the first run's files. The lock file itself
 * stays (removing it would let a third run lock a new file beside a holder of the old one).
 */
final class DemoDir implements AutoCloseable {
    static final Path DIR = Path.of("/tmp/demo");
    static final Path LOCK = Path.of("/tmp/demo.lock");

    private final FileChannel channel;
    private final FileLock lock;

    private DemoDir(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Locks, removes what a dead run left, makes {@link #DIR} empty; fails if another run holds it. */
    static DemoDir open() throws IOException {
        FileChannel ch = FileChannel.open(LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock l;
        try {
            l = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            l = null; // this JVM holds it already: a test that did not close its DemoDir
        }
        if (l == null) {
            ch.close();
            throw new IllegalStateException(DIR + " is in use by another run (" + LOCK
                + " is locked): run the screenshot tests one at a time");
        }
        try {
            removeTree(DIR);
            Files.createDirectories(DIR);
        } catch (IOException | RuntimeException e) {
            l.release();
            ch.close();
            throw e;
        }
        return new DemoDir(ch, l);
    }

    /** {@link #DIR}. */
    Path path() {
        return DIR;
    }

    /** {@code /tmp/demo/NAME}. */
    Path resolve(String name) {
        return DIR.resolve(name);
    }

    /** Copies an executable into the directory under its own name (/tmp/demo/heat_mpi): its new path. */
    Path copyProgram(Path program) throws IOException {
        return Files.copy(program, DIR.resolve(program.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
    }

    /**
     * Copies the runtime's {@code bin/} and {@code lib/} (make build's layout) into {@code /tmp/demo/mana}: its
     * commands find their libraries from where they are (readlink -f $0), so the copy runs as the original and
     * a checkpoint image records {@code /tmp/demo/mana/lib/libmana.so}. Returns the copy's root.
     */
    Path copyRuntime(Path root) throws IOException {
        Path to = DIR.resolve("mana");
        for (String sub : new String[] {"bin", "lib"}) {
            Path from = root.resolve(sub);
            try (var s = Files.walk(from)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Path q = to.resolve(sub).resolve(from.relativize(p).toString());
                    if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                        Files.createDirectories(q);
                    } else { // a link as a link (bin/mana_start_coordinator -> mana_coordinator)
                        Files.copy(p, q, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                    }
                }
            }
        }
        return to;
    }

    /** Removes {@link #DIR} and releases the lock. */
    @Override
    public void close() throws IOException {
        try {
            removeTree(DIR);
        } finally {
            lock.release();
            channel.close();
        }
    }

    /** Removes a tree, deepest first, without following links out of it; nothing when it is not there. */
    static void removeTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (var s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
