package dev.mana.coordinator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The coordinator's status file ({@code ~/.mana.rc}, {@code ~/.mana-slurm-$SLURM_JOB_ID.rc}): where
 * the coordinator listens and its secret (§2 of the protocol). Written mode 0600, atomically.
 *
 * @param slurmJobId null outside Slurm
 */
public record StatusFile(String host, int port, String secret, long pid, String slurmJobId) {

    /** {@code ~/.mana-slurm-$SLURM_JOB_ID.rc} when SLURM_JOB_ID is set, else {@code ~/.mana.rc}. */
    public static Path defaultPath(Map<String, String> env, Path home) {
        String slurm = env.get("SLURM_JOB_ID");
        if (slurm != null && !slurm.isBlank()) return home.resolve(".mana-slurm-" + slurm.trim() + ".rc");
        return home.resolve(".mana.rc");
    }

    /** The status file clients read: {@code $MANA_RC} if set, else {@link #defaultPath}. */
    public static Path clientPath(Map<String, String> env, Path home) {
        String rc = env.get("MANA_RC");
        if (rc != null && !rc.isBlank()) return Path.of(rc);
        return defaultPath(env, home);
    }

    public static Path userHome(Map<String, String> env) {
        String home = env.get("HOME");
        return Path.of(home != null && !home.isBlank() ? home : System.getProperty("user.home"));
    }

    public String render() {
        StringBuilder sb = new StringBuilder();
        sb.append("Host: ").append(host).append('\n');
        sb.append("Port: ").append(port).append('\n');
        sb.append("Secret: ").append(secret).append('\n');
        sb.append("Pid: ").append(pid).append('\n');
        if (slurmJobId != null) sb.append("SLURM_JOB_ID: ").append(slurmJobId).append('\n');
        sb.append("# This is a temporary file for communication between\n");
        sb.append("#   mana_coordinator and mana_launch/mana_restart/mana_status.\n");
        return sb.toString();
    }

    /** Writes the file mode 0600: a temporary file beside it, then a rename. */
    public void write(Path path) throws IOException {
        Path dir = path.toAbsolutePath().getParent();
        if (dir != null) Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, path.getFileName().toString(), ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmp, render(), StandardCharsets.UTF_8);
            try {
                Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Parses a status file; missing keys are empty / 0. */
    public static StatusFile read(Path path) throws IOException {
        String host = "", secret = "", slurm = null;
        int port = 0;
        long pid = 0;
        for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) continue;
            int colon = l.indexOf(':');
            if (colon < 0) continue;
            String key = l.substring(0, colon).strip();
            String value = l.substring(colon + 1).strip();
            int hash = value.indexOf(" #");
            if (hash >= 0) value = value.substring(0, hash).strip();
            try {
                switch (key) {
                    case "Host": host = value; break;
                    case "Port": port = Integer.parseInt(value); break;
                    case "Secret": secret = value; break;
                    case "Pid": pid = Long.parseLong(value); break;
                    case "SLURM_JOB_ID": slurm = value; break;
                    default: break;
                }
            } catch (NumberFormatException e) {
                throw new IOException(path + ": bad value for " + key + ": " + value);
            }
        }
        return new StatusFile(host, port, secret, pid, slurm);
    }

    /**
     * Deletes {@code ~/.mana*.rc} files last modified more than {@code maxAge} ago (as MANA's
     * launchers do with 7 days). Returns how many were removed; errors are ignored.
     */
    public static int removeStale(Path home, Duration maxAge) {
        int removed = 0;
        FileTime limit = FileTime.from(Instant.now().minus(maxAge));
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(home, ".mana*.rc")) {
            for (Path p : ds) {
                try {
                    if (Files.isRegularFile(p) && Files.getLastModifiedTime(p).compareTo(limit) < 0) {
                        Files.delete(p);
                        removed++;
                    }
                } catch (IOException ignored) {
                    // someone else's problem; a stale file is harmless
                }
            }
        } catch (IOException ignored) {
            // no home directory: nothing to clean
        }
        return removed;
    }
}
