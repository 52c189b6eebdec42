package dev.mana.mpidiag.lsp;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.nio.file.Path;

/**
 * The server's configuration, from {@code initializationOptions} or
 * {@code workspace/didChangeConfiguration}: {@code {"manifest": FILE, "mpi": "openmpi"|"mpich",
 * "debounceMs": N}}, either at the top level or under a {@code "mana"} section (as VS Code sends it).
 */
record Settings(Path manifest, String mpi, long debounceMs) {
    static final long DEFAULT_DEBOUNCE_MS = 200;

    static Settings defaults(Path root) {
        return new Settings(dev.mana.mpidiag.CoverageManifest.defaultLocation(root), null, DEFAULT_DEBOUNCE_MS);
    }

    /** This configuration with whatever {@code options} sets; anything else in it is ignored. */
    Settings with(Object options) {
        if (!(options instanceof JsonElement e) || !e.isJsonObject()) {
            return this;
        }
        JsonObject o = e.getAsJsonObject();
        if (o.has("mana") && o.get("mana").isJsonObject()) {
            o = o.getAsJsonObject("mana");
        }
        Path m = manifest;
        String p = mpi;
        long d = debounceMs;
        if (o.has("manifest") && o.get("manifest").isJsonPrimitive() && !o.get("manifest").getAsString().isEmpty()) {
            m = Path.of(o.get("manifest").getAsString());
        }
        if (o.has("mpi")) {
            p = o.get("mpi").isJsonNull() || o.get("mpi").getAsString().isEmpty() ? null : o.get("mpi").getAsString();
        }
        if (o.has("debounceMs") && o.get("debounceMs").isJsonPrimitive()) {
            d = Math.max(0, o.get("debounceMs").getAsLong());
        }
        return new Settings(m, p, d);
    }
}
