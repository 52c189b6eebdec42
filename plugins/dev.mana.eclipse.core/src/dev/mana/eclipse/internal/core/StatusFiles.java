package dev.mana.eclipse.internal.core;

import java.io.File;
import java.io.IOException;

import dev.mana.coordinator.StatusFile;
import dev.mana.eclipse.core.CoordinatorEndpoint;

/**
 * The coordinator status file ({@code .mana.rc}) as the plugin needs it: an endpoint. The file is read and
 * written by control-plane's {@link StatusFile}, the one Java parser of the format (comments, blanks and
 * {@code " # ..."} after a value as {@code mana_status} and the coordinator treat them).
 */
public final class StatusFiles {
    private StatusFiles() {}

    /** The endpoint a status file names. */
    public static CoordinatorEndpoint endpoint(File f) throws IOException {
        StatusFile s = StatusFile.read(f.toPath());
        if (s.port() == 0) {
            throw new IOException("no Port in the coordinator status file " + f);
        }
        return new CoordinatorEndpoint(s.host().isEmpty() ? "localhost" : s.host(), s.port(), s.secret(), f);
    }

    /** Writes a status file for an endpoint: mode 0600 from the start, atomically (a rename). */
    public static void write(File f, CoordinatorEndpoint ep, long pid) throws IOException {
        new StatusFile(ep.host(), ep.port(), ep.secret(), pid, null).write(f.toPath());
    }
}
