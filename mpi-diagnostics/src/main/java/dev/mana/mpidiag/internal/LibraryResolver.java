package dev.mana.mpidiag.internal;

import dev.mana.elf.ElfFile;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds a DT_NEEDED library the way glibc's ld.so does (ld.so(8)): a name with a slash is a path;
 * otherwise DT_RPATH of the requesting object and of the objects that loaded it (only when the
 * requester has no DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH of the requester, the directories
 * of /etc/ld.so.conf (what ldconfig caches), then the default directories. $ORIGIN, $LIB and
 * $PLATFORM are expanded. A candidate of another ELF class or machine is skipped, as ld.so skips it.
 */
public final class LibraryResolver {
    private static final List<String> DEFAULT_DIRS = List.of("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
            "/lib64", "/usr/lib64", "/lib", "/usr/lib");

    private final List<String> ldLibraryPath;
    private final List<String> systemDirs;

    public LibraryResolver(String ldLibraryPath, Path ldSoConf) {
        this.ldLibraryPath = split(ldLibraryPath);
        List<String> dirs = new ArrayList<>();
        Set<Path> seen = new LinkedHashSet<>();
        readConf(ldSoConf, dirs, seen);
        for (String d : DEFAULT_DIRS) {
            if (!dirs.contains(d)) {
                dirs.add(d);
            }
        }
        this.systemDirs = List.copyOf(dirs);
    }

    /** The system's resolver: this process's LD_LIBRARY_PATH and /etc/ld.so.conf. */
    public static LibraryResolver system() {
        return new LibraryResolver(System.getenv("LD_LIBRARY_PATH"), Path.of("/etc/ld.so.conf"));
    }

    private static void readConf(Path conf, List<String> dirs, Set<Path> seen) {
        if (conf == null || !seen.add(conf.toAbsolutePath().normalize()) || !Files.isRegularFile(conf)) {
            return;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(conf);
        } catch (IOException e) {
            return; // an unreadable ld.so.conf: ld.so would use its cache; we fall back to the defaults
        }
        for (String raw : lines) {
            String line = raw.replaceAll("#.*", "").strip();
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("include ") || line.startsWith("include\t")) {
                String pattern = line.substring(8).strip();
                Path p = Path.of(pattern);
                if (!p.isAbsolute()) {
                    p = conf.getParent().resolve(p);
                }
                Path dir = p.getParent();
                String glob = p.getFileName().toString();
                if (dir == null || !Files.isDirectory(dir)) {
                    continue;
                }
                List<Path> matches = new ArrayList<>();
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, glob)) {
                    ds.forEach(matches::add);
                } catch (IOException e) {
                    continue;
                }
                matches.sort(null);
                for (Path m : matches) {
                    readConf(m, dirs, seen);
                }
            } else {
                for (String d : line.split("[\\s:,]+")) {
                    if (d.startsWith("/") && !dirs.contains(d)) {
                        dirs.add(d);
                    }
                }
            }
        }
    }

    private static List<String> split(String path) {
        List<String> out = new ArrayList<>();
        if (path == null) {
            return out;
        }
        for (String d : path.split("[:;]")) {
            // an empty entry means the current directory, as in ld.so
            out.add(d.isEmpty() ? "." : d);
        }
        return out;
    }

    /** One loaded object as the resolver needs it: where it is, its ELF facts. */
    public record Loaded(Path path, ElfFile elf) {}

    /**
     * The file a DT_NEEDED entry of {@code chain.get(0)} resolves to; {@code chain} is the requester
     * followed by the objects that loaded it, up to the program. Null when nothing matches.
     */
    public Path resolve(String needed, List<Loaded> chain, ElfCache cache) {
        Loaded requester = chain.get(0);
        if (needed.contains("/")) {
            Path p = Path.of(expand(needed, requester.path()));
            return compatible(p, requester.elf(), cache) ? p : null;
        }
        List<String> dirs = new ArrayList<>();
        if (requester.elf().runpath() == null) {
            for (Loaded l : chain) {
                if (l.elf().rpath() != null) {
                    for (String d : l.elf().rpath().split(":")) {
                        dirs.add(expand(d, l.path()));
                    }
                }
            }
        }
        dirs.addAll(ldLibraryPath);
        if (requester.elf().runpath() != null) {
            for (String d : requester.elf().runpath().split(":")) {
                dirs.add(expand(d, requester.path()));
            }
        }
        dirs.addAll(systemDirs);
        for (String d : dirs) {
            if (d.isEmpty()) {
                continue;
            }
            Path p = Path.of(d).resolve(needed);
            if (compatible(p, requester.elf(), cache)) {
                return p;
            }
        }
        return null;
    }

    private static boolean compatible(Path p, ElfFile requester, ElfCache cache) {
        if (!Files.isRegularFile(p)) {
            return false;
        }
        ElfFile e = cache.get(p);
        return e != null && e.is64() == requester.is64() && e.machine() == requester.machine();
    }

    /** $ORIGIN (the directory of the object), $LIB, $PLATFORM, in both spellings. */
    static String expand(String entry, Path object) {
        if (entry.indexOf('$') < 0) {
            return entry;
        }
        Path dir = object.toAbsolutePath().getParent();
        String origin = dir == null ? "/" : dir.toString();
        return entry.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)
                .replace("${LIB}", "lib/x86_64-linux-gnu").replace("$LIB", "lib/x86_64-linux-gnu")
                .replace("${PLATFORM}", "x86_64").replace("$PLATFORM", "x86_64");
    }

    /** Parsed ELF files by path (a library is read once however many objects need it). */
    public static final class ElfCache {
        private final java.util.Map<Path, ElfFile> files = new java.util.HashMap<>();
        private final java.util.Map<Path, String> errors = new java.util.HashMap<>();

        public ElfFile get(Path p) {
            Path key = p.toAbsolutePath().normalize();
            if (files.containsKey(key)) {
                return files.get(key);
            }
            ElfFile e = null;
            try {
                e = ElfFile.read(key);
                if (!e.hasSectionHeaders()) {
                    errors.put(key, key + ": ELF file without section headers (cannot read its dynamic symbols)");
                    e = null;
                }
            } catch (IOException ex) {
                errors.put(key, ex.getMessage());
            }
            files.put(key, e);
            return e;
        }

        public String error(Path p) {
            return errors.get(p.toAbsolutePath().normalize());
        }
    }
}
