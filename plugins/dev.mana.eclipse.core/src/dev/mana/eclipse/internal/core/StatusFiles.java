package dev.mana.eclipse.internal.core;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.mana.eclipse.core.CoordinatorEndpoint;

/** The coordinator status file ({@code .mana.rc}): {@code Key: value} lines, mode 0600. */
public final class StatusFiles {
    private StatusFiles() {}

    public static Map<String, String> read(File f) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : Files.readAllLines(f.toPath(), StandardCharsets.UTF_8)) {
            if (line.startsWith("#")) {
                continue;
            }
            int i = line.indexOf(':');
            if (i > 0) {
                String v = line.substring(i + 1).trim();
                int sp = v.indexOf(' ');
                m.put(line.substring(0, i).trim(), sp > 0 && line.startsWith("Secret") ? v.substring(0, sp) : v);
            }
        }
        return m;
    }

    /** The endpoint a status file names. */
    public static CoordinatorEndpoint endpoint(File f) throws IOException {
        Map<String, String> m = read(f);
        String port = m.get("Port");
        if (port == null) {
            throw new IOException("no Port in the coordinator status file " + f);
        }
        return new CoordinatorEndpoint(m.getOrDefault("Host", "localhost"), Integer.parseInt(port.trim()),
            m.getOrDefault("Secret", ""), f);
    }

    /** Writes a status file for an endpoint, mode 0600 from the start. */
    public static void write(File f, CoordinatorEndpoint ep, long pid) throws IOException {
        Path p = f.toPath();
        Files.createDirectories(p.getParent());
        Files.deleteIfExists(p);
        Files.createFile(p, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        String text = "Host: " + ep.host() + "\nPort: " + ep.port() + "\nSecret: " + ep.secret() + "\nPid: " + pid
            + "\n# This is a temporary file for communication between\n"
            + "#   the coordinator hosted by Eclipse and mana_launch/mana_restart/mana_status.\n";
        Files.writeString(p, text, StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
    }
}
