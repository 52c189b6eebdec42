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

    /**
     * A 32-bit big-endian shared object written here (no such compiler on the machine): the dynamic section,
     * the dynamic symbols with defined/undefined, symbol look-up and the program header, in that class and order.
     */
    @Test
    void thirtyTwoBitBigEndian(@TempDir Path tmp) throws Exception {
        java.io.ByteArrayOutputStream strs = new java.io.ByteArrayOutputStream();
        strs.write(0);
        int libm = strs.size();
        strs.writeBytes("libm.so.6\0".getBytes());
        int soname = strs.size();
        strs.writeBytes("libtiny.so.1\0".getBytes());
        int runpath = strs.size();
        strs.writeBytes("$ORIGIN/lib\0".getBytes());
        int mine = strs.size();
        strs.writeBytes("tiny_fn\0".getBytes());
        int theirs = strs.size();
        strs.writeBytes("sqrt\0".getBytes());
        byte[] dynstr = strs.toByteArray();
        byte[] shstr = "\0.dynstr\0.dynsym\0.dynamic\0.shstrtab\0".getBytes();
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1024).order(java.nio.ByteOrder.BIG_ENDIAN);
        int phoff = 52, dynstrOff = 0x60, dynsymOff = 0x100, dynOff = 0x140, shstrOff = 0x180, shoff = 0x1c0;
        b.put(new byte[] {0x7f, 'E', 'L', 'F', 1, 2, 1});
        b.putShort(16, (short) ElfFile.ET_DYN).putShort(18, (short) 8 /* MIPS */).putInt(20, 1);
        b.putInt(28, phoff).putInt(32, shoff).putShort(40, (short) 52).putShort(42, (short) 32).putShort(44, (short) 1)
                .putShort(46, (short) 40).putShort(48, (short) 5).putShort(50, (short) 4);
        // one PT_LOAD: offset 0, vaddr 0x10000, filesz = memsz = 0x200, flags R+X, align 0x10000
        b.putInt(phoff, ElfFile.PT_LOAD).putInt(phoff + 4, 0).putInt(phoff + 8, 0x10000).putInt(phoff + 12, 0x10000)
                .putInt(phoff + 16, 0x200).putInt(phoff + 20, 0x200).putInt(phoff + 24, 5).putInt(phoff + 28, 0x10000);
        b.put(dynstrOff, dynstr);
        // .dynsym: the null entry, tiny_fn defined (value 0x10100, size 16, section 2), sqrt undefined
        b.putInt(dynsymOff + 16, mine).putInt(dynsymOff + 20, 0x10100).putInt(dynsymOff + 24, 16)
                .putShort(dynsymOff + 30, (short) 2);
        b.putInt(dynsymOff + 32, theirs);
        int d = dynOff;
        for (int[] e : new int[][] {{1, libm}, {14, soname}, {29, runpath}, {0, 0}}) {
            b.putInt(d, e[0]).putInt(d + 4, e[1]);
            d += 8;
        }
        b.put(shstrOff, shstr);
        int[][] sh = { // name, type, offset, size, link, entsize
            {0, 0, 0, 0, 0, 0}, {1, 3, dynstrOff, dynstr.length, 0, 0}, {9, ElfFile.SHT_DYNSYM, dynsymOff, 48, 1, 16},
            {17, ElfFile.SHT_DYNAMIC, dynOff, 32, 1, 8}, {26, 3, shstrOff, shstr.length, 0, 0}};
        for (int i = 0; i < sh.length; i++) {
            int o = shoff + i * 40;
            b.putInt(o, sh[i][0]).putInt(o + 4, sh[i][1]).putInt(o + 16, sh[i][2]).putInt(o + 20, sh[i][3])
                    .putInt(o + 24, sh[i][4]).putInt(o + 36, sh[i][5]);
        }
        Path f = Files.write(tmp.resolve("libtiny.so.1"), Arrays.copyOf(b.array(), shoff + sh.length * 40));

        ElfFile e = ElfFile.read(f);
        assertFalse(e.is64());
        assertFalse(e.littleEndian());
        assertEquals(8, e.machine());
        assertEquals(java.util.List.of("libm.so.6"), e.needed());
        assertEquals("libtiny.so.1", e.soname());
        assertEquals("$ORIGIN/lib", e.runpath());
        assertNull(e.rpath());
        assertEquals(java.util.List.of(new ElfFile.Symbol("tiny_fn", 0x10100, 16, true),
                new ElfFile.Symbol("sqrt", 0, 0, false)), e.dynamicSymbols());
        assertArrayEquals(new long[] {0x10100, 16}, e.symbolRange("tiny_fn"));
        assertEquals(java.util.List.of(new ElfFile.Segment(ElfFile.PT_LOAD, 5, 0, 0x10000, 0x200, 0x200, 0x10000)),
                e.segments());
        assertEquals(0x7000_0000L - 0x10000, e.biasFor(0x7000_0000L, 0));
        assertEquals(".dynamic", e.sections().get(3).name());
        assertNull(e.buildId());
    }
}
