package dev.mana.gdb.split;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.mana.elf.ElfFile;
import dev.mana.gdb.testsupport.ManaRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every runtime name the debugger side relies on is defined in the built lower half: a rename in
 * core-native fails here, naming the file looked in, instead of in a debugging session. The MPI builds
 * of the lower half ({@code bin/lower-half-openmpi}, {@code -mpich}) are checked too where they were built.
 */
class RuntimeSymbolsTest {

    @Test
    void everyNameIsASymbolOfTheBuiltLowerHalf() throws IOException {
        Path lowerHalf = ManaRuntime.root().resolve(RuntimeSymbols.LOWER_HALF);
        if (!Files.isRegularFile(lowerHalf)) {
            fail(lowerHalf + " does not exist: build the runtime first (make build)");
        }
        List<Path> files = new ArrayList<>(List.of(lowerHalf));
        try (Stream<Path> s = Files.list(lowerHalf.getParent())) {
            s.filter(p -> p.getFileName().toString().startsWith("lower-half-")).sorted().forEach(files::add);
        }
        List<String> missing = new ArrayList<>();
        for (Path f : files) {
            ElfFile elf = ElfFile.read(f);
            for (String name : RuntimeSymbols.IN_LOWER_HALF) {
                if (elf.symbol(name) == null) {
                    missing.add(name + " in " + f);
                }
            }
        }
        assertTrue(missing.isEmpty(), "runtime symbols gdb-integration uses are not defined: " + missing);
    }

    /**
     * The two names that are no symbols, the member {@code uh_app_base} of {@code mana_lh} and the argument
     * {@code level} of {@code lh_restart_pause}, as gdb reads them from the lower half's debug information.
     */
    @Test
    void theMemberAndTheArgumentAreInTheDebugInformation() throws Exception {
        Path lowerHalf = ManaRuntime.root().resolve(RuntimeSymbols.LOWER_HALF);
        if (!Files.isRegularFile(lowerHalf)) {
            fail(lowerHalf + " does not exist: build the runtime first (make build)");
        }
        Process p = new ProcessBuilder("gdb", "-nx", "-q", "-batch",
                "-ex", "ptype " + RuntimeSymbols.MANA_LH,
                "-ex", "info scope " + RuntimeSymbols.LH_RESTART_PAUSE, lowerHalf.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor();
        assertTrue(out.contains(" " + RuntimeSymbols.UH_APP_BASE_FIELD + ";"),
                "no member " + RuntimeSymbols.UH_APP_BASE_FIELD + " in " + RuntimeSymbols.MANA_LH + " of " + lowerHalf
                        + ":\n" + out);
        assertTrue(out.contains("Symbol " + RuntimeSymbols.LH_RESTART_PAUSE_LEVEL_ARG + " is"),
                "no argument " + RuntimeSymbols.LH_RESTART_PAUSE_LEVEL_ARG + " of " + RuntimeSymbols.LH_RESTART_PAUSE
                        + " in " + lowerHalf + ":\n" + out);
    }

    @Test
    void theExpressionsBuiltFromThem() {
        assertEquals("(void *) mana_lh.uh_app_base", RuntimeSymbols.appBaseExpression());
        assertEquals("level == 3", RuntimeSymbols.restartPauseLevelCondition(3));
    }
}
