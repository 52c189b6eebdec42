package dev.mana.inspector.internal;

import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.Half;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ImageSummary;
import dev.mana.inspector.ManaHeader;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.MemoryRegion;
import dev.mana.inspector.OpenFile;
import dev.mana.inspector.Problem;
import dev.mana.inspector.ProcessInfo;
import dev.mana.inspector.SectionInfo;
import dev.mana.inspector.SignalState;
import dev.mana.inspector.ThreadInfo;
import dev.mana.inspector.VerifyReport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

/**
 * Reader for our format v1 (docs/image-format.md). Opening reads the 256-byte header and the section
 * table and checks them; sections are read (and their CRC checked) the first time they are needed;
 * payloads are read only by {@link #readMemory} and {@link #verify}, positionally, into the caller's
 * buffer.
 */
public final class ManaImageReader implements ManaImage {
    public static final byte[] MAGIC = "MANAIMG1".getBytes(StandardCharsets.US_ASCII);
    static final int HEADER_SIZE = 256;
    static final int PAGE = 4096;
    static final int ENTRY_SIZE = 32;
    /** More sections than this is refused (the format defines 7 types; the C reader keeps a fixed table). */
    static final int MAX_SECTIONS = 64;
    /** A metadata section larger than this is refused rather than loaded onto the heap. */
    static final long MAX_SECTION_BYTES = 128L << 20;
    /** More regions than this is absurd (vm.max_map_count defaults to 65530); keeps the heap bounded. */
    static final long MAX_REGIONS = 1L << 20;
    /** A region name or file path longer than this is refused (the restore's buffers hold 4,096 with the NUL). */
    static final long MAX_NAME = 4095;

    static final int REG_SHARED = 0x001;
    static final int REG_ANON = 0x002;
    static final int REG_FILE = 0x004;
    static final int REG_STACK = 0x008;
    static final int REG_HEAP = 0x010;
    static final int REG_VDSO = 0x020;
    static final int REG_VVAR = 0x040;
    static final int REG_LOWER = 0x080;
    static final int REG_GUARD = 0x100;
    static final String[] REG_FLAG_NAMES = {"shared", "anon", "file", "stack", "heap", "vdso", "vvar", "lower", "guard"};

    private final Path path;
    private final FileChannel ch;
    private final long size;
    private final ManaHeader header;
    private final List<SectionInfo> sections;
    private final SectionInfo[] byType = new SectionInfo[8];
    /** Damage found while opening in salvage mode (empty for a normal open). */
    private final List<Problem> openProblems;

    private ProcessInfo process;
    private List<MemoryRegion> regions;
    private long[][] runPrefix;
    private List<Problem> memoryProblems;
    private List<String> memoryNotes;
    private List<ThreadInfo> threads;
    private List<OpenFile> files;
    private SignalState signals;

    private ManaImageReader(Path path, FileChannel ch, long size, ManaHeader header, List<SectionInfo> sections,
                            List<Problem> openProblems) {
        this.path = path;
        this.openProblems = List.copyOf(openProblems);
        this.ch = ch;
        this.size = size;
        this.header = header;
        this.sections = sections;
        for (SectionInfo s : sections) {
            if (s.known()) {
                byType[s.type()] = s;
            }
        }
    }

    /** Reads and checks the header and the section table. The channel is closed on failure. */
    public static ManaImageReader open(Path path, FileChannel ch) throws ImageException {
        return open(path, ch, null);
    }

    /**
     * Salvage mode, for browsers of damaged images: a header whose checksum fails, a file shorter or longer
     * than its header says, or a section table that cannot be read are recorded in {@code found} instead of
     * refusing the image; what lies in the file can still be read (a section past the end fails when asked
     * for). A missing magic, an unknown version or page size still fail. The channel is closed on failure.
     */
    public static ManaImageReader openSalvaging(Path path, FileChannel ch, List<Problem> found) throws ImageException {
        return open(path, ch, found);
    }

    private static ManaImageReader open(Path path, FileChannel ch, List<Problem> salvage) throws ImageException {
        boolean ok = false;
        try {
            long size = ch.size();
            ManaHeader h = readHeader(ch, size, salvage);
            List<SectionInfo> table;
            if (salvage == null) {
                table = readTable(ch, h);
            } else {
                try {
                    table = readTable(ch, h);
                    if (h.sectionTableOffset() + (long) h.sectionCount() * ENTRY_SIZE > size) {
                        throw Fail.truncated("the section table [%d, %d) lies past the end of the file (%d bytes)",
                                h.sectionTableOffset(), h.fileSize(), size);
                    }
                } catch (ImageException e) {
                    salvage.add(new Problem(e.kind(), e.getMessage() + " (no section can be read)"));
                    table = List.of();
                }
            }
            ManaImageReader r = new ManaImageReader(path, ch, size, h, table, salvage == null ? List.of() : salvage);
            ok = true;
            return r;
        } catch (IOException e) {
            if (e instanceof ImageException) {
                throw (ImageException) e;
            }
            throw Fail.io(path.toString(), e);
        } finally {
            if (!ok) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // nothing more to say
                }
            }
        }
    }

    static void readFully(FileChannel ch, long pos, ByteBuffer dst, String what) throws ImageException {
        try {
            while (dst.hasRemaining()) {
                int n = ch.read(dst, pos);
                if (n < 0) {
                    throw Fail.truncated("%s: the file ends at offset %d", what, pos);
                }
                pos += n;
            }
        } catch (ImageException e) {
            throw e;
        } catch (IOException e) {
            throw Fail.io(what, e);
        }
    }

    /** Records {@code e} in salvage mode ({@code salvage} not null), else throws it. */
    private static void complain(List<Problem> salvage, ImageException e) throws ImageException {
        if (salvage == null) {
            throw e;
        }
        salvage.add(new Problem(e.kind(), e.getMessage()));
    }

    private static ManaHeader readHeader(FileChannel ch, long size, List<Problem> salvage) throws ImageException {
        if (size == 0) {
            throw Fail.truncated("empty file (a writer that died before writing anything?)");
        }
        if (size < HEADER_SIZE) {
            throw Fail.truncated("the file has %d bytes, shorter than the %d-byte header", size, HEADER_SIZE);
        }
        ByteBuffer b = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        readFully(ch, 0, b, "header");
        byte[] raw = b.array();
        if (!Arrays.equals(raw, 0, 8, MAGIC, 0, 8)) {
            if (Arrays.equals(raw, 0, 7, MAGIC, 0, 7)) {
                throw Fail.unsupported("image format '%s' (this reader knows MANAIMG1)", printable(raw, 0, 8));
            }
            throw new ImageException(ErrorKind.NOT_AN_IMAGE, "not a MANA image: magic is '" + printable(raw, 0, 8) + "'");
        }
        int version = b.getInt(8);
        if (version != 1) {
            throw Fail.unsupported("image format version %d (this reader knows version 1)", Integer.toUnsignedLong(version));
        }
        int headerSize = b.getInt(12);
        if (headerSize != HEADER_SIZE) {
            throw Fail.malformed("header_size is %d, version 1 has %d", Integer.toUnsignedLong(headerSize), HEADER_SIZE);
        }
        long stored = Integer.toUnsignedLong(b.getInt(88));
        CRC32C crc = new CRC32C();
        crc.update(raw, 0, 88);
        crc.update(new byte[4]);
        crc.update(raw, 92, HEADER_SIZE - 92);
        if (crc.getValue() != stored) {
            complain(salvage, Fail.corrupt("header checksum mismatch (stored 0x%08x, computed 0x%08x)%s", stored,
                    crc.getValue(), salvage == null ? "" : ": the header's values are not to be trusted"));
        }
        ManaHeader h = new ManaHeader(version, headerSize, b.getLong(16), b.getLong(24), b.getInt(32), b.getInt(36),
                b.getInt(40), b.getInt(44), Integer.toUnsignedLong(b.getInt(48)), Integer.toUnsignedLong(b.getInt(52)),
                Integer.toUnsignedLong(b.getInt(56)), b.getInt(60), b.getLong(64), b.getLong(72), b.getLong(80), stored,
                cstring(raw, 96, 64), cstring(raw, 160, 16), cstring(raw, 176, 80));
        if (Long.compareUnsigned(size, h.fileSize()) < 0) {
            complain(salvage, Fail.truncated("the file has %d bytes, its header declares %d", size, h.fileSize()));
        } else if (size != h.fileSize()) {
            complain(salvage, Fail.malformed("%d bytes follow the declared end of the image (file_size %d, file has %d)",
                    size - h.fileSize(), h.fileSize(), size));
        }
        if (h.pageSize() != PAGE) {
            throw Fail.unsupported("page size %d (version 1 has 4096)", Integer.toUnsignedLong(h.pageSize()));
        }
        if (h.sectionEntrySize() != ENTRY_SIZE) {
            throw Fail.malformed("section_entry_size is %d, version 1 has 32", Integer.toUnsignedLong(h.sectionEntrySize()));
        }
        return h;
    }

    private static List<SectionInfo> readTable(FileChannel ch, ManaHeader h) throws ImageException {
        long count = Integer.toUnsignedLong(h.sectionCount());
        if (count == 0 || count > MAX_SECTIONS) {
            throw Fail.malformed("absurd section count %d", count);
        }
        long tableOff = h.sectionTableOffset();
        long fileSize = h.fileSize();
        if (tableOff < PAGE || Long.compareUnsigned(tableOff, fileSize) > 0 || fileSize - tableOff != count * ENTRY_SIZE) {
            throw Fail.malformed("section table at offset %d with %d entries does not end the file (file_size %d)",
                    tableOff, count, fileSize);
        }
        ByteBuffer b = ByteBuffer.allocate((int) (count * ENTRY_SIZE)).order(ByteOrder.LITTLE_ENDIAN);
        readFully(ch, tableOff, b, "section table");
        List<SectionInfo> out = new ArrayList<>();
        int[] seen = new int[8];
        for (int i = 0; i < count; i++) {
            int p = i * ENTRY_SIZE;
            int type = b.getInt(p);
            SectionInfo s = new SectionInfo(type, SectionInfo.typeName(type), b.getInt(p + 4), b.getLong(p + 8),
                    b.getLong(p + 16), Integer.toUnsignedLong(b.getInt(p + 24)), Integer.toUnsignedLong(b.getInt(p + 28)));
            long end = s.offset() + s.length();
            if (s.offset() < PAGE || s.length() < 0 || end < s.offset() || end > tableOff) {
                throw Fail.malformed("section %d (%s): bytes [%d, %d) lie outside the metadata area [4096, %d)",
                        i, s.name(), s.offset(), s.offset() + s.length(), tableOff);
            }
            if ((s.offset() & 7) != 0) {
                throw Fail.malformed("section %d (%s): offset %d is not 8-byte aligned", i, s.name(), s.offset());
            }
            if (s.known() && ++seen[type] > 1) {
                throw Fail.malformed("section %s appears more than once", s.name());
            }
            out.add(s);
        }
        for (int t = SectionInfo.PROCESS; t <= SectionInfo.SIGNALS; t++) {
            if (seen[t] == 0) {
                throw Fail.malformed("no %s section", SectionInfo.typeName(t));
            }
        }
        return Collections.unmodifiableList(out);
    }

    static String cstring(byte[] raw, int off, int len) {
        int n = 0;
        while (n < len && raw[off + n] != 0) {
            n++;
        }
        return new String(raw, off, n, StandardCharsets.UTF_8);
    }

    static String printable(byte[] raw, int off, int len) {
        StringBuilder sb = new StringBuilder();
        for (int i = off; i < off + len && i < raw.length; i++) {
            int c = raw[i] & 0xff;
            if (c >= 0x20 && c < 0x7f) {
                sb.append((char) c);
            } else {
                sb.append(String.format("\\x%02x", c));
            }
        }
        return sb.toString();
    }

    @Override
    public Path path() {
        return path;
    }

    @Override
    public long fileSize() {
        return size;
    }

    @Override
    public ManaHeader header() {
        return header;
    }

    @Override
    public List<SectionInfo> sections() {
        return sections;
    }

    @Override
    public Optional<SectionInfo> mpiSection() {
        return Optional.ofNullable(byType[SectionInfo.MPI]);
    }

    @Override
    public ImageSummary summary() {
        String exe = "";
        try {
            exe = process().executable();
        } catch (ImageException e) {
            // the summary needs only the header; verify reports the damaged section
        }
        long mapped = header.mappedBytes();
        long stored = header.storedBytes();
        return new ImageSummary(format(), header.program(), exe, header.pid(), header.rank(), header.nranks(),
                header.host(), header.mpi(), header.generation(), header.timeUnixNs(), size, false,
                countOf(SectionInfo.MEMORY), countOf(SectionInfo.THREADS), countOf(SectionInfo.FILES),
                mapped, stored, Long.compareUnsigned(mapped, stored) >= 0 ? mapped - stored : 0, mpiSection().isPresent());
    }

    /** Records in a section's table entry, -1 when the table could not be read (salvage mode). */
    private long countOf(int type) {
        return byType[type] == null ? -1 : byType[type].count();
    }

    /** The table entry of a known section; only a salvaged image can lack one. */
    private SectionInfo section(int type) throws ImageException {
        SectionInfo s = byType[type];
        if (s == null) {
            throw openProblems.isEmpty() ? Fail.malformed("no %s section", SectionInfo.typeName(type))
                    : new ImageException(openProblems.get(0).kind(), SectionInfo.typeName(type)
                            + ": not readable (" + openProblems.get(openProblems.size() - 1).message() + ")");
        }
        return s;
    }

    /** Damage found when the image was opened in salvage mode; empty otherwise. */
    public List<Problem> openProblems() {
        return openProblems;
    }

    /** Reads a known section, checking its version, size and CRC. */
    private byte[] load(int type) throws ImageException {
        SectionInfo s = section(type);
        if (s.version() != 1) {
            throw Fail.unsupported("section %s has layout version %d (this reader knows 1)", s.name(),
                    Integer.toUnsignedLong(s.version()));
        }
        if (s.length() > MAX_SECTION_BYTES) {
            throw Fail.malformed("section %s: absurd length %d", s.name(), s.length());
        }
        ByteBuffer b = ByteBuffer.allocate((int) s.length());
        readFully(ch, s.offset(), b, "section " + s.name());
        CRC32C crc = new CRC32C();
        crc.update(b.array());
        if (crc.getValue() != s.crc()) {
            throw Fail.corrupt("section %s: checksum mismatch (stored 0x%08x, computed 0x%08x)", s.name(), s.crc(),
                    crc.getValue());
        }
        return b.array();
    }

    private static Problem regionProblem(int region, String message) {
        return new Problem(ErrorKind.MALFORMED, message, region);
    }

    private static void end(Cursor c, String what) throws ImageException {
        if (c.remaining() != 0) {
            throw Fail.malformed("%s: %d bytes after the last record", what, c.remaining());
        }
    }

    @Override
    public synchronized ProcessInfo process() throws ImageException {
        if (process == null) {
            SectionInfo s = section(SectionInfo.PROCESS);
            if (s.count() != 1) {
                throw Fail.malformed("PROCESS: count is %d, must be 1", s.count());
            }
            Cursor c = new Cursor(load(SectionInfo.PROCESS), "PROCESS");
            int pid = c.i32("pid");
            int ppid = c.i32("ppid");
            int sid = c.i32("sid");
            int pgid = c.i32("pgid");
            int umask = c.i32("umask");
            int tidOff = c.i32("pthread_tid_offset");
            long[] v = new long[8];
            for (int i = 0; i < v.length; i++) {
                v[i] = c.i64("address");
            }
            c.skip(40, "reserved");
            String exe = c.string("exe path");
            String cwd = c.string("cwd");
            long argc = c.u32("argc");
            c.skip(4, "argc padding");
            if (argc * 4 > c.remaining()) {
                throw Fail.malformed("PROCESS: absurd argc %d", argc);
            }
            List<String> argv = new ArrayList<>();
            for (long i = 0; i < argc; i++) {
                argv.add(c.string("argv[" + i + "]"));
            }
            end(c, "PROCESS");
            if (v[0] == 0) {
                throw Fail.malformed("PROCESS: lh_info_slot is 0 (a restart has nowhere to hand the upper half its lower half)");
            }
            process = new ProcessInfo(pid, ppid, sid, pgid, umask, tidOff, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
                    exe, cwd, argv);
        }
        return process;
    }

    static Half halfOf(int flags) {
        if ((flags & REG_LOWER) != 0) {
            return Half.LOWER;
        }
        if ((flags & (REG_VDSO | REG_VVAR)) != 0) {
            return Half.KERNEL;
        }
        return Half.UPPER;
    }

    /**
     * Regions whose contents the image saves: everything but lower half, vdso/vvar, guards, and shared
     * file mappings stored without payload (the file holds their data; the C writer stores none).
     */
    static boolean savedKind(int flags, long stored) {
        if ((flags & (REG_LOWER | REG_VDSO | REG_VVAR | REG_GUARD)) != 0) {
            return false;
        }
        return !((flags & REG_SHARED) != 0 && (flags & REG_FILE) != 0 && stored == 0);
    }

    @Override
    public synchronized List<MemoryRegion> regions() throws ImageException {
        if (regions == null) {
            SectionInfo s = section(SectionInfo.MEMORY);
            byte[] bytes = load(SectionInfo.MEMORY);
            long count = s.count();
            if (count > MAX_REGIONS || count * 80 > bytes.length) {
                throw Fail.malformed("MEMORY: absurd region count %d for a section of %d bytes", count, bytes.length);
            }
            Cursor c = new Cursor(bytes, "MEMORY");
            List<MemoryRegion> out = new ArrayList<>((int) count);
            long[][] prefixes = new long[(int) count][];
            List<Problem> problems = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            long payloadLimit = metadataStart();
            long mappedWithPayload = 0;
            long prevEnd = 0;
            long sumMapped = 0;
            long sumStored = 0;
            for (int i = 0; i < count; i++) {
                String at = "MEMORY: region " + i;
                long start = c.i64("start");
                long endAddr = c.i64("end");
                int prot = c.i32("prot");
                int flags = c.i32("flags");
                long fileOffset = c.i64("file_offset");
                long inode = c.i64("inode");
                int devMajor = c.i32("dev_major");
                int devMinor = c.i32("dev_minor");
                long payload = c.i64("payload_offset");
                long stored = c.i64("stored_bytes");
                long runCount = c.u32("run_count");
                long crc = c.u32("payload_crc");
                long nameLen = c.u32("name_len");
                c.skip(4, "reserved");
                if (nameLen > MAX_NAME) {
                    throw Fail.malformed("%s: absurd name length %d", at, nameLen);
                }
                String name = c.bytesString(nameLen, at + " name");
                if (runCount * 16 > c.remaining()) {
                    throw Fail.malformed("%s: absurd run count %d", at, runCount);
                }
                long[] runs = new long[(int) runCount * 2];
                long[] prefix = new long[(int) runCount + 1];
                long pages = Long.compareUnsigned(endAddr, start) > 0 ? Long.divideUnsigned(endAddr - start, PAGE) : 0;
                long nextFree = 0;
                boolean runsOk = true;
                for (int k = 0; k < runCount; k++) {
                    long first = c.i64("run first_page");
                    long n = c.i64("run page_count");
                    runs[2 * k] = first;
                    runs[2 * k + 1] = n;
                    if (runsOk && (n <= 0 || first < 0 || first < nextFree || first > pages || n > pages - first)) {
                        problems.add(regionProblem((int) i, String.format(
                                "%s %s: run %d (pages %d+%d) is empty, out of order, overlapping or outside the region's %d pages",
                                at, name, k, first, n, pages)));
                        runsOk = false;
                    }
                    if (runsOk) {
                        nextFree = first + n;
                        prefix[k + 1] = prefix[k] + n;
                    }
                }
                if (!runsOk) {
                    // keep the region listed but unreadable: readMemory refuses it
                    runs = new long[0];
                    prefix = null;
                }
                boolean saved = savedKind(flags, stored);
                long mapped = Long.compareUnsigned(endAddr, start) > 0 ? endAddr - start : 0;
                // consistency (reported by verify; the map still shows the region)
                if ((start & (PAGE - 1)) != 0 || (endAddr & (PAGE - 1)) != 0 || Long.compareUnsigned(endAddr, start) <= 0) {
                    problems.add(regionProblem((int) i, String.format("%s: [%s, %s) is empty or not page-aligned",
                            at, Fail.hex(start), Fail.hex(endAddr))));
                }
                if (i > 0 && Long.compareUnsigned(start, prevEnd) < 0) {
                    problems.add(regionProblem((int) i, String.format(
                            "%s at %s overlaps or precedes the previous region (ends %s)", at, Fail.hex(start), Fail.hex(prevEnd))));
                }
                prevEnd = endAddr;
                if (prefix != null && stored != prefix[(int) runCount] * PAGE) {
                    problems.add(regionProblem((int) i, String.format(
                            "%s: stored_bytes %d, its runs hold %d pages (%d bytes)", at, stored, prefix[(int) runCount],
                            prefix[(int) runCount] * PAGE)));
                }
                if (stored != 0 && ((payload & (PAGE - 1)) != 0 || payload < PAGE || stored < 0
                        || payload + stored < payload || payload + stored > payloadLimit)) {
                    problems.add(regionProblem((int) i, String.format(
                            "%s: payload [%d, %d) is misaligned or outside the payload area [4096, %d)", at, payload,
                            payload + stored, payloadLimit)));
                }
                if (stored == 0 && crc != 0) {
                    problems.add(regionProblem((int) i, at + ": payload_crc is set but nothing is stored"));
                }
                if (!saved && (stored != 0 || runCount != 0)) {
                    problems.add(regionProblem((int) i, String.format(
                            "%s (%s): a %s region must store nothing, it stores %d bytes", at, name,
                            halfOf(flags) == Half.UPPER ? "guard" : halfOf(flags).label(), stored)));
                }
                if (saved) {
                    sumMapped += mapped;
                    if (stored > 0) {
                        mappedWithPayload += mapped;
                    }
                }
                sumStored += stored;
                MemoryRegion.Builder b = MemoryRegion.builder().index(i).range(start, endAddr).prot(prot)
                        .shared((flags & REG_SHARED) != 0).anonymous((flags & REG_ANON) != 0).name(name)
                        .half(halfOf(flags)).saved(saved).storedBytes(stored)
                        .zeroBytes(saved && Long.compareUnsigned(mapped, stored) > 0 ? mapped - stored : 0)
                        .payloadOffset(payload).payloadCrc(crc).fileOffset(fileOffset).inode(inode)
                        .dev(devMajor, devMinor).formatFlags(flags).runs(runs);
                for (int bit = 0; bit < REG_FLAG_NAMES.length; bit++) {
                    if ((flags & (1 << bit)) != 0) {
                        b.flag(REG_FLAG_NAMES[bit]);
                    }
                }
                if ((flags & ~0x1ff) != 0) {
                    b.flag(Fail.hex(flags & ~0x1ff));
                }
                out.add(b.build());
                prefixes[i] = prefix;
            }
            end(c, "MEMORY");
            if (sumMapped != header.mappedBytes()) {
                // The header is CRC-protected, so this is a difference in counting, not damage: the
                // writer leaves regions out (its own work area) that carry no flag saying so.
                notes.add(String.format("header mapped_bytes is %d; the saved regions map %d (%d of it in regions"
                        + " with stored pages): the writer counts regions differently", header.mappedBytes(), sumMapped,
                        mappedWithPayload));
            }
            if (sumStored != header.storedBytes()) {
                problems.add(new Problem(ErrorKind.MALFORMED, String.format(
                        "header: stored_bytes %d, the regions store %d", header.storedBytes(), sumStored)));
            }
            memoryProblems = problems;
            memoryNotes = notes;
            runPrefix = prefixes;
            regions = Collections.unmodifiableList(out);
        }
        return regions;
    }

    /** File offset where metadata starts: payloads must end before it. */
    private long metadataStart() {
        long m = header.sectionTableOffset();
        for (SectionInfo s : sections) {
            m = Math.min(m, s.offset());
        }
        return m;
    }

    @Override
    public synchronized List<ThreadInfo> threads() throws ImageException {
        if (threads == null) {
            SectionInfo s = section(SectionInfo.THREADS);
            byte[] bytes = load(SectionInfo.THREADS);
            if (s.count() * 296 != bytes.length) {
                throw Fail.malformed("THREADS: count %d does not match the section's %d bytes (296 per thread)",
                        s.count(), bytes.length);
            }
            Cursor c = new Cursor(bytes, "THREADS");
            List<ThreadInfo> out = new ArrayList<>();
            for (long i = 0; i < s.count(); i++) {
                int tid = c.i32("tid");
                int flags = c.i32("flags");
                long[] v = new long[12];
                for (int k = 0; k < v.length; k++) {
                    v[k] = c.i64("thread field");
                }
                int altFlags = c.i32("altstack_flags");
                c.skip(4, "reserved");
                List<Long> gregs = new ArrayList<>(23);
                for (int k = 0; k < 23; k++) {
                    gregs.add(c.i64("gregs"));
                }
                out.add(new ThreadInfo(tid, flags, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
                        v[11], altFlags, gregs));
            }
            threads = Collections.unmodifiableList(out);
        }
        return threads;
    }

    @Override
    public synchronized List<OpenFile> files() throws ImageException {
        if (files == null) {
            SectionInfo s = section(SectionInfo.FILES);
            byte[] bytes = load(SectionInfo.FILES);
            if (s.count() * 64 > bytes.length) {
                throw Fail.malformed("FILES: absurd count %d for a section of %d bytes", s.count(), bytes.length);
            }
            Cursor c = new Cursor(bytes, "FILES");
            List<OpenFile> out = new ArrayList<>();
            for (long i = 0; i < s.count(); i++) {
                int fd = c.i32("fd");
                int kind = c.i32("kind");
                int oflags = c.i32("open_flags");
                int fdFlags = c.i32("fd_flags");
                long offset = c.i64("offset");
                long fsize = c.i64("size");
                long mtime = c.i64("mtime_ns");
                long inode = c.i64("inode");
                long dev = c.i64("dev");
                int mode = c.i32("mode");
                long pathLen = c.u32("path_len");
                if (pathLen > MAX_NAME) {
                    throw Fail.malformed("FILES: fd %d: absurd path length %d", fd, pathLen);
                }
                String p = c.bytesString(pathLen, "FILES: fd " + fd + " path");
                out.add(new OpenFile(fd, kind, oflags, fdFlags, offset, fsize, mtime, inode, dev, mode, p));
            }
            end(c, "FILES");
            files = Collections.unmodifiableList(out);
        }
        return files;
    }

    @Override
    public synchronized SignalState signals() throws ImageException {
        if (signals == null) {
            SectionInfo s = section(SectionInfo.SIGNALS);
            Cursor c = new Cursor(load(SectionInfo.SIGNALS), "SIGNALS");
            long nsig = c.u32("nsig");
            long ntimers = c.u32("ntimers");
            long pending = c.i64("pending");
            if (nsig != s.count()) {
                throw Fail.malformed("SIGNALS: nsig %d differs from the table's count %d", nsig, s.count());
            }
            if (nsig > 64 || ntimers > 3) {
                throw Fail.malformed("SIGNALS: %d actions and %d timers (at most 64 and 3)", nsig, ntimers);
            }
            if (nsig * 40 + ntimers * 24 != c.remaining()) {
                throw Fail.malformed("SIGNALS: %d actions and %d timers do not fill the section's %d record bytes",
                        nsig, ntimers, c.remaining());
            }
            List<SignalState.Action> actions = new ArrayList<>();
            for (long i = 0; i < nsig; i++) {
                int signo = c.i32("signo");
                c.skip(4, "reserved");
                actions.add(new SignalState.Action(signo, c.i64("handler"), c.i64("flags"), c.i64("restorer"), c.i64("mask")));
            }
            List<SignalState.Timer> timers = new ArrayList<>();
            for (long i = 0; i < ntimers; i++) {
                int which = c.i32("which");
                c.skip(4, "reserved");
                timers.add(new SignalState.Timer(which, c.i64("interval_ns"), c.i64("value_ns")));
            }
            signals = new SignalState(pending, actions, timers);
        }
        return signals;
    }

    @Override
    public void readSection(SectionInfo section, long offset, ByteBuffer dst) throws ImageException {
        if (offset < 0 || offset > section.length() || dst.remaining() > section.length() - offset) {
            throw Fail.notFound("section %s: bytes [%d, %d) are outside its %d bytes", section.name(), offset,
                    offset + dst.remaining(), section.length());
        }
        readFully(ch, section.offset() + offset, dst, "section " + section.name());
    }

    @Override
    public void readMemory(long address, ByteBuffer dst) throws ImageException {
        List<MemoryRegion> rs = regions();
        long addr = address;
        while (dst.hasRemaining()) {
            MemoryRegion r = regionAt(addr);
            if (r == null) {
                throw Fail.notFound("address %s is not in any region of the image", Fail.hex(addr));
            }
            if (!r.saved()) {
                throw Fail.notFound("address %s lies in %s region %s: its contents are not saved", Fail.hex(addr),
                        (r.formatFlags() & REG_GUARD) != 0 ? "the guard" : "the " + r.half().label() + "-half", r);
            }
            long[] prefix = runPrefix[r.index()];
            if (prefix == null) {
                throw Fail.malformed("region %d (%s): its page runs are inconsistent", r.index(), r);
            }
            long off = addr - r.start();
            long page = Long.divideUnsigned(off, PAGE);
            int inPage = (int) (off & (PAGE - 1));
            long regionLeft = r.end() - addr;
            // the run holding this page, or the first run after it
            int lo = 0;
            int hi = r.runCount() - 1;
            int found = -1;
            int after = r.runCount();
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                long first = r.runFirstPage(mid);
                if (page < first) {
                    after = mid;
                    hi = mid - 1;
                } else if (page >= first + r.runPageCount(mid)) {
                    lo = mid + 1;
                } else {
                    found = mid;
                    break;
                }
            }
            long n;
            if (found >= 0) {
                long runEndPage = r.runFirstPage(found) + r.runPageCount(found);
                long avail = (runEndPage - page) * PAGE - inPage;
                n = Math.min(Math.min(avail, regionLeft), dst.remaining());
                long fileOff = r.payloadOffset() + (prefix[found] + page - r.runFirstPage(found)) * PAGE + inPage;
                long payloadEnd = r.payloadOffset() + r.storedBytes();
                if (fileOff < PAGE || fileOff + n > payloadEnd || fileOff + n > size || payloadEnd < r.payloadOffset()) {
                    throw Fail.malformed("region %d (%s): its payload lies outside the file", r.index(), r);
                }
                ByteBuffer part = dst.slice().limit((int) n);
                readFully(ch, fileOff, part, "payload of region " + r.index());
            } else {
                long zeroUntil = after < r.runCount() ? r.runFirstPage(after) * PAGE - off : regionLeft;
                n = Math.min(Math.min(zeroUntil, regionLeft), dst.remaining());
                for (long i = 0; i < n; i++) {
                    dst.put(dst.position() + (int) i, (byte) 0);
                }
            }
            dst.position(dst.position() + (int) n);
            addr += n;
            if (dst.hasRemaining() && addr == 0) {
                throw Fail.notFound("address range wraps around");
            }
        }
        assert rs != null;
    }

    @Override
    public VerifyReport verify(LongConsumer progress) throws ImageException {
        List<Problem> problems = new ArrayList<>(openProblems);
        int sectionsChecked = 0;
        // metadata: parse every known section (that checks its CRC too)
        for (int t = SectionInfo.PROCESS; t <= SectionInfo.SIGNALS; t++) {
            try {
                switch (t) {
                    case SectionInfo.PROCESS: process(); break;
                    case SectionInfo.MEMORY: regions(); break;
                    case SectionInfo.THREADS: threads(); break;
                    case SectionInfo.FILES: files(); break;
                    default: signals(); break;
                }
            } catch (ImageException e) {
                problems.add(new Problem(e.kind(), e.getMessage()));
            }
        }
        if (header.hasMpi() != mpiSection().isPresent()) {
            problems.add(new Problem(ErrorKind.MALFORMED, header.hasMpi()
                    ? "header says the image has an MPI section; there is none"
                    : "the image has an MPI section; the header's MPI flag is clear"));
        }
        if (header.nranks() < 1 || header.rank() >= header.nranks()) {
            problems.add(new Problem(ErrorKind.MALFORMED, String.format("header: rank %d of %d ranks",
                    header.rank(), header.nranks())));
        }
        if (header.generation() < 1) {
            problems.add(new Problem(ErrorKind.MALFORMED, "header: generation 0 (the first is 1)"));
        }
        for (SectionInfo s : sections) {
            if (s.known() && s.version() != 1) {
                problems.add(new Problem(ErrorKind.UNSUPPORTED, String.format("section %s: layout version %d",
                        s.name(), Integer.toUnsignedLong(s.version()))));
            }
        }
        if (memoryProblems != null) {
            problems.addAll(memoryProblems);
        }
        if (threads != null && threads.isEmpty()) {
            problems.add(new Problem(ErrorKind.MALFORMED, "THREADS: no thread"));
        }
        if (threads != null) {
            for (ThreadInfo t : threads) {
                if (t.ucontextAddr() == 0 && t.ctxAddr() == 0) {
                    problems.add(new Problem(ErrorKind.MALFORMED, String.format(
                            "THREADS: thread %d has no saved context (a restart cannot resume it)", t.tid())));
                }
            }
        }
        if (files != null) {
            for (OpenFile f : files) {
                if (f.fd() < 0) {
                    problems.add(new Problem(ErrorKind.MALFORMED, "FILES: a record has descriptor " + f.fd()));
                }
            }
        }
        if (byType[SectionInfo.FILEDATA] != null) {
            try {
                checkFileData(byType[SectionInfo.FILEDATA]);
            } catch (ImageException e) {
                problems.add(new Problem(e.kind(), e.getMessage()));
            }
        }
        if (threads != null && regions != null) {
            int mains = 0;
            for (ThreadInfo t : threads) {
                if (t.main()) {
                    mains++;
                }
                if (t.stackEnd() != 0 && (regionAt(t.stackStart()) == null
                        || regionAt(t.stackEnd() - 1) == null)) {
                    problems.add(new Problem(ErrorKind.MALFORMED, String.format(
                            "thread %d: stack [%s, %s) is not in the memory map", t.tid(), Fail.hex(t.stackStart()),
                            Fail.hex(t.stackEnd()))));
                }
            }
            if (mains > 1) {
                problems.add(new Problem(ErrorKind.MALFORMED, mains + " threads are flagged MAIN"));
            }
        }
        // the byte pass: every byte of the file, once, in order
        List<SequentialVerifier.Extent> extents = new ArrayList<>();
        List<long[]> covered = new ArrayList<>();
        extents.add(zeroExtent(HEADER_SIZE, PAGE, "page 0 after the header", problems));
        covered.add(new long[] {0, PAGE});
        int regionsChecked = 0;
        if (regions != null) {
            for (MemoryRegion r : regions) {
                long s = r.payloadOffset();
                long e = s + r.storedBytes();
                if (r.storedBytes() > 0 && s >= PAGE && e > s && e <= size) {
                    extents.add(crcExtent(s, e, r.payloadCrc(), "region " + r.index() + " (" + r + ")", r.index(), problems));
                    covered.add(new long[] {s, e});
                    regionsChecked++;
                }
            }
        }
        for (SectionInfo s : sections) {
            extents.add(crcExtent(s.offset(), s.offset() + s.length(), s.crc(), "section " + s.name(), -1, problems));
            covered.add(new long[] {s.offset(), s.offset() + s.length()});
            sectionsChecked++;
        }
        covered.add(new long[] {header.sectionTableOffset(), size});
        covered.sort((a, b) -> Long.compare(a[0], b[0]));
        long reach = 0;
        long[] prev = null;
        for (long[] iv : covered) {
            if (iv[0] < reach && iv[1] > iv[0] && prev != null) {
                problems.add(new Problem(ErrorKind.MALFORMED, String.format(
                        "file bytes [%d, %d) are claimed twice (payloads, sections or the table overlap)",
                        iv[0], Math.min(reach, iv[1]))));
            }
            if (iv[0] > reach) {
                extents.add(zeroExtent(reach, iv[0], "gap", problems));
            }
            if (iv[1] > reach) {
                reach = iv[1];
                prev = iv;
            }
        }
        long read = SequentialVerifier.run(ch, size, extents, progress);
        return new VerifyReport(problems, read, regionsChecked, sectionsChecked, true,
                memoryNotes == null ? List.of() : memoryNotes);
    }

    /**
     * FILEDATA's records fill the section exactly: a 32-byte head (fd, reserved, size, inode, dev), then
     * {@code size} bytes padded to 8. Only the heads are read (the section's CRC is checked by the byte pass).
     */
    private void checkFileData(SectionInfo s) throws ImageException {
        long pos = s.offset();
        long end = s.offset() + s.length();
        ByteBuffer head = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < s.count(); i++) {
            if (end - pos < 32) {
                throw Fail.malformed("FILEDATA: record %d of %d does not fit", i, s.count());
            }
            head.clear();
            readFully(ch, pos, head, "section FILEDATA");
            pos += 32;
            long fsize = head.getLong(8);
            if (fsize < 0 || fsize > end - pos || ((fsize + 7) & ~7L) > end - pos) {
                throw Fail.malformed("FILEDATA: record %d (fd %d) has %d bytes, %d are left", i, head.getInt(0), fsize,
                        end - pos);
            }
            pos += (fsize + 7) & ~7L;
        }
        if (pos != end) {
            throw Fail.malformed("FILEDATA: %d bytes after the last record", end - pos);
        }
    }

    private static SequentialVerifier.Extent crcExtent(long s, long e, long expect, String what, int region,
                                                       List<Problem> problems) {
        return new SequentialVerifier.Extent(s, e) {
            final CRC32C crc = new CRC32C();

            @Override
            void accept(long pos, ByteBuffer piece) {
                crc.update(piece);
            }

            @Override
            void finish() {
                if (crc.getValue() != expect) {
                    problems.add(new Problem(ErrorKind.CORRUPT, String.format(
                            "%s: checksum mismatch (stored 0x%08x, computed 0x%08x)", what, expect, crc.getValue()),
                            region));
                }
            }
        };
    }

    private static SequentialVerifier.Extent zeroExtent(long s, long e, String what, List<Problem> problems) {
        return new SequentialVerifier.Extent(s, e) {
            long firstNonZero = -1;

            @Override
            void accept(long pos, ByteBuffer piece) {
                if (firstNonZero >= 0) {
                    return;
                }
                for (int i = piece.position(); i < piece.limit(); i++) {
                    if (piece.get(i) != 0) {
                        firstNonZero = pos + i - piece.position();
                        return;
                    }
                }
            }

            @Override
            void finish() {
                if (firstNonZero >= 0) {
                    problems.add(new Problem(ErrorKind.CORRUPT, String.format(
                            "%s [%d, %d) must be zero; byte %d is not", what, start, end, firstNonZero)));
                }
            }
        };
    }

    @Override
    public void close() {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing a read-only channel
        }
    }
}
