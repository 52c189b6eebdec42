package dev.mana.mpidiag;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A coverage manifest for the tests, written as the contract says (docs/mpi-diagnostics.md) from the
 * function names the installed Open MPI and MPICH headers declare. The real manifest comes from the
 * runtime's build; the statuses here follow its plan: one-sided communication, MPI-IO, dynamic
 * processes, the tools interface, sessions and partitioned communication unsupported;
 * MPI_Init_thread partial; everything else supported.
 */
public final class TestManifest {
    static final Path OPENMPI_H = Path.of("/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h");
    static final List<Path> MPICH_H = List.of(Path.of("/usr/include/x86_64-linux-gnu/mpich/mpi.h"),
            Path.of("/usr/include/x86_64-linux-gnu/mpich/mpi_proto.h"));

    private static final Pattern DECL = Pattern.compile(
            "^\\s*(?:OMPI_DECLSPEC\\s+)?(?:int|double|MPI_\\w+)\\s+\\**\\s*(MPI_[A-Z][a-z]\\w*)\\s*\\(", Pattern.MULTILINE);

    public static final String ONE_SIDED = "one-sided communication cannot be checkpointed yet";
    public static final String IO = "MPI-IO file state is not saved in checkpoints";
    public static final String DYNAMIC = "dynamic process management cannot be checkpointed";
    public static final String THREADS = "MPI_THREAD_MULTIPLE is granted as MPI_THREAD_SERIALIZED";

    private static Path cached;

    private TestManifest() {
    }

    /** The manifest file (written once per test JVM under target/). */
    public static synchronized Path file() {
        if (cached == null) {
            try {
                Path dir = Path.of("target", "test-manifest");
                Files.createDirectories(dir);
                cached = write(dir.resolve("mpi-coverage.json"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return cached;
    }

    public static CoverageManifest manifest() {
        try {
            return CoverageManifest.read(file());
        } catch (ManifestException e) {
            throw new IllegalStateException(e);
        }
    }

    static Set<String> declared(List<Path> headers) throws IOException {
        Set<String> names = new TreeSet<>();
        for (Path h : headers) {
            Matcher m = DECL.matcher(Files.readString(h));
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    public static Path write(Path out) throws IOException {
        Map<String, List<String>> mpisOf = new TreeMap<>();
        for (String n : declared(List.of(OPENMPI_H))) {
            mpisOf.computeIfAbsent(n, k -> new ArrayList<>()).add("openmpi");
        }
        for (String n : declared(MPICH_H)) {
            mpisOf.computeIfAbsent(n, k -> new ArrayList<>()).add("mpich");
        }
        JsonObject root = new JsonObject();
        root.addProperty("format", "mana-mpi-coverage");
        root.addProperty("version", 1);
        root.addProperty("runtime", "0.2.0-test");
        root.addProperty("generated_by", "TestManifest (an unknown field: readers ignore it)");
        JsonArray mpis = new JsonArray();
        mpis.add(mpi("openmpi", "4.1.4", "libmpi.so.40", "libmpi_mpifh.so.40"));
        mpis.add(mpi("mpich", "4.0.2", "libmpich.so.12", "libmpichfort.so.12"));
        root.add("mpis", mpis);
        JsonArray fns = new JsonArray();
        for (var e : mpisOf.entrySet()) {
            JsonObject f = new JsonObject();
            f.addProperty("name", e.getKey());
            String[] st = status(e.getKey());
            f.addProperty("status", st[0]);
            JsonArray a = new JsonArray();
            e.getValue().forEach(a::add);
            f.add("mpis", a);
            if (st[1] != null) {
                f.addProperty("reason", st[1]);
            }
            fns.add(f);
        }
        root.add("functions", fns);
        Files.writeString(out, new GsonBuilder().setPrettyPrinting().create().toJson(root));
        return out;
    }

    private static JsonObject mpi(String id, String version, String so, String fso) {
        JsonObject m = new JsonObject();
        m.addProperty("id", id);
        m.addProperty("version", version);
        m.addProperty("soname", so);
        m.addProperty("fortran_soname", fso);
        return m;
    }

    static String[] status(String name) {
        if (name.equals("MPI_Init_thread")) {
            return new String[] {"partial", THREADS};
        }
        if (name.startsWith("MPI_Win_") || name.matches("MPI_R?(Put|Get|Accumulate|Get_accumulate)(_c)?")
                || name.equals("MPI_Fetch_and_op") || name.equals("MPI_Compare_and_swap")) {
            return new String[] {"unsupported", ONE_SIDED};
        }
        if (name.startsWith("MPI_File_") || name.equals("MPI_Register_datarep")) {
            return new String[] {"unsupported", IO};
        }
        if (name.matches("MPI_(Comm_spawn\\w*|Comm_connect|Comm_accept|Comm_join|Open_port|Close_port"
                + "|Publish_name|Unpublish_name|Lookup_name)")) {
            return new String[] {"unsupported", DYNAMIC};
        }
        if (name.startsWith("MPI_T_") || name.startsWith("MPI_Session_") || name.matches("MPI_(Psend|Precv)_init|MPI_Pready\\w*|MPI_Parrived")) {
            return new String[] {"unsupported", "not implemented by the runtime"};
        }
        return new String[] {"supported", null};
    }
}
