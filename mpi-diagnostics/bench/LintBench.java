import dev.mana.mpidiag.BinaryPreflight;
import dev.mana.mpidiag.CoverageManifest;
import dev.mana.mpidiag.Status;

import java.io.BufferedWriter;
import java.io.IOException;
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
import java.util.stream.Stream;

/**
 * Helpers of bench_lint.sh (run as a single-file program against lib/java/mpi-diagnostics.jar):
 *   manifest OUT          a stand-in coverage manifest from the Open MPI and MPICH headers (used only
 *                         while the runtime's build does not yet write share/mana/mpi-coverage.json)
 *   gen DIR LINES         generated C sources, LINES lines in files of 10,000
 *   scan DIR MANIFEST     binary preflight of every ELF under DIR that loads an MPI library: a table
 */
public class LintBench {
    public static void main(String[] a) throws Exception {
        switch (a[0]) {
            case "manifest" -> manifest(Path.of(a[1]));
            case "gen" -> gen(Path.of(a[1]), Integer.parseInt(a[2]));
            case "scan" -> scan(Path.of(a[1]), CoverageManifest.read(Path.of(a[2])));
            default -> throw new IllegalArgumentException(a[0]);
        }
    }

    static void manifest(Path out) throws IOException {
        Pattern decl = Pattern.compile("^\\s*(?:OMPI_DECLSPEC\\s+)?(?:int|double|MPI_\\w+)\\s+\\**\\s*(MPI_[A-Z][a-z]\\w*)\\s*\\(",
                Pattern.MULTILINE);
        Map<String, List<String>> mpis = new TreeMap<>();
        String[][] headers = {{"openmpi", "/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h"},
                {"mpich", "/usr/include/x86_64-linux-gnu/mpich/mpi.h"}, {"mpich", "/usr/include/x86_64-linux-gnu/mpich/mpi_proto.h"}};
        for (String[] h : headers) {
            Matcher m = decl.matcher(Files.readString(Path.of(h[1])));
            while (m.find()) {
                List<String> l = mpis.computeIfAbsent(m.group(1), k -> new ArrayList<>());
                if (!l.contains(h[0])) {
                    l.add(h[0]);
                }
            }
        }
        StringBuilder sb = new StringBuilder("{\"format\": \"mana-mpi-coverage\", \"version\": 1, \"runtime\": \"bench stand-in\",\n"
                + " \"mpis\": [{\"id\": \"openmpi\", \"soname\": \"libmpi.so.40\", \"fortran_soname\": \"libmpi_mpifh.so.40\"},"
                + " {\"id\": \"mpich\", \"soname\": \"libmpich.so.12\", \"fortran_soname\": \"libmpichfort.so.12\"}],\n \"functions\": [\n");
        boolean first = true;
        for (var e : mpis.entrySet()) {
            String n = e.getKey();
            String reason = n.startsWith("MPI_Win_") || n.matches("MPI_R?(Put|Get|Accumulate|Get_accumulate|Fetch_and_op|Compare_and_swap)(_c)?")
                    ? "one-sided communication cannot be checkpointed yet"
                    : n.startsWith("MPI_File_") ? "MPI-IO file state is not saved in checkpoints"
                    : n.matches("MPI_(Comm_spawn\\w*|Comm_connect|Comm_accept|Comm_join|Open_port|Close_port|Publish_name|Unpublish_name|Lookup_name)")
                    ? "dynamic process management cannot be checkpointed" : null;
            sb.append(first ? "  " : ",\n  ").append("{\"name\": \"").append(n).append("\", \"status\": \"")
                    .append(reason == null ? "supported" : "unsupported").append("\", \"mpis\": [\"")
                    .append(String.join("\", \"", e.getValue())).append("\"]")
                    .append(reason == null ? "" : ", \"reason\": \"" + reason + "\"").append("}");
            first = false;
        }
        sb.append("\n ]}\n");
        Files.writeString(out, sb);
    }

    /** Plausible MPI C: comments, strings, #if 0 blocks, macros, a call every few lines. */
    static void gen(Path dir, int lines) throws IOException {
        Files.createDirectories(dir);
        String[] calls = {"MPI_Send(buf, n, MPI_DOUBLE, peer, tag, comm);", "MPI_Recv(buf, n, MPI_DOUBLE, peer, tag, comm, &st);",
                "MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);", "MPI_Barrier(comm);",
                "MPI_Isend(buf, n, MPI_BYTE, peer, 7, comm, &req[i]);", "MPI_Waitall(2, req, MPI_STATUSES_IGNORE);",
                "MPI_Put(buf, n, MPI_DOUBLE, peer, 0, n, MPI_DOUBLE, win);", "MPI_File_write_all(fh, buf, n, MPI_DOUBLE, &st);"};
        int files = Math.max(1, lines / 10_000);
        for (int f = 0; f < files; f++) {
            try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("gen_" + f + ".c"))) {
                w.write("#include <mpi.h>\n#include <stdio.h>\n#define EXCHANGE(b) MPI_Sendrecv_replace(b, 1, MPI_INT, 0, 0, 0, 0, comm, &st)\n");
                int n = 3;
                int fn = 0;
                while (n < 10_000) {
                    w.write("/* step " + fn + ": exchange halo values with the neighbours, then reduce */\n");
                    w.write("static int step_" + fn + "(double *buf, int n, int peer, int tag, MPI_Comm comm, MPI_Win win, MPI_File fh)\n{\n");
                    w.write("    MPI_Status st; MPI_Request req[2]; double sum = 0.0; int i = 0;\n");
                    n += 4;
                    for (int k = 0; k < 12 && n < 9_990; k++, n++) {
                        switch (k % 4) {
                            case 0 -> w.write("    " + calls[(fn + k) % calls.length] + " // call " + k + "\n");
                            case 1 -> w.write("    for (i = 0; i < n; i++) sum += buf[i] * 0.5; printf(\"%d MPI_Win_free(\\n\", i);\n");
                            case 2 -> w.write("    if (sum > 1e9) { EXCHANGE(&i); }\n");
                            default -> w.write("    buf[" + k + "] = sum / (n + " + k + ".0);\n");
                        }
                    }
                    w.write("#if 0\n    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);\n#endif\n    return (int) sum;\n}\n\n");
                    n += 6;
                    fn++;
                }
                while (n++ < 10_000) {
                    w.write("\n");
                }
            }
        }
    }

    static void scan(Path dir, CoverageManifest m) throws IOException {
        long t0 = System.nanoTime();
        List<Path> elfs = new ArrayList<>();
        try (Stream<Path> s = Files.walk(dir)) {
            s.filter(p -> Files.isRegularFile(p) && !Files.isSymbolicLink(p)).forEach(p -> {
                try (var in = Files.newInputStream(p)) {
                    byte[] b = in.readNBytes(4);
                    if (b.length == 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') {
                        elfs.add(p);
                    }
                } catch (IOException e) {
                    // unreadable: not ours to judge
                }
            });
        }
        BinaryPreflight pf = new BinaryPreflight(m);
        Map<String, int[]> perMpi = new TreeMap<>();
        Map<String, Set<String>> fns = new TreeMap<>();
        Map<String, Set<String>> unsupported = new TreeMap<>();
        List<String> rows = new ArrayList<>();
        Map<String, int[]> groups = new TreeMap<>();
        boolean verbose = System.getenv("BENCH_LINT_VERBOSE") != null;
        int total = 0;
        int checked = 0;
        for (Path p : elfs) {
            BinaryPreflight.Report r;
            try {
                r = pf.check(p);
            } catch (IOException e) {
                continue;
            }
            checked++;
            boolean self = r.objects().size() > 0 && isMpiLib(p);
            if (r.mpi() == null || self || r.imports().isEmpty()) {
                continue;
            }
            int[] c = perMpi.computeIfAbsent(r.mpi(), k -> new int[2]);
            c[0]++;
            List<BinaryPreflight.Import> bad = r.withStatus(Status.UNSUPPORTED);
            if (!bad.isEmpty()) {
                c[1]++;
            }
            r.imports().forEach(i -> fns.computeIfAbsent(r.mpi(), k -> new TreeSet<>()).add(i.function()));
            bad.forEach(i -> unsupported.computeIfAbsent(r.mpi(), k -> new TreeSet<>()).add(i.function()));
            String group = dir.relativize(p).getParent() == null ? "." : dir.relativize(p).getParent().toString();
            int[] g = groups.computeIfAbsent(group + "\t" + r.mpi(), k -> new int[3]);
            g[0]++;
            g[1] = Math.max(g[1], r.imports().size());
            g[2] = Math.max(g[2], bad.size());
            if (verbose) {
                rows.add(String.format("| %s | %s | %d | %d |", dir.relativize(p), r.mpi(), r.imports().size(), bad.size()));
            }
            total++;
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        if (verbose) {
            System.out.println("| program or library | MPI | MPI functions imported | unsupported |");
            System.out.println("| --- | --- | ---: | ---: |");
            rows.sort(null);
            rows.forEach(System.out::println);
            System.out.println();
        }
        System.out.println("| folder (under " + dir + ") | MPI | ELF files | MPI functions imported (most) | unsupported (most) |");
        System.out.println("| --- | --- | ---: | ---: | ---: |");
        for (var e : groups.entrySet()) {
            String[] k = e.getKey().split("\t");
            System.out.printf("| %s | %s | %d | %d | %d |%n", k[0], k[1], e.getValue()[0], e.getValue()[1], e.getValue()[2]);
        }
        System.out.println();
        System.out.println("| MPI | binaries | distinct MPI functions imported | distinct unsupported | binaries importing an unsupported one |");
        System.out.println("| --- | ---: | ---: | ---: | ---: |");
        for (var e : perMpi.entrySet()) {
            System.out.printf("| %s | %d | %d | %d | %d |%n", e.getKey(), e.getValue()[0], fns.get(e.getKey()).size(),
                    unsupported.getOrDefault(e.getKey(), Set.of()).size(), e.getValue()[1]);
        }
        System.out.printf("%nELF files read: %d (%d checked) in %.2f s%n", elfs.size(), checked, secs);
        System.out.printf("{\"bench\":\"lint-scan\",\"elf\":%d,\"mpi_binaries\":%d,\"seconds\":%.2f}%n", elfs.size(), total, secs);
    }

    static boolean isMpiLib(Path p) {
        String n = p.getFileName().toString();
        return n.matches("lib(mpi|mpich|open-pal|open-rte|oshmem|mpi_\\w+|mpichf90|mpichcxx|mpichfort|fmpich|pmpi|ompitrace|mpl)\\.so.*")
                || p.toString().contains("/openmpi/lib/openmpi3/") || p.toString().contains("/openmpi/lib/pmix/");
    }
}
