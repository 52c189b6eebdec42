package dev.mana.mpidiag.cli;

import dev.mana.mpidiag.BinaryPreflight;
import dev.mana.mpidiag.CoverageManifest;
import dev.mana.mpidiag.Diagnostic;
import dev.mana.mpidiag.Linter;
import dev.mana.mpidiag.ManifestException;
import dev.mana.mpidiag.Severity;
import dev.mana.mpidiag.SourceWalker;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * mana_lint: which MPI calls of a program's sources, or of a built program, cannot be checkpointed.
 * Exit 0: nothing at or above --fail-on; 1: findings; 2: an error (bad manifest, missing path, usage).
 */
@Command(name = "mana_lint", mixinStandardHelpOptions = true, version = "mana_lint 0.1.0",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {"Report MPI calls that MANA cannot checkpoint, from the MPI coverage manifest.",
                "PATHS: C, C++ and Fortran files or directories (with compile_commands.json:",
                "the files it compiles). --binary: the MPI functions a built program imports.",
                "Exit status: 0 clean, 1 findings (at or above --fail-on), 2 error."},
        exitCodeOnInvalidInput = 2, exitCodeOnExecutionException = 2)
public final class ManaLint implements Callable<Integer> {
    @Option(names = "--manifest", paramLabel = "FILE",
            description = "coverage manifest (default: <root>/share/mana/mpi-coverage.json)")
    Path manifest;

    @Option(names = "--mpi", paramLabel = "MPI", description = "check against one MPI: openmpi or mpich")
    String mpi;

    @Option(names = "--binary", paramLabel = "PROGRAM",
            description = "check a built program (and the non-MPI libraries it loads) instead of sources")
    Path binary;

    @Option(names = "--json", description = "one JSON object on standard output")
    boolean json;

    @Option(names = "--sarif", description = "SARIF 2.1.0 on standard output (for CI code scanning)")
    boolean sarif;

    @Option(names = "--fail-on", paramLabel = "LEVEL",
            description = "lowest severity that makes the exit status 1: error, warning or note "
                    + "(default: warning for sources, error for --binary)")
    String failOn;

    @Option(names = {"-q", "--quiet"}, description = "no summary line on standard error")
    boolean quiet;

    @Parameters(paramLabel = "PATHS", arity = "0..*", description = "files and directories to check")
    List<Path> paths = new ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        // buffered, flushed once at the end: tens of thousands of findings must not mean as many writes
        PrintWriter out = new PrintWriter(new java.io.BufferedWriter(
                new java.io.OutputStreamWriter(System.out, java.nio.charset.StandardCharsets.UTF_8), 1 << 16), false);
        System.exit(run(args, out, new PrintWriter(System.err, true)));
    }

    /** Runs the command with the given streams (tests call this); returns the exit status. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new ManaLint());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            err.println("mana_lint: " + ex.getMessage());
            return 2;
        });
        int rc = cl.execute(args);
        out.flush();
        err.flush();
        return rc;
    }

    /** The installation root: -Dmana.root (set by bin/mana_lint), else two folders above our jar. */
    public static Path installRoot() {
        String prop = System.getProperty("mana.root");
        if (prop != null && !prop.isEmpty()) {
            return Path.of(prop);
        }
        try {
            Path jar = Path.of(ManaLint.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path lib = jar.getParent();
            return lib.getParent().getParent();
        } catch (Exception e) {
            return Path.of(".");
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (json && sarif) {
            err.println("mana_lint: --json and --sarif exclude each other");
            return 2;
        }
        if (mpi != null && !mpi.equals("openmpi") && !mpi.equals("mpich")) {
            err.println("mana_lint: --mpi must be openmpi or mpich, not " + mpi);
            return 2;
        }
        if (binary == null && paths.isEmpty()) {
            err.println("mana_lint: nothing to check: give PATHS or --binary PROGRAM (see --help)");
            return 2;
        }
        if (binary != null && !paths.isEmpty()) {
            err.println("mana_lint: give either PATHS or --binary PROGRAM, not both");
            return 2;
        }
        Severity threshold;
        try {
            threshold = threshold(failOn, binary != null ? Severity.ERROR : Severity.WARNING);
        } catch (IllegalArgumentException e) {
            err.println("mana_lint: " + e.getMessage());
            return 2;
        }
        Path manifestFile = manifest != null ? manifest : CoverageManifest.defaultLocation(installRoot());
        CoverageManifest m;
        try {
            m = CoverageManifest.read(manifestFile);
        } catch (ManifestException e) {
            err.println("mana_lint: " + e.getMessage());
            return 2;
        }
        List<Diagnostic> ds;
        try {
            ds = binary != null ? checkBinary(m, out) : checkSources(m, out);
        } catch (IOException | UncheckedIOException e) {
            String msg = e instanceof UncheckedIOException u ? u.getCause().getMessage() : e.getMessage();
            err.println("mana_lint: " + msg);
            return 2;
        }
        if (!quiet && !json && !sarif) {
            long e = ds.stream().filter(d -> d.severity() == Severity.ERROR).count();
            long w = ds.stream().filter(d -> d.severity() == Severity.WARNING).count();
            long n = ds.size() - e - w;
            err.println("mana_lint: " + e + " error(s), " + w + " warning(s), " + n + " note(s)" + scope);
        }
        return ds.stream().anyMatch(d -> d.severity().compareTo(threshold) <= 0) ? 1 : 0;
    }

    private String scope = "";

    static Severity threshold(String level, Severity dflt) {
        if (level == null) {
            return dflt;
        }
        return switch (level) {
            case "error" -> Severity.ERROR;
            case "warning" -> Severity.WARNING;
            case "note", "information", "info" -> Severity.INFORMATION;
            default -> throw new IllegalArgumentException("--fail-on must be error, warning or note, not " + level);
        };
    }

    private List<Diagnostic> checkSources(CoverageManifest m, PrintWriter out) throws IOException {
        for (Path p : paths) {
            if (java.nio.file.Files.isRegularFile(p) && dev.mana.mpidiag.Language.of(p).isEmpty()
                    && !p.getFileName().toString().equals("compile_commands.json")) {
                spec.commandLine().getErr().println("mana_lint: " + p + ": not a C, C++ or Fortran file (by its name); skipped");
            }
        }
        List<Path> files = SourceWalker.files(paths);
        Linter linter = new Linter(m, mpi);
        // files are independent: lint them on every core, print in file order
        List<List<Diagnostic>> perFile = files.parallelStream().map(f -> {
            try {
                return linter.lintFile(f);
            } catch (IOException e) {
                throw new UncheckedIOException(new IOException(f + ": " + e.getMessage(), e));
            }
        }).toList();
        List<Diagnostic> ds = new ArrayList<>();
        perFile.forEach(ds::addAll);
        scope = " in " + files.size() + " file(s)";
        if (json) {
            out.println(Reports.sourcesJson(m, files.size(), ds));
        } else if (sarif) {
            out.println(Reports.sarif(ds, spec.version()[0]));
        } else {
            ds.forEach(d -> out.println(Reports.compilerLine(d)));
        }
        return ds;
    }

    private List<Diagnostic> checkBinary(CoverageManifest m, PrintWriter out) throws IOException {
        BinaryPreflight.Report r = new BinaryPreflight(m).check(binary);
        List<Diagnostic> ds = new ArrayList<>(BinaryPreflight.diagnostics(r));
        if (mpi != null) {
            for (BinaryPreflight.Import i : r.imports()) {
                if (i.entry() != null && !i.entry().exportedBy(mpi)) {
                    ds.add(new Diagnostic(binary.toString(), null, dev.mana.mpidiag.Rule.NOT_EXPORTED,
                            Severity.INFORMATION, i.function(), i.function() + " is not exported by " + mpi, null));
                }
            }
        }
        ds.sort(Comparator.comparing(Diagnostic::severity));
        scope = " in " + binary + " (" + r.imports().size() + " MPI function(s) imported, "
                + (r.objects().size() - 1) + " librar" + (r.objects().size() == 2 ? "y" : "ies") + " loaded"
                + (r.missing().isEmpty() ? "" : ", not found: " + String.join(", ", r.missing())) + ")";
        if (json) {
            out.println(Reports.binaryJson(m, r, ds));
        } else if (sarif) {
            out.println(Reports.sarif(ds, spec.version()[0]));
        } else {
            ds.forEach(d -> out.println(Reports.compilerLine(d)));
        }
        return ds;
    }
}
