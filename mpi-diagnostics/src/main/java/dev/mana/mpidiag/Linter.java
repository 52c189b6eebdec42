package dev.mana.mpidiag;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The source rules over a {@link SourceScan}, answered from the coverage manifest:
 * <ul>
 * <li>a reference to an {@code unsupported} function is an error, to a {@code partial} one a warning
 *     (with the manifest's reason); a {@code PMPI_} twin has the same status;</li>
 * <li>{@code MPI_Init_thread} asking for {@code MPI_THREAD_MULTIPLE} is a warning;</li>
 * <li>a {@code PMPI_} call of a supported function, a call of an {@code MPI_} name the manifest does not
 *     list, and (with an MPI selected) a function that MPI does not export are information.</li>
 * </ul>
 * A {@code mana-lint: ignore NAME} comment silences a finding (see {@link SourceScan#suppressed}).
 */
public final class Linter {
    /** C names of functions follow MPI_Xxx (constants are all capitals). */
    private static final Pattern C_FUNCTION_NAME = Pattern.compile("P?MPI_[A-Z][a-z0-9_]*[a-z][a-z0-9_]*");

    private final CoverageManifest manifest;
    private final String mpi;

    /** @param mpi the ABI to check against ({@code openmpi}, {@code mpich}), or null for any */
    public Linter(CoverageManifest manifest, String mpi) {
        this.manifest = manifest;
        this.mpi = mpi;
    }

    public CoverageManifest manifest() {
        return manifest;
    }

    /** Lints a file from disk; the language comes from its name. */
    public List<Diagnostic> lintFile(Path file) throws IOException {
        Optional<Language> lang = Language.of(file);
        if (lang.isEmpty()) {
            return List.of();
        }
        // decode straight into a char array the tokenizer reads (no String copy of a big file)
        java.nio.CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPLACE)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPLACE)
                .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file)));
        char[] a = chars.hasArray() && chars.arrayOffset() == 0 ? chars.array() : chars.toString().toCharArray();
        return lint(file.toString(), SourceScan.of(a, chars.remaining(), lang.get()));
    }

    /** Source files are mostly ASCII/UTF-8; bytes that are not UTF-8 must not stop the scan. */
    public static String readSource(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    public List<Diagnostic> lint(String file, CharSequence text, Language language) {
        return lint(file, SourceScan.of(text, language));
    }

    public List<Diagnostic> lint(String file, SourceScan scan) {
        List<Diagnostic> out = new ArrayList<>();
        boolean fortran = scan.language().isFortran();
        for (MpiReference ref : scan.references()) {
            Optional<MpiFunction> fn = find(ref.name(), fortran);
            Optional<String> folded = CoverageManifest.foldedName(ref.name());
            if (folded.isEmpty()) {
                continue;
            }
            if (scan.suppressed(ref.range().startLine(), folded.get())) {
                continue;
            }
            String via = ref.viaMacro() == null ? "" : " (through macro " + ref.viaMacro() + ")";
            boolean profiling = CoverageManifest.isProfiling(ref.name());
            if (fn.isEmpty()) {
                if (ref.call() && (fortran || C_FUNCTION_NAME.matcher(ref.name()).matches())) {
                    out.add(new Diagnostic(file, ref.range(), Rule.UNKNOWN, Rule.UNKNOWN.severity(), ref.name(),
                            ref.name() + " is not in the MPI coverage manifest" + via
                                    + ": whether it can be checkpointed is not known", null));
                }
                continue;
            }
            MpiFunction f = fn.get();
            String shown = profiling ? "P" + f.name() : f.name();
            if (ref.threadMultiple() != null) {
                String why = f.reason() != null ? f.reason()
                        : "the runtime may not checkpoint concurrent MPI calls from several threads";
                out.add(new Diagnostic(file, ref.threadMultiple(), Rule.THREAD_MULTIPLE, Rule.THREAD_MULTIPLE.severity(),
                        f.name(), shown + " asks for MPI_THREAD_MULTIPLE" + via + ": " + why, f.reason()));
                if (f.status() != Status.UNSUPPORTED) {
                    continue; // the partial warning says the same thing
                }
            }
            switch (f.status()) {
                case UNSUPPORTED -> out.add(new Diagnostic(file, ref.range(), Rule.UNSUPPORTED, Severity.ERROR, f.name(),
                        shown + " is not supported under checkpointing" + via + reasonSuffix(f), f.reason()));
                case PARTIAL -> out.add(new Diagnostic(file, ref.range(), Rule.PARTIAL, Severity.WARNING, f.name(),
                        shown + " is only partly supported under checkpointing" + via + reasonSuffix(f), f.reason()));
                case SUPPORTED -> {
                    if (profiling) {
                        out.add(new Diagnostic(file, ref.range(), Rule.PROFILING, Rule.PROFILING.severity(), f.name(),
                                shown + " calls the profiling interface directly" + via
                                        + "; it is checkpoint-safe like " + f.name(), null));
                        continue;
                    }
                }
            }
            if (mpi != null && !f.mpis().isEmpty() && !f.exportedBy(mpi)) {
                out.add(new Diagnostic(file, ref.range(), Rule.NOT_EXPORTED, Rule.NOT_EXPORTED.severity(), f.name(),
                        f.name() + " is not exported by " + mpi + via + " (only by " + String.join(", ", f.mpis()) + ")",
                        null));
            }
        }
        return out;
    }

    private static String reasonSuffix(MpiFunction f) {
        return f.reason() == null ? "" : ": " + f.reason();
    }

    /**
     * The manifest entry a reference names. C is case-sensitive: only the exact C name (or its PMPI_
     * twin) counts, so constants like MPI_COMM_WORLD never match. Fortran folds case and suffixes.
     */
    public Optional<MpiFunction> find(String name, boolean fortran) {
        if (fortran) {
            return manifest.lookup(name);
        }
        return manifest.lookupCName(name.startsWith("PMPI_") ? name.substring(1) : name);
    }

    /** The hover text of a function: status, reason, and where the full list is. */
    public static String describe(MpiFunction f) {
        StringBuilder sb = new StringBuilder();
        sb.append("**").append(f.name()).append("**: ").append(switch (f.status()) {
            case SUPPORTED -> "supported under checkpointing";
            case PARTIAL -> "partly supported under checkpointing";
            case UNSUPPORTED -> "not supported under checkpointing";
        });
        if (f.reason() != null) {
            sb.append("\n\n").append(f.reason());
        }
        if (!f.mpis().isEmpty()) {
            sb.append("\n\nExported by: ").append(String.join(", ", f.mpis()));
        }
        sb.append("\n\nSee docs/mpi-coverage.md (").append(f.name().toLowerCase(Locale.ROOT)).append(")");
        return sb.toString();
    }
}
