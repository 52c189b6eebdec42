package dev.mana.mpidiag;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The source files named by command-line paths: files as given; directories walked for C, C++ and
 * Fortran files (hidden directories skipped), except that a directory holding a
 * {@code compile_commands.json} (itself or in {@code build/}) means exactly the files that database
 * compiles.
 */
public final class SourceWalker {
    private SourceWalker() {
    }

    public static List<Path> files(List<Path> paths) throws IOException {
        Set<Path> out = new LinkedHashSet<>();
        for (Path p : paths) {
            if (!Files.exists(p)) {
                throw new NoSuchFileException(p + ": no such file or directory");
            }
            if (Files.isDirectory(p)) {
                Path db = compileCommands(p);
                if (db != null) {
                    out.addAll(fromCompileCommands(db));
                } else {
                    walk(p, out);
                }
            } else if (p.getFileName().toString().equals("compile_commands.json")) {
                out.addAll(fromCompileCommands(p));
            } else {
                out.add(p);
            }
        }
        return new ArrayList<>(out);
    }

    private static Path compileCommands(Path dir) {
        for (Path c : List.of(dir.resolve("compile_commands.json"), dir.resolve("build").resolve("compile_commands.json"))) {
            if (Files.isRegularFile(c)) {
                return c;
            }
        }
        return null;
    }

    /** The "file" of each entry, against its "directory"; files that no longer exist are skipped. */
    public static List<Path> fromCompileCommands(Path db) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Reader r = Files.newBufferedReader(db)) {
            JsonElement root = JsonParser.parseReader(r);
            if (!root.isJsonArray()) {
                throw new IOException(db + ": not a compilation database (expected a JSON array)");
            }
            for (JsonElement e : root.getAsJsonArray()) {
                if (!e.isJsonObject()) {
                    continue;
                }
                JsonObject o = e.getAsJsonObject();
                if (!o.has("file")) {
                    continue;
                }
                Path f = Path.of(o.get("file").getAsString());
                if (!f.isAbsolute() && o.has("directory")) {
                    f = Path.of(o.get("directory").getAsString()).resolve(f);
                }
                if (Files.isRegularFile(f) && Language.of(f).isPresent()) {
                    out.add(f.normalize());
                }
            }
        } catch (JsonParseException | IllegalStateException e) {
            throw new IOException(db + ": not valid JSON (" + e.getMessage() + ")");
        }
        return out;
    }

    private static void walk(Path dir, Set<Path> out) throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                String name = d.getFileName() == null ? "" : d.getFileName().toString();
                return !d.equals(dir) && name.startsWith(".") ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
                if (attrs.isRegularFile() && Language.of(f).isPresent()) {
                    found.add(f);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) {
                return FileVisitResult.CONTINUE; // unreadable entries: nothing to lint there
            }
        });
        found.sort(null);
        out.addAll(found);
    }
}
