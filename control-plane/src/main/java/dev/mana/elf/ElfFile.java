package dev.mana.elf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

/**
 * The one ELF reader of the Java side (32- and 64-bit, either byte order; the structures are fixed by the ELF
 * gABI, so it is a small reader of our own, docs/dependencies.md). It serves two users:
 * <ul>
 * <li>gdb-integration's symbol loading: the program headers (a mapping's file offset to a load bias), the GNU
 * build-id (is the file on disk the one that was mapped?), {@code .gnu_debuglink}, and symbol look-up in
 * {@code .symtab}/{@code .dynsym} ({@link #symbolRange}, read when asked);</li>
 * <li>mpi-diagnostics' binary preflight: the dynamic section ({@code DT_NEEDED}, {@code DT_SONAME},
 * {@code DT_RPATH}, {@code DT_RUNPATH}) and the dynamic symbols with whether each is defined.</li>
 * </ul>
 * {@link #read} reads the headers, the section headers, the notes, the dynamic section and {@code .dynsym}
 * with positional I/O and keeps nothing open. Anything that is not a readable ELF file is an IOException with
 * one line that names the file.
 */
public final class ElfFile {
    public static final int ET_EXEC = 2;
    public static final int ET_DYN = 3;
    public static final int PT_LOAD = 1;
    public static final int PT_DYNAMIC = 2;
    public static final int PT_NOTE = 4;
    public static final int SHT_SYMTAB = 2;
    public static final int SHT_DYNAMIC = 6;
    public static final int SHT_DYNSYM = 11;
    private static final long DT_NEEDED = 1;
    private static final long DT_SONAME = 14;
    private static final long DT_RPATH = 15;
    private static final long DT_RUNPATH = 29;
    private static final int NT_GNU_BUILD_ID = 3;
    private static final long PAGE = 4096;

    /** One program header. */
    public record Segment(int type, int flags, long offset, long vaddr, long filesz, long memsz, long align) {
    }

    /** One section header, with its name from the section-name table ("" when there is none). */
    public record Section(String name, int type, long flags, long addr, long offset, long size, int link, long entsize) {
    }

    /** One dynamic symbol: its name, value (address with bias 0), size and whether this file defines it. */
    public record Symbol(String name, long value, long size, boolean defined) {
    }

    /** Where {@link #buildIdInMemory} reads a process's memory (the live process or a checkpoint image). */
    @FunctionalInterface
    public interface Memory {
        byte[] read(long address, int length) throws IOException;
    }

    private final Path path;
    private final long fileSize;
    private final boolean is64;
    private final boolean littleEndian;
    private final int elfType;
    private final int machine;
    private final List<Segment> segments;
    private final List<Section> sections;
    private final boolean hasSectionHeaders;
    private String buildId;
    private String debugLink;
    private final List<String> needed = new ArrayList<>();
    private String soname;
    private String rpath;
    private String runpath;
    private final List<Symbol> dynamicSymbols = new ArrayList<>();

    private ElfFile(Path path, long fileSize, boolean is64, boolean littleEndian, int elfType, int machine,
            List<Segment> segments, List<Section> sections, boolean hasSectionHeaders) {
        this.path = path;
        this.fileSize = fileSize;
        this.is64 = is64;
        this.littleEndian = littleEndian;
        this.elfType = elfType;
        this.machine = machine;
        this.segments = List.copyOf(segments);
        this.sections = List.copyOf(sections);
        this.hasSectionHeaders = hasSectionHeaders;
    }

    /** Whether the file starts with the ELF magic (cheap: 4 bytes; false for a missing or unreadable file). */
    public static boolean isElf(Path path) {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(4);
            while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
                // fill
            }
            return b.position() == 4 && b.get(0) == 0x7f && b.get(1) == 'E' && b.get(2) == 'L' && b.get(3) == 'F';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Reads a file; IOException with one line for anything that is not a readable ELF file. */
    public static ElfFile read(Path path) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            return parse(path, ch);
        } catch (IndexOutOfBoundsException | IllegalArgumentException | ArithmeticException e) {
            throw new IOException(path + ": malformed ELF file (" + e.getMessage() + ")");
        }
    }

    private static ElfFile parse(Path path, FileChannel ch) throws IOException {
        long size = ch.size();
        if (size < 16) {
            throw new IOException(path + ": not an ELF file (too short)");
        }
        ByteBuffer id = readAt(ch, 0, 16, size, path, ByteOrder.LITTLE_ENDIAN);
        if (id.getInt(0) != 0x464c457f) {
            throw new IOException(path + ": not an ELF file");
        }
        boolean is64 = id.get(4) == 2;
        boolean little = id.get(5) == 1;
        if ((id.get(4) != 1 && !is64) || (id.get(5) != 2 && !little)) {
            throw new IOException(path + ": not an ELF file (class " + id.get(4) + ", data " + id.get(5) + ")");
        }
        ByteOrder order = little ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        int ehsize = is64 ? 64 : 52;
        if (size < ehsize) {
            throw new IOException(path + ": not an ELF file (too short)");
        }
        ByteBuffer h = readAt(ch, 0, ehsize, size, path, order);
        int type = Short.toUnsignedInt(h.getShort(16));
        int machine = Short.toUnsignedInt(h.getShort(18));
        long phoff = is64 ? h.getLong(32) : Integer.toUnsignedLong(h.getInt(28));
        long shoff = is64 ? h.getLong(40) : Integer.toUnsignedLong(h.getInt(32));
        int phentsize = Short.toUnsignedInt(h.getShort(is64 ? 54 : 42));
        int phnum = Short.toUnsignedInt(h.getShort(is64 ? 56 : 44));
        int shentsize = Short.toUnsignedInt(h.getShort(is64 ? 58 : 46));
        int shnum = Short.toUnsignedInt(h.getShort(is64 ? 60 : 48));
        int shstrndx = Short.toUnsignedInt(h.getShort(is64 ? 62 : 50));

        List<Segment> segs = new ArrayList<>();
        if (phnum > 0) {
            if (phentsize < (is64 ? 56 : 32) || phnum > 4096) {
                throw new IOException(path + ": bad program header table");
            }
            ByteBuffer ph = readAt(ch, phoff, (long) phentsize * phnum, size, path, order);
            for (int i = 0; i < phnum; i++) {
                int o = i * phentsize;
                segs.add(is64
                        ? new Segment(ph.getInt(o), ph.getInt(o + 4), ph.getLong(o + 8), ph.getLong(o + 16),
                                ph.getLong(o + 32), ph.getLong(o + 40), ph.getLong(o + 48))
                        : new Segment(ph.getInt(o), ph.getInt(o + 24), u32(ph, o + 4), u32(ph, o + 8), u32(ph, o + 16),
                                u32(ph, o + 20), u32(ph, o + 28)));
            }
        }

        List<Section> secs = new ArrayList<>();
        boolean hasSections = shoff != 0 && shnum > 0 && shnum < 65536 && shentsize >= (is64 ? 64 : 40);
        if (hasSections) {
            ByteBuffer sh = readAt(ch, shoff, (long) shentsize * shnum, size, path, order);
            long[][] raw = new long[shnum][];
            for (int i = 0; i < shnum; i++) {
                int o = i * shentsize;
                raw[i] = is64
                        ? new long[] {u32(sh, o), sh.getInt(o + 4), sh.getLong(o + 8), sh.getLong(o + 16),
                            sh.getLong(o + 24), sh.getLong(o + 32), sh.getInt(o + 40), sh.getLong(o + 56)}
                        : new long[] {u32(sh, o), sh.getInt(o + 4), u32(sh, o + 8), u32(sh, o + 12), u32(sh, o + 16),
                            u32(sh, o + 20), sh.getInt(o + 24), u32(sh, o + 36)};
            }
            ByteBuffer names = null;
            if (shstrndx < shnum && raw[shstrndx][1] != 8 /* SHT_NOBITS */) {
                names = readAt(ch, raw[shstrndx][4], Math.min(raw[shstrndx][5], 1 << 20), size, path, order);
            }
            for (long[] r : raw) {
                String name = names == null ? "" : cString(names, (int) r[0], StandardCharsets.UTF_8);
                secs.add(new Section(name == null ? "" : name, (int) r[1], r[2], r[3], r[4], r[5], (int) r[6], r[7]));
            }
        }
        ElfFile e = new ElfFile(path, size, is64, little, type, machine, segs, secs, hasSections);

        for (Segment s : segs) {
            if (s.type() == PT_NOTE && e.buildId == null && s.filesz() > 0 && s.filesz() < (1 << 20)) {
                e.buildId = buildIdFromNotes(readAt(ch, s.offset(), s.filesz(), size, path, order));
            }
        }
        for (Section s : secs) {
            if (".gnu_debuglink".equals(s.name()) && e.debugLink == null) {
                ByteBuffer d = readAt(ch, s.offset(), Math.min(s.size(), 4096), size, path, order);
                e.debugLink = cString(d, 0, StandardCharsets.UTF_8);
            } else if ((s.type() == SHT_DYNAMIC || s.type() == SHT_DYNSYM) && s.entsize() != 0) {
                if (s.link() < 0 || s.link() >= secs.size()) {
                    throw new IOException(path + ": malformed ELF file (section " + s.name() + " links to section "
                            + s.link() + ")");
                }
                Section strs = secs.get(s.link());
                ByteBuffer data = readAt(ch, s.offset(), s.size(), size, path, order);
                ByteBuffer str = readAt(ch, strs.offset(), strs.size(), size, path, order);
                if (s.type() == SHT_DYNAMIC) {
                    e.readDynamic(data, s.entsize(), str);
                } else {
                    e.readDynamicSymbols(data, s.entsize(), str);
                }
            }
        }
        return e;
    }

    private void readDynamic(ByteBuffer b, long entsize, ByteBuffer str) throws IOException {
        for (long p = 0; p + entsize <= b.limit(); p += entsize) {
            long tag = is64 ? b.getLong((int) p) : b.getInt((int) p);
            long val = is64 ? b.getLong((int) p + 8) : u32(b, (int) p + 4);
            if (tag == 0) {
                break;
            }
            if (tag == DT_NEEDED) {
                needed.add(string(str, val));
            } else if (tag == DT_SONAME) {
                soname = string(str, val);
            } else if (tag == DT_RPATH) {
                rpath = string(str, val);
            } else if (tag == DT_RUNPATH) {
                runpath = string(str, val);
            }
        }
    }

    private void readDynamicSymbols(ByteBuffer b, long entsize, ByteBuffer str) throws IOException {
        for (long p = entsize; p + entsize <= b.limit(); p += entsize) { // entry 0 is the null symbol
            int o = (int) p;
            long name = u32(b, o);
            if (name == 0) {
                continue;
            }
            long value = is64 ? b.getLong(o + 8) : u32(b, o + 4);
            long sz = is64 ? b.getLong(o + 16) : u32(b, o + 8);
            int shndx = Short.toUnsignedInt(b.getShort(o + (is64 ? 6 : 14)));
            dynamicSymbols.add(new Symbol(string(str, name), value, sz, shndx != 0));
        }
    }

    public Path path() { return path; }

    public long fileSize() { return fileSize; }

    /** ELFCLASS64 (else 32-bit). */
    public boolean is64() { return is64; }

    public boolean littleEndian() { return littleEndian; }

    /** {@code e_type}: ET_EXEC 2 (fixed addresses), ET_DYN 3 (position-independent). */
    public int elfType() { return elfType; }

    /** {@code e_machine} (62: x86-64). */
    public int machine() { return machine; }

    public List<Segment> segments() { return segments; }

    /** The section headers in file order; empty when the file has none ({@link #hasSectionHeaders}). */
    public List<Section> sections() { return sections; }

    /** Whether the file has a section header table (a stripped-to-the-bone file may not: no dynamic facts then). */
    public boolean hasSectionHeaders() { return hasSectionHeaders; }

    /** The GNU build-id as lowercase hex, or null when the file has none. */
    public String buildId() { return buildId; }

    /** The file name in {@code .gnu_debuglink}, or null. */
    public String debugLink() { return debugLink; }

    /** {@code DT_NEEDED} entries in order. */
    public List<String> needed() { return Collections.unmodifiableList(needed); }

    /** {@code DT_SONAME}, or null. */
    public String soname() { return soname; }

    /** {@code DT_RPATH}, or null. */
    public String rpath() { return rpath; }

    /** {@code DT_RUNPATH}, or null. */
    public String runpath() { return runpath; }

    /** The symbols of {@code .dynsym} (without the null entry), defined or not. */
    public List<Symbol> dynamicSymbols() { return Collections.unmodifiableList(dynamicSymbols); }

    /**
     * Every load bias under which a mapping that starts at {@code mapStart} and maps file offset
     * {@code fileOffset} is part of a PT_LOAD segment; empty when none (the file was mapped as data).
     * There can be two: the last page of a read-only segment is often also the first of the next
     * one (RELRO), so the caller decides with the object's other mappings.
     */
    public List<Long> biasesFor(long mapStart, long fileOffset) {
        List<Long> out = new ArrayList<>();
        for (Segment s : segments) {
            if (s.type() != PT_LOAD) {
                continue;
            }
            long segFileStart = s.offset() & ~(PAGE - 1);
            long segFileEnd = s.offset() + s.filesz();
            if (fileOffset >= segFileStart && (fileOffset < segFileEnd || (s.filesz() == 0 && fileOffset == segFileStart))) {
                // the loader maps pageDown(p_vaddr) at pageDown(p_offset) of the segment
                long vaddrOfOffset = (s.vaddr() & ~(PAGE - 1)) + (fileOffset - segFileStart);
                long bias = mapStart - vaddrOfOffset;
                if (!out.contains(bias)) {
                    out.add(bias);
                }
            }
        }
        return out;
    }

    /** The first of {@link #biasesFor}, or null: right for a mapping of the file's first page. */
    public Long biasFor(long mapStart, long fileOffset) {
        List<Long> b = biasesFor(mapStart, fileOffset);
        return b.isEmpty() ? null : b.get(0);
    }

    /** The lowest PT_LOAD address with bias 0 (page-aligned). */
    public long lowestLoadAddress() {
        long lo = Long.MAX_VALUE;
        for (Segment s : segments) {
            if (s.type() == PT_LOAD) {
                lo = Math.min(lo, s.vaddr() & ~(PAGE - 1));
            }
        }
        return lo == Long.MAX_VALUE ? 0 : lo;
    }

    /** One past the highest PT_LOAD address with bias 0. */
    public long highestLoadEnd() {
        long hi = 0;
        for (Segment s : segments) {
            if (s.type() == PT_LOAD) {
                hi = Math.max(hi, s.vaddr() + s.memsz());
            }
        }
        return hi;
    }

    /**
     * The build-id as the process holds it: the PT_NOTE segments read from {@code memory} at
     * {@code bias + p_vaddr}. Null when the file has no note segment.
     */
    public String buildIdInMemory(Memory memory, long bias) throws IOException {
        for (Segment s : segments) {
            if (s.type() == PT_NOTE && s.filesz() > 0 && s.filesz() < (1 << 20)) {
                byte[] b = memory.read(bias + s.vaddr(), (int) s.filesz());
                String id = buildIdFromNotes(ByteBuffer.wrap(b).order(littleEndian ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN));
                if (id != null) {
                    return id;
                }
            }
        }
        return null;
    }

    /**
     * The value (address with bias 0) of the symbol {@code name} in {@code .symtab} or {@code .dynsym},
     * or null.
     */
    public Long symbol(String name) throws IOException {
        long[] r = symbolRange(name);
        return r == null ? null : r[0];
    }

    /**
     * {@code [value, size]} of the symbol {@code name} (address with bias 0) in {@code .symtab}, else in
     * {@code .dynsym}, or null. Reads the file again ({@code .symtab} can be large and is read only when asked).
     */
    public long[] symbolRange(String name) throws IOException {
        ByteOrder order = littleEndian ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        byte[] want = name.getBytes(StandardCharsets.UTF_8);
        int minEnt = is64 ? 24 : 16;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            for (int type : new int[] {SHT_SYMTAB, SHT_DYNSYM}) {
                for (Section s : sections) {
                    if (s.type() != type || s.link() < 0 || s.link() >= sections.size()) {
                        continue;
                    }
                    long ent = Math.max(minEnt, s.entsize());
                    ByteBuffer syms = readAt(ch, s.offset(), s.size(), size, path, order);
                    Section strSec = sections.get(s.link());
                    ByteBuffer strs = readAt(ch, strSec.offset(), strSec.size(), size, path, order);
                    for (long p = 0; p + minEnt <= s.size(); p += ent) {
                        int o = (int) p;
                        if (matches(strs, syms.getInt(o), want)) {
                            return is64 ? new long[] {syms.getLong(o + 8), syms.getLong(o + 16)}
                                    : new long[] {u32(syms, o + 4), u32(syms, o + 8)};
                        }
                    }
                }
            }
            return null;
        }
    }

    private static boolean matches(ByteBuffer strs, int off, byte[] want) {
        if (off < 0 || off + want.length >= strs.limit()) {
            return false;
        }
        for (int i = 0; i < want.length; i++) {
            if (strs.get(off + i) != want[i]) {
                return false;
            }
        }
        return strs.get(off + want.length) == 0;
    }

    /** The GNU build-id in a run of ELF notes (in the buffer's byte order) as lowercase hex, or null. */
    public static String buildIdFromNotes(ByteBuffer b) {
        int p = 0;
        while (p + 12 <= b.limit()) {
            int namesz = b.getInt(p);
            int descsz = b.getInt(p + 4);
            int type = b.getInt(p + 8);
            if (namesz < 0 || descsz < 0 || namesz > 256 || descsz > 1024) {
                return null;
            }
            int nameOff = p + 12;
            int descOff = nameOff + ((namesz + 3) & ~3);
            if (descOff + descsz > b.limit()) {
                return null;
            }
            if (type == NT_GNU_BUILD_ID && namesz == 4 && b.get(nameOff) == 'G' && b.get(nameOff + 1) == 'N'
                    && b.get(nameOff + 2) == 'U') {
                byte[] id = new byte[descsz];
                b.get(descOff, id);
                return HexFormat.of().formatHex(id);
            }
            p = descOff + ((descsz + 3) & ~3);
        }
        return null;
    }

    private String string(ByteBuffer table, long index) throws IOException {
        if (index < 0 || index >= table.limit()) {
            throw new IOException(path + ": malformed ELF file (string index " + index + " outside its table)");
        }
        return cString(table, (int) index, StandardCharsets.ISO_8859_1);
    }

    private static String cString(ByteBuffer b, int off, Charset cs) {
        if (off < 0 || off >= b.limit()) {
            return null;
        }
        int end = off;
        while (end < b.limit() && b.get(end) != 0) {
            end++;
        }
        byte[] s = new byte[end - off];
        b.get(off, s);
        return new String(s, cs);
    }

    private static long u32(ByteBuffer b, int off) {
        return Integer.toUnsignedLong(b.getInt(off));
    }

    private static ByteBuffer readAt(FileChannel ch, long off, long len, long size, Path path, ByteOrder order)
            throws IOException {
        if (off < 0 || len < 0 || len > Integer.MAX_VALUE || off > size - len) {
            throw new IOException(path + ": ELF structure at " + off + "+" + len + " lies outside the file");
        }
        ByteBuffer b = ByteBuffer.allocate((int) len).order(order);
        while (b.hasRemaining()) {
            if (ch.read(b, off + b.position()) < 0) {
                throw new IOException(path + ": truncated ELF file");
            }
        }
        b.flip();
        return b;
    }
}
