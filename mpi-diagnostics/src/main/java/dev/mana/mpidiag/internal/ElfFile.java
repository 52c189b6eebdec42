package dev.mana.mpidiag.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The dynamic linking facts of one ELF file, read from its section headers (.dynamic, .dynsym and
 * their string tables): DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH, and the dynamic symbols with
 * whether each is defined. 32- and 64-bit, either byte order. A small reader of our own: the few
 * structures needed are fixed by the ELF gABI, and the file is mapped, not copied.
 */
public final class ElfFile {
    private static final int SHT_DYNAMIC = 6;
    private static final int SHT_DYNSYM = 11;
    private static final long DT_NEEDED = 1;
    private static final long DT_SONAME = 14;
    private static final long DT_RPATH = 15;
    private static final long DT_RUNPATH = 29;

    /** One dynamic symbol: its name and whether this file defines it. */
    public record Symbol(String name, boolean defined) {}

    public final boolean is64;
    public final boolean littleEndian;
    public final int machine;
    public final int type;
    public final List<String> needed = new ArrayList<>();
    public String soname;
    public String rpath;
    public String runpath;
    public final List<Symbol> symbols = new ArrayList<>();

    private ElfFile(boolean is64, boolean little, int machine, int type) {
        this.is64 = is64;
        this.littleEndian = little;
        this.machine = machine;
        this.type = type;
    }

    /** Whether a file starts with the ELF magic (cheap: reads 4 bytes). */
    public static boolean isElf(Path file) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(4);
            while (b.hasRemaining() && ch.read(b) > 0) {
                // fill
            }
            return b.position() == 4 && b.get(0) == 0x7f && b.get(1) == 'E' && b.get(2) == 'L' && b.get(3) == 'F';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Reads a file; IOException with one line for anything that is not a readable ELF file. */
    public static ElfFile read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < 52) {
                throw new IOException(file + ": not an ELF file (too short)");
            }
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
            return parse(file, m);
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new IOException(file + ": malformed ELF file (" + e.getMessage() + ")");
        }
    }

    private static ElfFile parse(Path file, ByteBuffer b) throws IOException {
        if (b.get(0) != 0x7f || b.get(1) != 'E' || b.get(2) != 'L' || b.get(3) != 'F') {
            throw new IOException(file + ": not an ELF file");
        }
        boolean is64 = b.get(4) == 2;
        boolean little = b.get(5) == 1;
        b.order(little ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        ElfFile e = new ElfFile(is64, little, Short.toUnsignedInt(b.getShort(18)), Short.toUnsignedInt(b.getShort(16)));
        long shoff = is64 ? b.getLong(0x28) : Integer.toUnsignedLong(b.getInt(0x20));
        int shentsize = Short.toUnsignedInt(b.getShort(is64 ? 0x3a : 0x2e));
        int shnum = Short.toUnsignedInt(b.getShort(is64 ? 0x3c : 0x30));
        if (shoff == 0 || shnum == 0) {
            throw new IOException(file + ": ELF file without section headers (cannot read its dynamic symbols)");
        }
        for (int i = 0; i < shnum; i++) {
            int sh = Math.toIntExact(shoff + (long) i * shentsize);
            int shType = b.getInt(sh + 4);
            if (shType != SHT_DYNAMIC && shType != SHT_DYNSYM) {
                continue;
            }
            long off = is64 ? b.getLong(sh + 0x18) : Integer.toUnsignedLong(b.getInt(sh + 0x10));
            long sz = is64 ? b.getLong(sh + 0x20) : Integer.toUnsignedLong(b.getInt(sh + 0x14));
            int link = b.getInt(sh + (is64 ? 0x28 : 0x18));
            long entsize = is64 ? b.getLong(sh + 0x38) : Integer.toUnsignedLong(b.getInt(sh + 0x24));
            int lsh = Math.toIntExact(shoff + (long) link * shentsize);
            long strOff = is64 ? b.getLong(lsh + 0x18) : Integer.toUnsignedLong(b.getInt(lsh + 0x10));
            long strSize = is64 ? b.getLong(lsh + 0x20) : Integer.toUnsignedLong(b.getInt(lsh + 0x14));
            if (entsize == 0) {
                continue;
            }
            if (shType == SHT_DYNAMIC) {
                for (long p = off; p + entsize <= off + sz; p += entsize) {
                    long tag = is64 ? b.getLong((int) p) : b.getInt((int) p);
                    long val = is64 ? b.getLong((int) p + 8) : Integer.toUnsignedLong(b.getInt((int) p + 4));
                    if (tag == 0) {
                        break;
                    }
                    if (tag == DT_NEEDED) {
                        e.needed.add(string(b, strOff, strSize, val));
                    } else if (tag == DT_SONAME) {
                        e.soname = string(b, strOff, strSize, val);
                    } else if (tag == DT_RPATH) {
                        e.rpath = string(b, strOff, strSize, val);
                    } else if (tag == DT_RUNPATH) {
                        e.runpath = string(b, strOff, strSize, val);
                    }
                }
            } else {
                for (long p = off + entsize; p + entsize <= off + sz; p += entsize) { // entry 0 is null
                    int name = b.getInt((int) p);
                    int shndx = Short.toUnsignedInt(b.getShort((int) p + (is64 ? 6 : 14)));
                    if (name == 0) {
                        continue;
                    }
                    e.symbols.add(new Symbol(string(b, strOff, strSize, Integer.toUnsignedLong(name)), shndx != 0));
                }
            }
        }
        return e;
    }

    private static String string(ByteBuffer b, long tableOff, long tableSize, long index) throws IOException {
        if (index >= tableSize) {
            throw new IOException("string index " + index + " outside its table");
        }
        int start = Math.toIntExact(tableOff + index);
        int end = start;
        int limit = Math.toIntExact(tableOff + tableSize);
        while (end < limit && b.get(end) != 0) {
            end++;
        }
        byte[] bytes = new byte[end - start];
        b.get(start, bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }
}
