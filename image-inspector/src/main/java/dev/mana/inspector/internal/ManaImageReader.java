package dev.mana.inspector.internal;

import static dev.mana.inspector.ImageLayout.*;

import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.Half;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ImageLayout;
import dev.mana.inspector.ImageSummary;
import dev.mana.inspector.ManaHeader;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.MemoryRegion;
import dev.mana.inspector.MpiObject;
import dev.mana.inspector.MpiSummary;
import dev.mana.inspector.OpenFile;
import dev.mana.inspector.ParentInfo;
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
    // The numbers of the format are ImageLayout's (held to core-native/include/mana/image_format.h by
    // ImageLayoutTest); these are short names for the ones used most.
    public static final byte[] MAGIC = ImageLayout.IMG_MAGIC.getBytes(StandardCharsets.US_ASCII);
    static final int HEADER_SIZE = ImageLayout.IMG_HEADER_SIZE;
    static final int PAGE = ImageLayout.IMG_PAGE_SIZE;
    static final int ENTRY_SIZE = ImageLayout.SIZEOF_SECTION;
    /** More sections than this is refused (the format defines 7 types; the C reader keeps a fixed table). */
    static final int MAX_SECTIONS = ImageLayout.IMG_MAX_SECTIONS;
    /** A metadata section larger than this is refused rather than loaded onto the heap. */
    static final long MAX_SECTION_BYTES = ImageLayout.IMG_MAX_META;
    /** More regions than this is absurd (vm.max_map_count defaults to 65530); keeps the heap bounded. */
    static final long MAX_REGIONS = ImageLayout.IMG_MAX_REGIONS;
    /** A region name or file path longer than this is refused (the restore's buffers hold 4,096 with the NUL). */
    static final long MAX_NAME = ImageLayout.IMG_MAX_NAME;
    static final String[] REG_FLAG_NAMES = {"shared", "anon", "file", "stack", "heap", "vdso", "vvar", "lower", "guard", "zstd"};

    private final Path path;
    private final FileChannel ch;
    private final long size;
    private final ManaHeader header;
    private final List<SectionInfo> sections;
    private final SectionInfo[] byType = new SectionInfo[11];
    private List<MpiObject> mpiObjects;
    /** Damage found while opening in salvage mode (empty for a normal open). */
    private final List<Problem> openProblems;

    private ProcessInfo process;
    private List<MemoryRegion> regions;
    private long[][] runPrefix;
    /**
     * Each region's zero runs as {@code [firstPage, pageCount]} pairs (empty in a full image), or null when they are
     * inconsistent: reading such a region through its chain is refused rather than guessed.
     */
    private long[][] zeroRuns;
    /** Bytes of each region's payload in the file: stored_bytes, or the compressed length (ZSTD section). */
    private long[] payloadLen;
    /** The last compressed region read by readMemory, decompressed (index, bytes). */
    private int inflatedIndex = -1;
    private byte[] inflated;
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
            } else if (s.type() == SectionInfo.MPI_OBJECTS && byType[s.type()] == null) {
                byType[s.type()] = s;   // for mpiObjects(); the checks treat it as unknown, as the C reader does
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
        int version = b.getInt(OFF_HEADER_VERSION);
        if (version != IMG_VERSION) {
            throw Fail.unsupported("image format version %d (this reader knows version 1)", Integer.toUnsignedLong(version));
        }
        int headerSize = b.getInt(OFF_HEADER_HEADER_SIZE);
        if (headerSize != HEADER_SIZE) {
            throw Fail.malformed("header_size is %d, version 1 has %d", Integer.toUnsignedLong(headerSize), HEADER_SIZE);
        }
        long stored = Integer.toUnsignedLong(b.getInt(OFF_HEADER_HEADER_CRC));
        CRC32C crc = new CRC32C();
        crc.update(raw, 0, OFF_HEADER_HEADER_CRC);
        crc.update(new byte[4]);
        crc.update(raw, OFF_HEADER_HEADER_CRC + 4, HEADER_SIZE - OFF_HEADER_HEADER_CRC - 4);
        if (crc.getValue() != stored) {
            complain(salvage, Fail.corrupt("header checksum mismatch (stored 0x%08x, computed 0x%08x)%s", stored,
                    crc.getValue(), salvage == null ? "" : ": the header's values are not to be trusted"));
        }
        ManaHeader h = new ManaHeader(version, headerSize, b.getLong(OFF_HEADER_FILE_SIZE),
                b.getLong(OFF_HEADER_SECTION_TABLE_OFFSET), b.getInt(OFF_HEADER_SECTION_COUNT),
                b.getInt(OFF_HEADER_SECTION_ENTRY_SIZE), b.getInt(OFF_HEADER_PAGE_SIZE), b.getInt(OFF_HEADER_FLAGS),
                Integer.toUnsignedLong(b.getInt(OFF_HEADER_RANK)), Integer.toUnsignedLong(b.getInt(OFF_HEADER_NRANKS)),
                Integer.toUnsignedLong(b.getInt(OFF_HEADER_GENERATION)), b.getInt(OFF_HEADER_PID),
                b.getLong(OFF_HEADER_TIME_UNIX_NS), b.getLong(OFF_HEADER_MAPPED_BYTES), b.getLong(OFF_HEADER_STORED_BYTES),
                stored, cstring(raw, OFF_HEADER_HOST, OFF_HEADER_MPI - OFF_HEADER_HOST),
                cstring(raw, OFF_HEADER_MPI, OFF_HEADER_PROGRAM - OFF_HEADER_MPI),
                cstring(raw, OFF_HEADER_PROGRAM, SIZEOF_HEADER - OFF_HEADER_PROGRAM));
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
        int[] seen = new int[11];
        for (int i = 0; i < count; i++) {
            int p = i * ENTRY_SIZE;
            int type = b.getInt(p + OFF_SECTION_TYPE);
            SectionInfo s = new SectionInfo(type, SectionInfo.typeName(type), b.getInt(p + OFF_SECTION_VERSION),
                    b.getLong(p + OFF_SECTION_OFFSET), b.getLong(p + OFF_SECTION_LENGTH),
                    Integer.toUnsignedLong(b.getInt(p + OFF_SECTION_CRC)), Integer.toUnsignedLong(b.getInt(p + OFF_SECTION_COUNT)));
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
            long[] v = new long[8]; // lh_info_slot .. upper_entry
            for (int i = 0; i < v.length; i++) {
                v[i] = c.i64("address");
            }
            c.skip(SIZEOF_PROCESS - OFF_PROCESS_UPPER_BRK_SLOT, "upper_brk_slot, upper_brk, upper_fault_acts, reserved");
            c.endRecord(0, SIZEOF_PROCESS);
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
            if (count > MAX_REGIONS || count * SIZEOF_REGION > bytes.length) {
                throw Fail.malformed("MEMORY: absurd region count %d for a section of %d bytes", count, bytes.length);
            }
            Cursor c = new Cursor(bytes, "MEMORY");
            List<MemoryRegion> out = new ArrayList<>((int) count);
            long[][] prefixes = new long[(int) count][];
            long[][] zeros = new long[(int) count][];
            List<Problem> problems = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            long payloadLimit = metadataStart();
            long mappedWithPayload = 0;
            long prevEnd = 0;
            long sumMapped = 0;
            long sumStored = 0;
            for (int i = 0; i < count; i++) {
                String at = "MEMORY: region " + i;
                int base = c.position();
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
                long zeroRunCount = c.u32("zero_run_count");
                c.endRecord(base, SIZEOF_REGION);
                if (nameLen > MAX_NAME) {
                    throw Fail.malformed("%s: absurd name length %d", at, nameLen);
                }
                String name = c.bytesString(nameLen, at + " name");
                if (runCount * SIZEOF_RUN > c.remaining()) {
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
                // zero runs (incremental images): sorted, disjoint, inside the region, on no stored page
                if (zeroRunCount != 0 && (header.flags() & IMG_F_INCREMENTAL) == 0) {
                    throw Fail.malformed("%s: %d zero runs in a full image", at, zeroRunCount);
                }
                if (zeroRunCount * SIZEOF_RUN > c.remaining()) {
                    throw Fail.malformed("%s: absurd zero run count %d", at, zeroRunCount);
                }
                long nextZero = 0;
                int sk = 0;
                long[] zr = new long[(int) zeroRunCount * 2];
                boolean zerosOk = true;
                // every record is read even after a bad one: the next region's record follows the last
                for (int k = 0; k < zeroRunCount; k++) {
                    long first = c.i64("zero run first_page");
                    long n = c.i64("zero run page_count");
                    zr[2 * k] = first;
                    zr[2 * k + 1] = n;
                    if (!zerosOk) {
                        continue;
                    }
                    if (n <= 0 || first < 0 || first < nextZero || first > pages || n > pages - first) {
                        problems.add(regionProblem((int) i, String.format(
                                "%s %s: zero run %d (pages %d+%d) is empty, out of order, overlapping or outside the region's"
                                        + " %d pages", at, name, k, first, n, pages)));
                        zerosOk = false;
                        continue;
                    }
                    nextZero = first + n;
                    while (runsOk && sk < runCount && runs[2 * sk] + runs[2 * sk + 1] <= first) {
                        sk++;
                    }
                    if (runsOk && sk < runCount && runs[2 * sk] < nextZero) {
                        problems.add(regionProblem((int) i, String.format(
                                "%s %s: zero run %d (pages %d+%d) overlaps stored run %d", at, name, k, first, n, sk)));
                        zerosOk = false;
                    }
                }
                if (!zerosOk) {
                    zr = null;
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
                if ((flags & REG_ZSTD) != 0 && stored == 0) {
                    problems.add(regionProblem((int) i, at + ": compressed, but nothing is stored"));
                }
                if (stored != 0 && (flags & REG_ZSTD) == 0 && ((payload & (PAGE - 1)) != 0 || payload < PAGE || stored < 0
                        || payload + stored < payload || payload + stored > payloadLimit)) {
                    problems.add(regionProblem((int) i, String.format(
                            "%s: payload [%d, %d) is misaligned or outside the payload area [4096, %d)", at, payload,
                            payload + stored, payloadLimit)));
                }
                if (stored == 0 && crc != 0) {
                    problems.add(regionProblem((int) i, at + ": payload_crc is set but nothing is stored"));
                }
                if (!saved && (stored != 0 || runCount != 0 || zeroRunCount != 0)) {
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
                int known = (1 << REG_FLAG_NAMES.length) - 1;
                if ((flags & ~known) != 0) {
                    b.flag(Fail.hex(flags & ~known));
                }
                out.add(b.build());
                prefixes[i] = prefix;
                zeros[i] = zr;
            }
            end(c, "MEMORY");
            payloadLen = zstdLengths(out, payloadLimit, problems);
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
            zeroRuns = zeros;
            regions = Collections.unmodifiableList(out);
        }
        return regions;
    }

    /**
     * The PARENT record of an incremental image (docs/image-format.md, "Incremental images"), checked as the C
     * reader checks it: one record, a plain file name that fills the section, an older generation, a depth in
     * 1..IMG_MAX_CHAIN-1. Empty for a full image.
     */
    @Override
    public synchronized Optional<ParentInfo> parent() throws ImageException {
        if (byType[SectionInfo.PARENT] == null) {
            return Optional.empty();
        }
        SectionInfo s = byType[SectionInfo.PARENT];
        if (s.count() != 1 || s.length() < SIZEOF_PARENT || s.length() > SIZEOF_PARENT + 256) {
            throw Fail.malformed("PARENT: count %d, length %d (want 1 record of %d bytes and a name)", s.count(),
                    s.length(), SIZEOF_PARENT);
        }
        byte[] bytes = load(SectionInfo.PARENT);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long gen = Integer.toUnsignedLong(b.getInt(OFF_PARENT_GENERATION));
        long crc = Integer.toUnsignedLong(b.getInt(OFF_PARENT_HEADER_CRC));
        long fileSize = b.getLong(OFF_PARENT_FILE_SIZE);
        long depth = Integer.toUnsignedLong(b.getInt(OFF_PARENT_DEPTH));
        long nameLen = Integer.toUnsignedLong(b.getInt(OFF_PARENT_NAME_LEN));
        if (nameLen == 0 || nameLen >= 256 || ((SIZEOF_PARENT + nameLen + 7) & ~7L) != s.length()) {
            throw Fail.malformed("PARENT: a name of %d bytes does not fill the %d-byte section", nameLen, s.length());
        }
        String name = new String(bytes, SIZEOF_PARENT, (int) nameLen, StandardCharsets.UTF_8);
        if (name.indexOf('\0') >= 0 || name.indexOf('/') >= 0 || name.equals(".") || name.equals("..")) {
            throw Fail.malformed("PARENT: the parent's name is not a file name of this folder");
        }
        for (int k = SIZEOF_PARENT + (int) nameLen; k < bytes.length; k++) {
            if (bytes[k] != 0) {
                throw Fail.malformed("PARENT: padding after the name is not zero");
            }
        }
        if (gen < 1 || gen >= header.generation()) {
            throw Fail.malformed("PARENT: parent generation %d, this image is generation %d (the parent is older)", gen,
                    header.generation());
        }
        if (depth < 1 || depth >= IMG_MAX_CHAIN) {
            throw Fail.malformed("PARENT: chain depth %d (1 to %d)", depth, IMG_MAX_CHAIN - 1);
        }
        return Optional.of(new ParentInfo(gen, crc, fileSize, depth, name));
    }

    /**
     * The payload length of each region in the file: stored_bytes, or for a region flagged zstd its record's
     * compressed_bytes in the ZSTD section (one record per such region, in region order; the payload in the
     * payload area). Broken rules go to {@code problems}, as the C reader refuses them.
     */
    private long[] zstdLengths(List<MemoryRegion> rs, long payloadLimit, List<Problem> problems) throws ImageException {
        long[] len = new long[rs.size()];
        int flagged = 0;
        for (MemoryRegion r : rs) {
            len[r.index()] = r.storedBytes();
            if ((r.formatFlags() & REG_ZSTD) != 0) {
                flagged++;
            }
        }
        SectionInfo s = byType[SectionInfo.ZSTD];
        if (s == null) {
            if (flagged > 0) {
                problems.add(new Problem(ErrorKind.MALFORMED, flagged + " regions are compressed; there is no ZSTD section"));
            }
            return len;
        }
        if (s.count() != flagged || s.count() * SIZEOF_ZSTD != s.length()) {
            problems.add(new Problem(ErrorKind.MALFORMED, String.format(
                    "ZSTD: %d records in %d bytes, %d regions are compressed", s.count(), s.length(), flagged)));
            return len;
        }
        ByteBuffer b = ByteBuffer.wrap(load(SectionInfo.ZSTD)).order(ByteOrder.LITTLE_ENDIAN);
        long prev = -1;
        for (int k = 0; k < s.count(); k++) {
            long i = Integer.toUnsignedLong(b.getInt(k * SIZEOF_ZSTD + OFF_ZSTD_REGION));
            long z = b.getLong(k * SIZEOF_ZSTD + OFF_ZSTD_COMPRESSED_BYTES);
            if (i >= rs.size() || (rs.get((int) i).formatFlags() & REG_ZSTD) == 0 || i <= prev) {
                problems.add(new Problem(ErrorKind.MALFORMED, String.format(
                        "ZSTD: record %d names region %d: not a compressed region, or out of order", k, i)));
                return len;
            }
            prev = i;
            long off = rs.get((int) i).payloadOffset();
            if (z <= 0 || (off & (PAGE - 1)) != 0 || off < PAGE || off + z < off || off + z > payloadLimit) {
                problems.add(regionProblem((int) i, String.format("region %d: compressed payload [%d, +%d) is empty, "
                        + "misaligned or outside the payload area [4096, %d)", i, off, z, payloadLimit)));
                return len;
            }
            len[(int) i] = z;
        }
        return len;
    }

    /** A compressed region's stored pages, decompressed (the last one asked for is kept). */
    private byte[] inflate(MemoryRegion r) throws ImageException {
        if (inflatedIndex == r.index()) {
            return inflated;
        }
        if (r.storedBytes() > Integer.MAX_VALUE - 8 || payloadLen[r.index()] > Integer.MAX_VALUE - 8) {
            throw Fail.unsupported("region %d (%s): %d compressed bytes are more than this reader decompresses at once",
                    r.index(), r, r.storedBytes());
        }
        ByteBuffer in = ByteBuffer.allocate((int) payloadLen[r.index()]);
        readFully(ch, r.payloadOffset(), in, "payload of region " + r.index());
        byte[] out = new byte[(int) r.storedBytes()];
        try {
            int n = Zstd.decompress(in.array(), out);
            if (n != out.length) {
                throw Fail.corrupt("region %d (%s): the compressed payload holds %d bytes, stored_bytes is %d", r.index(), r,
                        n, out.length);
            }
        } catch (NoClassDefFoundError e) {
            throw Fail.unsupported("region %d (%s) is zstd-compressed and the zstd library (aircompressor) is not on the "
                    + "class path", r.index(), r);
        }
        inflatedIndex = r.index();
        inflated = out;
        return out;
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
            if (s.count() * SIZEOF_THREAD != bytes.length) {
                throw Fail.malformed("THREADS: count %d does not match the section's %d bytes (%d per thread)",
                        s.count(), bytes.length, SIZEOF_THREAD);
            }
            Cursor c = new Cursor(bytes, "THREADS");
            List<ThreadInfo> out = new ArrayList<>();
            for (long i = 0; i < s.count(); i++) {
                int base = c.position();
                int tid = c.i32("tid");
                int flags = c.i32("flags");
                long[] v = new long[12];
                for (int k = 0; k < v.length; k++) {
                    v[k] = c.i64("thread field");
                }
                int altFlags = c.i32("altstack_flags");
                c.skip(4, "reserved");
                List<Long> gregs = new ArrayList<>(IMG_NGREG);
                for (int k = 0; k < IMG_NGREG; k++) {
                    gregs.add(c.i64("gregs"));
                }
                c.endRecord(base, SIZEOF_THREAD);
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
            if (s.count() * SIZEOF_FILE > bytes.length) {
                throw Fail.malformed("FILES: absurd count %d for a section of %d bytes", s.count(), bytes.length);
            }
            Cursor c = new Cursor(bytes, "FILES");
            List<OpenFile> out = new ArrayList<>();
            for (long i = 0; i < s.count(); i++) {
                int base = c.position();
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
                c.endRecord(base, SIZEOF_FILE);
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
    public Optional<MpiSummary> mpi() throws ImageException {
        if (byType[SectionInfo.MPI] == null) {
            return Optional.empty();
        }
        byte[] bytes = load(SectionInfo.MPI);
        if (bytes.length < SIZEOF_MPI) {
            throw Fail.malformed("MPI: %d bytes, the record has %d", bytes.length, SIZEOF_MPI);
        }
        Cursor c = new Cursor(bytes, "MPI");
        int kind = c.i32("kind");
        int level = c.i32("thread_level");
        long comms = c.u32("comms");
        long groups = c.u32("groups");
        long types = c.u32("datatypes");
        long ops = c.u32("ops");
        long requests = c.u32("requests");
        long bufMsgs = c.u32("buffered_msgs");
        long bufBytes = c.i64("buffered_bytes");
        long sent = c.i64("sent");
        long received = c.i64("received");
        long replay = c.u32("replay_entries");
        long finalized = c.u32("finalized");
        return Optional.of(new MpiSummary(kind, level, comms, groups, types, ops, requests, bufMsgs, bufBytes, sent,
                received, replay, finalized != 0));
    }

    @Override
    public synchronized List<MpiObject> mpiObjects() throws ImageException {
        if (mpiObjects == null) {
            SectionInfo s = byType[SectionInfo.MPI_OBJECTS];
            if (s == null) {
                return List.of();
            }
            byte[] bytes = load(SectionInfo.MPI_OBJECTS);
            if (s.count() * SIZEOF_MPI_OBJECT > bytes.length) {
                throw Fail.malformed("MPI_OBJECTS: absurd count %d for a section of %d bytes", s.count(), bytes.length);
            }
            Cursor c = new Cursor(bytes, "MPI_OBJECTS");
            List<MpiObject> out = new ArrayList<>();
            for (long i = 0; i < s.count(); i++) {
                int base = c.position();
                int kind = c.i32("kind");
                int flags = c.i32("flags");
                int amode = c.i32("amode");
                int commSize = c.i32("comm_size");
                long pos = c.i64("position");
                long spos = c.i64("shared_position");
                long disp = c.i64("disp");
                long dev = c.i64("dev");
                long ino = c.i64("ino");
                long nameLen = c.u32("name_len");
                c.u32("reserved");
                c.endRecord(base, SIZEOF_MPI_OBJECT);
                if (nameLen > MAX_NAME) {
                    throw Fail.malformed("MPI_OBJECTS: record %d: absurd name length %d", i, nameLen);
                }
                String name = c.bytesString(nameLen, "MPI_OBJECTS: record " + i + " name");
                out.add(new MpiObject(kind, flags, amode, commSize, pos, spos, disp, dev, ino, name));
            }
            end(c, "MPI_OBJECTS");
            mpiObjects = Collections.unmodifiableList(out);
        }
        return mpiObjects;
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
            c.endRecord(0, SIZEOF_SIGNALS);
            if (nsig > IMG_MAX_SIGACTIONS || ntimers > IMG_MAX_TIMERS) {
                throw Fail.malformed("SIGNALS: %d actions and %d timers (at most %d and %d)", nsig, ntimers,
                        IMG_MAX_SIGACTIONS, IMG_MAX_TIMERS);
            }
            if (nsig * SIZEOF_SIGACTION + ntimers * SIZEOF_ITIMER != c.remaining()) {
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

    /** The smaller of two lengths read as unsigned (a damaged region's may exceed 2^63). */
    private static long umin(long a, long b) {
        return Long.compareUnsigned(a, b) <= 0 ? a : b;
    }

    /**
     * As restore recreates memory from this image alone: stored pages from the image, zero pages as zeros. The pages an
     * incremental image leaves to its parent read as zeros here too; {@code ManaChain} reads them from the parent.
     */
    @Override
    public void readMemory(long address, ByteBuffer dst) throws ImageException {
        long addr = address;
        while (dst.hasRemaining()) {
            Piece p = readPiece(addr, dst, true);
            if (p.parents()) {
                fillZero(dst, p.length());
                dst.position(dst.position() + (int) p.length());
            }
            addr += p.length();
            if (dst.hasRemaining() && addr == 0) {
                throw Fail.notFound("address range wraps around");
            }
        }
    }

    /**
     * What this image says about the bytes from an address, up to where that changes: {@code parents} when they are
     * the parent image's (then {@code dst} is left alone), else they have been put into {@code dst}.
     */
    public record Piece(long length, boolean parents) {
    }

    /**
     * Reads from {@code addr} into {@code dst} the bytes this image holds, as far as one kind of page goes (stored
     * pages, zero pages, or pages left to the parent), at most {@code dst.remaining()}. For the {@code top} image of a
     * chain (or an image read alone) the address must lie in a saved region, else NOT_FOUND, as for readMemory. Below
     * the top the restore has already mapped the top's regions as zero pages and lays each image's pages on them,
     * oldest first, by address: there a byte outside this image's saved regions is left to the parent, or stays zero
     * when this is the full image at the bottom.
     */
    public Piece readPiece(long addr, ByteBuffer dst, boolean top) throws ImageException {
        List<MemoryRegion> rs = regions();
        boolean incremental = (header.flags() & IMG_F_INCREMENTAL) != 0;
        MemoryRegion r = regionAt(addr);
        if (r == null || !r.saved()) {
            if (top) {
                if (r == null) {
                    throw Fail.notFound("address %s is not in any region of the image", Fail.hex(addr));
                }
                throw Fail.notFound("address %s lies in %s region %s: its contents are not saved", Fail.hex(addr),
                        (r.formatFlags() & REG_GUARD) != 0 ? "the guard" : "the " + r.half().label() + "-half", r);
            }
            long n = umin(r != null ? r.end() - addr : untilNextRegion(rs, addr), dst.remaining());
            return zeroOrParents(dst, n, incremental);
        }
        long[] prefix = runPrefix[r.index()];
        long[] zr = zeroRuns[r.index()];
        if (prefix == null || (incremental && zr == null)) {
            throw Fail.malformed("region %d (%s): its page runs are inconsistent", r.index(), r);
        }
        long off = addr - r.start();
        long page = Long.divideUnsigned(off, PAGE);
        int inPage = (int) (off & (PAGE - 1));
        // unsigned: a damaged region may end past 2^63 (its length is then "negative" as a long)
        long regionLeft = r.end() - addr;
        int found = runAt(r, page);
        if (found >= 0) {
            long runEndPage = r.runFirstPage(found) + r.runPageCount(found);
            long avail = (runEndPage - page) * PAGE - inPage;
            long n = umin(umin(avail, regionLeft), dst.remaining());
            long inPayload = (prefix[found] + page - r.runFirstPage(found)) * PAGE + inPage;
            if ((r.formatFlags() & REG_ZSTD) != 0) {
                byte[] z = inflate(r);
                dst.put(dst.position(), z, (int) inPayload, (int) n);
            } else {
                long fileOff = r.payloadOffset() + inPayload;
                long payloadEnd = r.payloadOffset() + r.storedBytes();
                if (fileOff < PAGE || fileOff + n > payloadEnd || fileOff + n > size || payloadEnd < r.payloadOffset()) {
                    throw Fail.malformed("region %d (%s): its payload lies outside the file", r.index(), r);
                }
                ByteBuffer part = dst.slice().limit((int) n);
                readFully(ch, fileOff, part, "payload of region " + r.index());
            }
            dst.position(dst.position() + (int) n);
            return new Piece(n, false);
        }
        // not stored: up to the next stored run, then split by the zero runs (an incremental image's other pages
        // are its parent's; a full image's are zero)
        int after = -found - 1;
        long until = after < r.runCount() ? r.runFirstPage(after) * PAGE - off : regionLeft;
        long n = umin(umin(until, regionLeft), dst.remaining());
        if (zr == null || zr.length == 0) {
            return zeroOrParents(dst, n, incremental);
        }
        int z = zeroRunAt(zr, page);
        if (z >= 0) {
            long zEnd = (zr[2 * z] + zr[2 * z + 1]) * PAGE - off;
            n = umin(n, zEnd);
            fillZero(dst, n);
            dst.position(dst.position() + (int) n);
            return new Piece(n, false);
        }
        int zAfter = -z - 1;
        if (zAfter < zr.length / 2) {
            n = umin(n, zr[2 * zAfter] * PAGE - off);
        }
        return zeroOrParents(dst, n, incremental);
    }

    /** n bytes left to the parent (incremental), or zeros put into dst (a full image's pages in no run). */
    private static Piece zeroOrParents(ByteBuffer dst, long n, boolean incremental) {
        if (incremental) {
            return new Piece(n, true);
        }
        fillZero(dst, n);
        dst.position(dst.position() + (int) n);
        return new Piece(n, false);
    }

    /** Zeros into dst's next n bytes, its position unchanged. */
    private static void fillZero(ByteBuffer dst, long n) {
        for (long i = 0; i < n; i++) {
            dst.put(dst.position() + (int) i, (byte) 0);
        }
    }

    /** Bytes from addr to the start of the first region above it (unsigned; to the top of the space if none). */
    private static long untilNextRegion(List<MemoryRegion> rs, long addr) {
        int lo = 0;
        int hi = rs.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(rs.get(mid).start(), addr) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < rs.size() ? rs.get(lo).start() - addr : addr == 0 ? Long.MAX_VALUE : -addr;
    }

    /** The stored run holding page, or -(the first run after it) - 1. */
    private static int runAt(MemoryRegion r, long page) {
        int lo = 0;
        int hi = r.runCount() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long first = r.runFirstPage(mid);
            if (page < first) {
                hi = mid - 1;
            } else if (page >= first + r.runPageCount(mid)) {
                lo = mid + 1;
            } else {
                return mid;
            }
        }
        return -lo - 1;
    }

    /** The zero run of {@code [first, count]} pairs holding page, or -(the first run after it) - 1. */
    private static int zeroRunAt(long[] zr, long page) {
        int lo = 0;
        int hi = zr.length / 2 - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (page < zr[2 * mid]) {
                hi = mid - 1;
            } else if (page >= zr[2 * mid] + zr[2 * mid + 1]) {
                lo = mid + 1;
            } else {
                return mid;
            }
        }
        return -lo - 1;
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
        boolean incremental = (header.flags() & IMG_F_INCREMENTAL) != 0;
        if (incremental != (byType[SectionInfo.PARENT] != null)) {
            problems.add(new Problem(ErrorKind.MALFORMED, incremental
                    ? "the header says the image is incremental; there is no PARENT section"
                    : "the image has a PARENT section; the header's incremental flag is clear"));
        }
        if (incremental && (header.flags() & IMG_F_UNTRACKED) != 0) {
            problems.add(new Problem(ErrorKind.MALFORMED, String.format(
                    "header: flags 0x%x: an incremental image cannot be untracked", header.flags())));
        }
        if (byType[SectionInfo.PARENT] != null) {
            try {
                parent();
            } catch (ImageException e) {
                problems.add(new Problem(e.kind(), e.getMessage()));
            }
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
                long e = s + payloadLen[r.index()];
                if (r.storedBytes() > 0 && s >= PAGE && e > s && e <= size) {
                    String what = "region " + r.index() + " (" + r + ")";
                    extents.add((r.formatFlags() & REG_ZSTD) != 0
                            ? Zstd.crcExtent(s, e, r.payloadCrc(), r.storedBytes(), what, r.index(), problems)
                            : crcExtent(s, e, r.payloadCrc(), what, r.index(), problems));
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
        ByteBuffer head = ByteBuffer.allocate(SIZEOF_FILEDATA).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < s.count(); i++) {
            if (end - pos < SIZEOF_FILEDATA) {
                throw Fail.malformed("FILEDATA: record %d of %d does not fit", i, s.count());
            }
            head.clear();
            readFully(ch, pos, head, "section FILEDATA");
            pos += SIZEOF_FILEDATA;
            long fsize = head.getLong(OFF_FILEDATA_SIZE);
            if (fsize < 0 || fsize > end - pos || ((fsize + 7) & ~7L) > end - pos) {
                throw Fail.malformed("FILEDATA: record %d (fd %d) has %d bytes, %d are left", i, head.getInt(OFF_FILEDATA_FD), fsize,
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
