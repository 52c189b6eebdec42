package dev.mana.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared reader on this system's libc (both users' views of one file: gdb-integration's segments,
 * build-id and symbol look-up, mpi-diagnostics' dynamic section and symbols); its users' own tests run it on
 * the runtime's files (RuntimeSymbolsTest, BinaryPreflightTest, ...).
 */
class ElfFileTest {
    static final Path LIBC = Path.of("/lib/x86_64-linux-gnu/libc.so.6");

    @Test
    void libcBothViews() throws Exception {
        assertTrue(Files.isRegularFile(LIBC), LIBC + " (a Debian x86-64 system)");
        ElfFile e = ElfFile.read(LIBC);
        assertTrue(e.is64());
        assertTrue(e.littleEndian());
        assertEquals(62, e.machine());
        assertEquals(ElfFile.ET_DYN, e.elfType());
        assertTrue(e.hasSectionHeaders());
        assertEquals("libc.so.6", e.soname());
        assertTrue(e.needed().stream().anyMatch(n -> n.startsWith("ld-linux")), e.needed().toString());
        ElfFile.Symbol malloc = e.dynamicSymbols().stream().filter(s -> s.name().equals("malloc")).findFirst()
                .orElseThrow();
        assertTrue(malloc.defined());
        assertTrue(e.dynamicSymbols().stream().anyMatch(s -> !s.defined()), "libc imports from ld.so");
        // symbol look-up agrees with the dynamic symbol table
        assertEquals(malloc.value(), e.symbol("malloc"));
        assertArrayEquals(new long[] {malloc.value(), malloc.size()}, e.symbolRange("malloc"));
        assertNull(e.symbol("no_such_symbol_here"));
        // segments: the first page maps at bias = start - lowest address
        assertTrue(e.segments().stream().anyMatch(s -> s.type() == ElfFile.PT_LOAD));
        assertEquals(0x7f0000000000L - e.lowestLoadAddress(), e.biasFor(0x7f0000000000L, 0));
        assertTrue(e.highestLoadEnd() > e.lowestLoadAddress());
        assertNotNull(e.buildId(), "Debian builds carry a GNU build-id");
        assertTrue(e.buildId().matches("[0-9a-f]{40}"), e.buildId());
        assertTrue(e.sections().stream().anyMatch(s -> s.name().equals(".dynsym") && s.type() == ElfFile.SHT_DYNSYM));
        // the build-id as memory holds it: the file's own bytes at bias 0
        byte[] bytes = Files.readAllBytes(LIBC);
        ElfFile.Segment first = e.segments().get(0);
        assertEquals(e.buildId(), e.buildIdInMemory((a, n) -> {
            ElfFile.Segment s = e.segments().stream().filter(x -> x.type() == ElfFile.PT_NOTE
                    && a >= x.vaddr() && a < x.vaddr() + x.filesz()).findFirst().orElse(first);
            return Arrays.copyOfRange(bytes, (int) (a - s.vaddr() + s.offset()), (int) (a - s.vaddr() + s.offset()) + n);
        }, 0));
    }

    @Test
    void notElfTruncatedAndMissingAreOneLineErrors(@TempDir Path tmp) throws Exception {
        Path text = Files.writeString(tmp.resolve("script.sh"), "#!/bin/sh\necho this is not an ELF file at all\n");
        assertFalse(ElfFile.isElf(text));
        IOException e = assertThrows(IOException.class, () -> ElfFile.read(text));
        assertEquals(text + ": not an ELF file", e.getMessage());
        Path tiny = Files.write(tmp.resolve("tiny"), new byte[] {0x7f, 'E', 'L', 'F'});
        assertTrue(ElfFile.isElf(tiny));
        assertTrue(assertThrows(IOException.class, () -> ElfFile.read(tiny)).getMessage().contains("not an ELF file (too short)"));
        byte[] head = Arrays.copyOf(Files.readAllBytes(LIBC), 4096);
        Path cut = Files.write(tmp.resolve("cut.so"), head);
        String m = assertThrows(IOException.class, () -> ElfFile.read(cut)).getMessage();
        assertTrue(m.startsWith(cut + ": ") && m.contains("outside the file"), m);
        assertFalse(ElfFile.isElf(tmp.resolve("absent")));
        assertThrows(IOException.class, () -> ElfFile.read(tmp.resolve("absent")));
    }
}
