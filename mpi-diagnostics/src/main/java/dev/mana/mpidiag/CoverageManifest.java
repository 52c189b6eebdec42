package dev.mana.mpidiag;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The MPI coverage manifest ({@code share/mana/mpi-coverage.json}), as fixed by the contract in
 * docs/mpi-diagnostics.md: format {@code mana-mpi-coverage}, version 1. Unknown fields are ignored
 * (writers only ever add fields). Lookups accept every binding of a function: the C name, its
 * {@code PMPI_} profiling twin and the Fortran names ({@code mpi_send}, {@code mpi_send_},
 * {@code MPI_SEND}, {@code mpi_send__}, {@code mpi_send_f08}, {@code mpi_send_f08ts}).
 */
public final class CoverageManifest {
    /** The manifest's format tag and the only version this reader knows. */
    public static final String FORMAT = "mana-mpi-coverage";
    public static final int VERSION = 1;

    /** One ABI the runtime was built for. */
    public record Mpi(String id, String version, String soname, String fortranSoname) {}

    private final Path source;
    private final String runtime;
    private final List<Mpi> mpis;
    private final List<MpiFunction> functions;
    /** Upper-case C name -> function: the key every binding folds to. */
    private final Map<String, MpiFunction> byFoldedName;
    /** Exact C name -> function (C is case-sensitive). */
    private final Map<String, MpiFunction> byName;

    private CoverageManifest(Path source, String runtime, List<Mpi> mpis, List<MpiFunction> functions) {
        this.source = source;
        this.runtime = runtime;
        this.mpis = List.copyOf(mpis);
        this.functions = List.copyOf(functions);
        Map<String, MpiFunction> m = new HashMap<>(functions.size() * 2);
        for (MpiFunction f : functions) {
            m.put(f.name().toUpperCase(Locale.ROOT), f);
        }
        this.byFoldedName = m;
        Map<String, MpiFunction> exact = new HashMap<>(functions.size() * 2);
        for (MpiFunction f : functions) {
            exact.put(f.name(), f);
        }
        this.byName = exact;
    }

    /** The function with exactly this C name ({@code MPI_Send}; not folded). */
    public Optional<MpiFunction> lookupCName(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** Reads a manifest file; any problem is one {@link ManifestException} naming the file. */
    public static CoverageManifest read(Path file) throws ManifestException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ManifestException("MPI coverage manifest not found: " + file
                    + " (build the runtime with `make build`, or pass --manifest FILE)");
        } catch (IOException e) {
            throw new ManifestException("cannot read MPI coverage manifest " + file + ": " + e.getMessage(), e);
        }
        return parse(file, new StringReader(text));
    }

    /** Parses a manifest from text; {@code source} only names it in messages (may be null). */
    public static CoverageManifest parse(Path source, Reader reader) throws ManifestException {
        String where = source == null ? "MPI coverage manifest" : "MPI coverage manifest " + source;
        try {
            JsonElement root = JsonParser.parseReader(reader);
            if (!root.isJsonObject()) {
                throw new ManifestException(where + ": not a JSON object");
            }
            JsonObject o = root.getAsJsonObject();
            String format = string(o, "format", where);
            if (!FORMAT.equals(format)) {
                throw new ManifestException(where + ": format is \"" + format + "\", expected \"" + FORMAT + "\"");
            }
            JsonElement v = o.get("version");
            if (v == null || !v.isJsonPrimitive() || !v.getAsJsonPrimitive().isNumber()
                    || v.getAsDouble() != VERSION) {
                throw new ManifestException(where + ": version " + v + " is not supported (this reader knows version "
                        + VERSION + ")");
            }
            String runtime = o.has("runtime") && o.get("runtime").isJsonPrimitive() ? o.get("runtime").getAsString() : "";
            List<Mpi> mpis = new ArrayList<>();
            for (JsonElement e : array(o, "mpis", where)) {
                if (!e.isJsonObject()) {
                    throw new ManifestException(where + ": an entry of \"mpis\" is not an object");
                }
                JsonObject m = e.getAsJsonObject();
                mpis.add(new Mpi(string(m, "id", where), optString(m, "version"), optString(m, "soname"),
                        optString(m, "fortran_soname")));
            }
            List<MpiFunction> functions = new ArrayList<>();
            Map<String, String> seen = new HashMap<>();
            for (JsonElement e : array(o, "functions", where)) {
                if (!e.isJsonObject()) {
                    throw new ManifestException(where + ": an entry of \"functions\" is not an object");
                }
                JsonObject f = e.getAsJsonObject();
                String name = string(f, "name", where);
                String statusText = string(f, "status", where);
                Status status;
                try {
                    status = Status.valueOf(statusText.toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException ex) {
                    throw new ManifestException(where + ": " + name + " has unknown status \"" + statusText + "\"");
                }
                List<String> abis = new ArrayList<>();
                if (f.has("mpis") && f.get("mpis").isJsonArray()) {
                    for (JsonElement a : f.getAsJsonArray("mpis")) {
                        abis.add(a.getAsString());
                    }
                }
                String reason = optString(f, "reason");
                if (seen.put(name.toUpperCase(Locale.ROOT), name) != null) {
                    throw new ManifestException(where + ": " + name + " is listed twice");
                }
                functions.add(new MpiFunction(name, status, abis, reason == null || reason.isBlank() ? null : reason));
            }
            return new CoverageManifest(source, runtime, mpis, functions);
        } catch (JsonParseException | IllegalStateException | UnsupportedOperationException e) {
            throw new ManifestException(where + ": not valid JSON (" + oneLine(e.getMessage()) + ")", e);
        }
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ");
    }

    private static String string(JsonObject o, String key, String where) throws ManifestException {
        JsonElement e = o.get(key);
        if (e == null || !e.isJsonPrimitive()) {
            throw new ManifestException(where + ": missing field \"" + key + "\"");
        }
        return e.getAsString();
    }

    private static String optString(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
    }

    private static JsonArray array(JsonObject o, String key, String where) throws ManifestException {
        JsonElement e = o.get(key);
        if (e == null || !e.isJsonArray()) {
            throw new ManifestException(where + ": missing array \"" + key + "\"");
        }
        return e.getAsJsonArray();
    }

    /**
     * Folds any binding of an MPI function to the upper-case C name it stands for, or empty when the
     * name is no MPI binding at all. {@code PMPI_} twins fold to their {@code MPI_} name.
     */
    public static Optional<String> foldedName(String symbol) {
        String s = symbol.toUpperCase(Locale.ROOT);
        int at = s.indexOf('@'); // ELF symbol versions
        if (at >= 0) {
            s = s.substring(0, at);
        }
        if (s.startsWith("PMPI_")) {
            s = s.substring(1);
        }
        if (!s.startsWith("MPI_") || s.length() <= 4) {
            return Optional.empty();
        }
        while (s.endsWith("_") && s.length() > 4) { // Fortran compilers' trailing underscores
            s = s.substring(0, s.length() - 1);
        }
        if (s.endsWith("_F08TS")) {
            s = s.substring(0, s.length() - 6);
        } else if (s.endsWith("_F08")) {
            s = s.substring(0, s.length() - 4);
        }
        while (s.endsWith("_") && s.length() > 4) {
            s = s.substring(0, s.length() - 1);
        }
        return s.length() > 4 ? Optional.of(s) : Optional.empty();
    }

    /** Whether a symbol or identifier is a {@code PMPI_} profiling binding. */
    public static boolean isProfiling(String symbol) {
        return symbol.regionMatches(true, 0, "PMPI_", 0, 5);
    }

    /** The function any binding names (C, PMPI, Fortran); empty when the manifest does not list it. */
    public Optional<MpiFunction> lookup(String anyBinding) {
        return foldedName(anyBinding).map(byFoldedName::get);
    }

    /** The function an already folded (upper-case) name names. */
    public Optional<MpiFunction> lookupFolded(String folded) {
        return Optional.ofNullable(byFoldedName.get(folded));
    }

    public Path source() {
        return source;
    }

    public String runtime() {
        return runtime;
    }

    public List<Mpi> mpis() {
        return mpis;
    }

    public List<MpiFunction> functions() {
        return functions;
    }

    /** Function counts by status, in status order. */
    public Map<Status, Integer> counts() {
        Map<Status, Integer> c = new LinkedHashMap<>();
        for (Status s : Status.values()) {
            c.put(s, 0);
        }
        for (MpiFunction f : functions) {
            c.merge(f.status(), 1, Integer::sum);
        }
        return Collections.unmodifiableMap(c);
    }

    /** The default manifest of an installation: {@code <root>/share/mana/mpi-coverage.json}. */
    public static Path defaultLocation(Path root) {
        return root.resolve("share").resolve("mana").resolve("mpi-coverage.json");
    }
}
