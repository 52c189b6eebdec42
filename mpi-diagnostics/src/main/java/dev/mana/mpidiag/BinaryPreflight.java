package dev.mana.mpidiag;

import dev.mana.elf.ElfFile;
import dev.mana.mpidiag.internal.LibraryResolver;
import dev.mana.mpidiag.internal.LibraryResolver.ElfCache;
import dev.mana.mpidiag.internal.LibraryResolver.Loaded;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Binary preflight: which MPI functions a program will call, from the undefined dynamic symbols of
 * the program and of every non-MPI library it loads (DT_NEEDED resolved as ld.so resolves it), checked
 * against the coverage manifest. MPI libraries themselves are not looked into: what they call is the
 * runtime's business, not the program's.
 */
public final class BinaryPreflight {
    /** File names of MPI libraries (besides the manifest's sonames): Open MPI's and MPICH's families. */
    private static final Pattern MPI_LIBRARY = Pattern.compile(
            "lib(mpi|mpi_mpifh|mpi_usempi\\w*|mpi_cxx|mpich\\w*|mpichf90|mpichcxx|mpichfort|fmpich|pmpi|open-pal|open-rte|oshmem|mca_common_\\w+"
                    + "|ompitrace|mpl|mana_mpi\\w*)\\.so(\\..*)?");

    private final CoverageManifest manifest;
    private final LibraryResolver resolver;

    public BinaryPreflight(CoverageManifest manifest, LibraryResolver resolver) {
        this.manifest = manifest;
        this.resolver = resolver;
    }

    public BinaryPreflight(CoverageManifest manifest) {
        this(manifest, LibraryResolver.system());
    }

    /** One loaded object. */
    public record LoadedObject(Path path, String needed, boolean mpi, String neededBy) {}

    /** One imported MPI function: the symbols that name it and the objects that import it. */
    public record Import(String function, MpiFunction entry, Set<String> symbols, Set<String> importers) {}

    /** The result for one program. */
    public record Report(Path program, List<LoadedObject> objects, List<Import> imports, List<String> missing,
                         String mpi) {
        /** The imports the manifest lists with the given status. */
        public List<Import> withStatus(Status s) {
            return imports.stream().filter(i -> i.entry() != null && i.entry().status() == s).toList();
        }
    }

    /** Checks a program; IOException (one line) when it is no readable ELF file. */
    public Report check(Path program) throws IOException {
        if (!Files.exists(program)) {
            throw new NoSuchFileException(program + ": no such file");
        }
        Path real = program.toRealPath();
        ElfCache cache = new ElfCache();
        ElfFile root = cache.get(real);
        if (root == null) {
            throw new IOException(Optional.ofNullable(cache.error(real)).orElse(program + ": not an ELF file"));
        }
        List<LoadedObject> objects = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        Map<String, Import> imports = new TreeMap<>();
        Set<String> loadedNames = new HashSet<>();
        Set<Path> loadedPaths = new HashSet<>();
        String mpi = null;

        // breadth first, as ld.so loads: each entry is a chain (object, its loader, ..., the program)
        Deque<List<Loaded>> queue = new ArrayDeque<>();
        queue.add(List.of(new Loaded(real, root)));
        loadedPaths.add(real);
        objects.add(new LoadedObject(real, null, false, null));
        Map<Path, String> displayName = new HashMap<>();
        displayName.put(real, program.toString());
        while (!queue.isEmpty()) {
            List<Loaded> chain = queue.poll();
            Loaded obj = chain.get(0);
            String who = displayName.get(obj.path());
            collectImports(obj.elf(), who, imports);
            for (String needed : obj.elf().needed()) {
                if (!loadedNames.add(needed)) {
                    continue;
                }
                Path p = resolver.resolve(needed, chain, cache);
                if (p == null) {
                    missing.add(needed + " (needed by " + who + ")");
                    continue;
                }
                Path key = p.toAbsolutePath().normalize();
                if (!loadedPaths.add(key)) {
                    continue;
                }
                ElfFile lib = cache.get(key);
                boolean isMpi = isMpiLibrary(needed, lib);
                if (isMpi && mpi == null) {
                    mpi = abiOf(needed);
                }
                objects.add(new LoadedObject(key, needed, isMpi, who));
                displayName.put(key, key.toString());
                if (!isMpi) {
                    List<Loaded> next = new ArrayList<>(chain.size() + 1);
                    next.add(new Loaded(key, lib));
                    next.addAll(chain);
                    queue.add(next);
                }
            }
        }
        return new Report(program, objects, List.copyOf(imports.values()), missing, mpi);
    }

    private void collectImports(ElfFile elf, String who, Map<String, Import> imports) {
        for (ElfFile.Symbol sym : elf.dynamicSymbols()) {
            if (sym.defined()) {
                continue;
            }
            String name = sym.name();
            char c = name.charAt(0);
            if (c != 'M' && c != 'm' && c != 'P' && c != 'p') {
                continue;
            }
            Optional<String> folded = CoverageManifest.foldedName(name);
            if (folded.isEmpty()) {
                continue;
            }
            Optional<MpiFunction> f = manifest.lookupFolded(folded.get());
            if (f.isEmpty() && !looksLikeFunction(name)) {
                continue; // MPI_COMM_WORLD-like data symbols of MPICH's Fortran, ompi_mpi_* never get here
            }
            String key = f.map(MpiFunction::name).orElse(name);
            Import imp = imports.computeIfAbsent(key, k -> new Import(k, f.orElse(null),
                    new java.util.TreeSet<>(), new java.util.LinkedHashSet<>()));
            imp.symbols().add(name);
            imp.importers().add(who);
        }
    }

    /** C or Fortran function spelling (not an all-capital C constant). */
    private static boolean looksLikeFunction(String symbol) {
        return symbol.matches("P?MPI_[A-Z][a-z0-9_]*[a-z][a-z0-9_]*") || symbol.matches("p?mpi_[a-z0-9_]+_");
    }

    private boolean isMpiLibrary(String needed, ElfFile lib) {
        String base = Path.of(needed).getFileName().toString();
        for (CoverageManifest.Mpi m : manifest.mpis()) {
            if (base.equals(m.soname()) || base.equals(m.fortranSoname())) {
                return true;
            }
        }
        if (MPI_LIBRARY.matcher(base).matches()) {
            return true;
        }
        if (lib != null) {
            for (ElfFile.Symbol s : lib.dynamicSymbols()) {
                if (s.defined() && (s.name().equals("MPI_Init") || s.name().equals("PMPI_Init")
                        || s.name().equals("mpi_init_"))) {
                    return true;
                }
            }
        }
        return false;
    }

    private String abiOf(String needed) {
        String base = Path.of(needed).getFileName().toString();
        for (CoverageManifest.Mpi m : manifest.mpis()) {
            if (base.equals(m.soname()) || base.equals(m.fortranSoname())) {
                return m.id();
            }
        }
        if (base.startsWith("libmpich")) {
            return "mpich";
        }
        if (base.startsWith("libmpi")) {
            return "openmpi";
        }
        return null;
    }

    /** The findings of a report, most severe first; {@code file} names the program in them. */
    public static List<Diagnostic> diagnostics(Report r) {
        List<Diagnostic> out = new ArrayList<>();
        String file = r.program().toString();
        for (Import i : r.imports()) {
            String by = " (imported by " + String.join(", ", i.importers()) + ")";
            MpiFunction f = i.entry();
            if (f == null) {
                out.add(new Diagnostic(file, null, Rule.UNKNOWN, Rule.UNKNOWN.severity(), i.function(),
                        i.function() + " is not in the MPI coverage manifest" + by, null));
                continue;
            }
            String reason = f.reason() == null ? "" : ": " + f.reason();
            switch (f.status()) {
                case UNSUPPORTED -> out.add(new Diagnostic(file, null, Rule.UNSUPPORTED, Severity.ERROR, f.name(),
                        f.name() + " is not supported under checkpointing" + reason + by, f.reason()));
                case PARTIAL -> out.add(new Diagnostic(file, null, Rule.PARTIAL, Severity.WARNING, f.name(),
                        f.name() + " is only partly supported under checkpointing" + reason + by, f.reason()));
                case SUPPORTED -> { }
            }
        }
        out.sort((a, b) -> a.severity().compareTo(b.severity()));
        return out;
    }

    /** Counts for tables: functions imported, and how many of them each status has. */
    public static Map<String, Integer> counts(Report r) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("imported", r.imports().size());
        for (Status s : Status.values()) {
            m.put(s.id(), r.withStatus(s).size());
        }
        m.put("unknown", (int) r.imports().stream().filter(i -> i.entry() == null).count());
        return m;
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
