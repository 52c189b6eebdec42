package dev.mana.gdb.split;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The parts of a 64-bit little-endian ELF file that symbol loading needs: the loadable segments
 * (to turn a mapping's file offset into a load bias), the GNU build-id (to check that the file on
 * disk is the one that was mapped), {@code .gnu_debuglink} and symbol look-up in {@code .symtab}/
 * {@code .dynsym}. Reads with positional I/O; nothing is kept open.
 */
public final class ElfFile {
    public static final int PT_LOAD = 1;
    public static final int PT_NOTE = 4;
    private static final int NT_GNU_BUILD_ID = 3;
    private static final long PAGE = 4096;

    /** One program header. */
    public record Segment(int type, int flags, long offset, long vaddr, long filesz, long memsz, long align) {
    }

    private final Path path;
    private final int elfType;
    private final List<Segment> segments;
    private final String buildId;
    private final String debugLink;
    private final long fileSize;

    private ElfFile(Path path, int elfType, List<Segment> segments, String buildId, String debugLink, long fileSize) {
        this.path = path;
        this.elfType = elfType;
        this.segments = List.copyOf(segments);
        this.buildId = buildId;
        this.debugLink = debugLink;
        this.fileSize = fileSize;
    }

    /** Whether the file starts with the ELF magic (false for a missing or unreadable file). */
    public static boolean isElf(Path path) {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(4);
            ch.read(b, 0);
            return b.position() == 4 && b.get(0) == 0x7f && b.get(1) == 'E' && b.get(2) == 'L' && b.get(3) == 'F';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    public static ElfFile read(Path path) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer h = readAt(ch, 0, 64, size, path);
            if (h.getInt(0) != 0x464c457f) {
                throw new IOException(path + ": not an ELF file");
            }
            if (h.get(4) != 2 || h.get(5) != 1) {
                throw new IOException(path + ": not a 64-bit little-endian ELF file");
            }
            int type = h.getShort(16) & 0xffff;
            long phoff = h.getLong(32);
            long shoff = h.getLong(40);
            int phentsize = h.getShort(54) & 0xffff;
            int phnum = h.getShort(56) & 0xffff;
            int shentsize = h.getShort(58) & 0xffff;
            int shnum = h.getShort(60) & 0xffff;
            int shstrndx = h.getShort(62) & 0xffff;
            if (phentsize < 56 || phnum > 4096) {
                throw new IOException(path + ": bad program header table");
            }
            List<Segment> segs = new ArrayList<>();
            ByteBuffer ph = readAt(ch, phoff, (long) phentsize * phnum, size, path);
            for (int i = 0; i < phnum; i++) {
                int o = i * phentsize;
                segs.add(new Segment(ph.getInt(o), ph.getInt(o + 4), ph.getLong(o + 8), ph.getLong(o + 16),
                        ph.getLong(o + 32), ph.getLong(o + 40), ph.getLong(o + 48)));
            }
            String buildId = null;
            for (Segment s : segs) {
                if (s.type() == PT_NOTE && buildId == null && s.filesz() > 0 && s.filesz() < (1 << 20)) {
                    buildId = buildIdFromNotes(readAt(ch, s.offset(), s.filesz(), size, path));
                }
            }
            String link = null;
            if (shoff != 0 && shnum > 0 && shentsize >= 64 && shnum < 65536 && shstrndx < shnum) {
                ByteBuffer sh = readAt(ch, shoff, (long) shentsize * shnum, size, path);
                long strOff = sh.getLong(shstrndx * shentsize + 24);
                long strSize = sh.getLong(shstrndx * shentsize + 32);
                ByteBuffer strs = readAt(ch, strOff, Math.min(strSize, 1 << 20), size, path);
                for (int i = 0; i < shnum; i++) {
                    int o = i * shentsize;
                    String name = cString(strs, sh.getInt(o));
                    if (".gnu_debuglink".equals(name)) {
                        ByteBuffer d = readAt(ch, sh.getLong(o + 24), Math.min(sh.getLong(o + 32), 4096), size, path);
                        link = cString(d, 0);
                    }
                }
            }
            return new ElfFile(path, type, segs, buildId, link, size);
        }
    }

    public Path path() { return path; }

    /** ET_EXEC 2 (fixed addresses), ET_DYN 3 (position-independent). */
    public int elfType() { return elfType; }

    public List<Segment> segments() { return segments; }

    /** The GNU build-id as lowercase hex, or null when the file has none. */
    public String buildId() { return buildId; }

    /** The file name in {@code .gnu_debuglink}, or null. */
    public String debugLink() { return debugLink; }

    public long fileSize() { return fileSize; }

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
    public String buildIdInMemory(MemorySource memory, long bias) throws IOException {
        for (Segment s : segments) {
            if (s.type() == PT_NOTE && s.filesz() > 0 && s.filesz() < (1 << 20)) {
                byte[] b = memory.read(bias + s.vaddr(), (int) s.filesz());
                String id = buildIdFromNotes(ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN));
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

    /** {@code [value, size]} of the symbol {@code name} (address with bias 0), or null. */
    public long[] symbolRange(String name) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer h = readAt(ch, 0, 64, size, path);
            long shoff = h.getLong(40);
            int shentsize = h.getShort(58) & 0xffff;
            int shnum = h.getShort(60) & 0xffff;
            if (shoff == 0 || shnum == 0 || shentsize < 64) {
                return null;
            }
            ByteBuffer sh = readAt(ch, shoff, (long) shentsize * shnum, size, path);
            for (int want : new int[] {2 /* SHT_SYMTAB */, 11 /* SHT_DYNSYM */}) {
                for (int i = 0; i < shnum; i++) {
                    int o = i * shentsize;
                    if (sh.getInt(o + 4) != want) {
                        continue;
                    }
                    int link = sh.getInt(o + 40);
                    if (link < 0 || link >= shnum) {
                        continue;
                    }
                    long symOff = sh.getLong(o + 24);
                    long symSize = sh.getLong(o + 32);
                    long entSize = Math.max(24, sh.getLong(o + 56));
                    ByteBuffer syms = readAt(ch, symOff, symSize, size, path);
                    ByteBuffer strs = readAt(ch, sh.getLong(link * shentsize + 24), sh.getLong(link * shentsize + 32), size, path);
                    byte[] want8 = name.getBytes(StandardCharsets.UTF_8);
                    for (long p = 0; p + 24 <= symSize; p += entSize) {
                        int nameOff = syms.getInt((int) p);
                        if (matches(strs, nameOff, want8)) {
                            return new long[] {syms.getLong((int) p + 8), syms.getLong((int) p + 16)};
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

    static String buildIdFromNotes(ByteBuffer b) {
        b.order(ByteOrder.LITTLE_ENDIAN);
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

    private static String cString(ByteBuffer b, int off) {
        if (off < 0 || off >= b.limit()) {
            return null;
        }
        int end = off;
        while (end < b.limit() && b.get(end) != 0) {
            end++;
        }
        byte[] s = new byte[end - off];
        b.get(off, s);
        return new String(s, StandardCharsets.UTF_8);
    }

    private static ByteBuffer readAt(FileChannel ch, long off, long len, long size, Path path) throws IOException {
        if (off < 0 || len < 0 || len > Integer.MAX_VALUE || off + len > size) {
            throw new IOException(path + ": ELF structure at " + off + "+" + len + " lies outside the file");
        }
        ByteBuffer b = ByteBuffer.allocate((int) len).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (ch.read(b, off + b.position()) < 0) {
                throw new IOException(path + ": truncated ELF file");
            }
        }
        b.flip();
        return b;
    }
}
