package dev.mana.gdb.split;

import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.command.CliAddSymbolFile;
import dev.mana.gdb.mi.command.MiFileListSharedLibraries;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Gives gdb the symbols of every object of a {@link SplitProcess}. gdb already knows the lower half's
 * executable ({@code /proc/PID/exe}) and, through the lower {@code ld.so}'s link map, the libraries
 * that loader mapped; everything else (the whole upper half, whose {@code ld.so} gdb never hears of)
 * is added with {@code add-symbol-file FILE -o BIAS}. Separate debug files are found by gdb itself
 * through the build-id or {@code .gnu_debuglink} of each file it loads.
 */
public final class SymbolLoader {
    private SymbolLoader() {
    }

    /** What was done for one object. */
    public enum Action {
        /** {@code add-symbol-file} succeeded. */
        ADDED,
        /** gdb had it already (main program, or a shared library of the lower half's link map). */
        KNOWN_TO_GDB,
        /** Not loaded: the file on disk is not the one that was mapped. */
        SKIPPED_MISMATCH,
        /** gdb refused the file; the message says why. */
        FAILED
    }

    public record Outcome(ElfObject object, Action action, String message) {
    }

    /** The same as the command a user would type: {@code add-symbol-file PATH -o 0xBIAS}. */
    public static String addSymbolFileCommand(ElfObject o) {
        return addSymbolFile(o).text();
    }

    private static CliAddSymbolFile addSymbolFile(ElfObject o) {
        return new CliAddSymbolFile(o.path(), o.bias());
    }

    /** The commands for every object gdb will not find by itself (for a gdb script: mana_gdb). */
    public static List<String> commands(SplitProcess sp) {
        List<String> out = new ArrayList<>();
        for (ElfObject o : sp.objects()) {
            if (o.loadable() && !isMainProgram(sp, o) && o.half() == dev.mana.inspector.Half.UPPER) {
                out.add(addSymbolFileCommand(o));
            }
        }
        return out;
    }

    private static boolean isMainProgram(SplitProcess sp, ElfObject o) {
        return sp.lowerHalfExe() != null && sp.lowerHalfExe().equals(o.path());
    }

    /** Loads what gdb lacks; gdb must be attached to the process (its lower half's libraries are read at attach). */
    public static List<Outcome> load(GdbMi gdb, SplitProcess sp) throws MiException {
        List<long[]> known = new ArrayList<>();
        List<String> knownNames = new ArrayList<>();
        for (MiFileListSharedLibraries.Library lib : gdb.run(new MiFileListSharedLibraries())) {
            for (long from : lib.rangeStarts()) {
                known.add(new long[] {from});
                knownNames.add(lib.name());
            }
        }
        List<Outcome> out = new ArrayList<>();
        for (ElfObject o : sp.objects()) {
            if (isMainProgram(sp, o)) {
                out.add(new Outcome(o, Action.KNOWN_TO_GDB, "main program"));
                continue;
            }
            String hit = null;
            for (int i = 0; i < known.size(); i++) {
                if (o.contains(known.get(i)[0]) && sameFile(o.path(), knownNames.get(i))) {
                    hit = knownNames.get(i);
                }
            }
            if (hit != null) {
                out.add(new Outcome(o, Action.KNOWN_TO_GDB, "shared library " + hit));
                continue;
            }
            if (!o.loadable()) {
                out.add(new Outcome(o, Action.SKIPPED_MISMATCH, "build-id " + o.buildIdOnDisk() + " on disk, "
                        + o.buildIdMapped() + " mapped"));
                continue;
            }
            CliAddSymbolFile cmd = addSymbolFile(o);
            var r = gdb.executeAllowError(cmd, java.time.Duration.ofSeconds(60));
            out.add(r.isError() ? new Outcome(o, Action.FAILED, r.errorMessage())
                    : new Outcome(o, Action.ADDED, cmd.text()));
        }
        return out;
    }

    private static boolean sameFile(Path a, String b) {
        try {
            return a.toRealPath().equals(Path.of(b).toRealPath());
        } catch (IOException | RuntimeException e) {
            return a.toString().equals(b);
        }
    }
}
