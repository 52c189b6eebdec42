package dev.mana.inspector.internal;

import dev.mana.inspector.DmtcpArea;
import dev.mana.inspector.DmtcpHeader;
import dev.mana.inspector.DmtcpImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.Half;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ImageSummary;
import dev.mana.inspector.MemoryRegion;
import dev.mana.inspector.Problem;
import dev.mana.inspector.VerifyReport;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reader for DMTCP v4.0 images (MANA 1.x). Layout: two identical 4096-byte file headers, then
 * 4096-byte region headers each optionally followed by data, then an end marker. A gzip'd file is
 * read as a stream; a plain file positionally (data is skipped, never read, to list regions).
 */
public final class DmtcpImageReader implements DmtcpImage {
    public static final String SIGNATURE = "DMTCP_CHECKPOINT_IMAGE_v4.0\n";
    public static final String SIGNATURE_PREFIX = "DMTCP_CHECKPOINT_IMAGE_v";
    static final int HDR = 4096;
    /** More region headers than this is absurd; keeps the heap bounded (a gzip'd image can hold many). */
    static final long MAX_AREAS = 1L << 20;
    /** x86-64 user address space: a data length beyond this is absurd. */
    static final long MAX_LEN = 1L << 47;

    private final Path path;
    private final boolean gzip;
    private final long size;
    private final FileChannel ch;
    private final DmtcpHeader header;
    private final boolean copiesDiffer;
    private List<DmtcpArea> areas;
    private List<MemoryRegion> regions;
    private List<List<DmtcpArea>> regionAreas;
    private List<Problem> problems;

    private DmtcpImageReader(Path path, boolean gzip, long size, FileChannel ch, DmtcpHeader header, boolean copiesDiffer) {
        this.path = path;
        this.gzip = gzip;
        this.size = size;
        this.ch = ch;
        this.header = header;
        this.copiesDiffer = copiesDiffer;
    }

    /** Opens a plain image on {@code ch} (closed on failure) or, when {@code gzip}, a gzip'd one by path. */
    public static DmtcpImageReader open(Path path, FileChannel ch, boolean gzip) throws ImageException {
        boolean ok = false;
        try {
            long size = ch.size();
            byte[] two = new byte[2 * HDR];
            try (In in = in(path, ch, gzip, size)) {
                int got = in.readUpTo(two, 0, HDR);
                String sig = new String(two, 0, Math.min(got, SIGNATURE.length()), StandardCharsets.ISO_8859_1);
                if (got < SIGNATURE.length() && SIGNATURE.startsWith(sig)) {
                    throw Fail.truncated("the image ends after %d bytes, inside the signature", got);
                }
                if (!sig.equals(SIGNATURE)) {
                    String shown = ManaImageReader.printable(two, 0, 32);
                    if (sig.startsWith(SIGNATURE_PREFIX)) {
                        throw Fail.unsupported("DMTCP image '%s' (this reader knows v4.0)", shown);
                    }
                    throw new ImageException(ErrorKind.NOT_AN_IMAGE, (gzip ? "a gzip'd file, but " : "")
                            + "not a DMTCP v4.0 image: it starts with '" + shown + "'");
                }
                if (got < HDR) {
                    throw Fail.truncated("file header: the image ends after %d bytes", got);
                }
                in.readFully(two, HDR, HDR, "second copy of the file header");
            }
            boolean differ = !Arrays.equals(two, 0, HDR, two, HDR, 2 * HDR);
            DmtcpHeader h = parseHeader(two);
            DmtcpImageReader r = new DmtcpImageReader(path, gzip, size, ch, h, differ);
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
                    // nothing to add
                }
            }
        }
    }

    private static DmtcpHeader parseHeader(byte[] raw) {
        ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
        return new DmtcpHeader(SIGNATURE.trim(), upid(b, 32), upid(b, 56), upid(b, 80),
                b.getInt(104), b.getInt(108), b.getInt(112), b.getInt(116), b.getInt(120),
                Integer.toUnsignedLong(b.getInt(124)), Integer.toUnsignedLong(b.getInt(128)),
                Integer.toUnsignedLong(b.getInt(132)),
                b.getLong(136), b.getLong(144), b.getLong(152), b.getLong(160),
                b.getLong(168), b.getLong(176), b.getLong(184), b.getLong(192), b.getLong(200), b.getLong(208),
                b.getLong(216), b.getLong(224), b.getLong(232), b.getLong(240), b.getLong(248),
                ManaImageReader.cstring(raw, 256, 1024), ManaImageReader.cstring(raw, 1280, 1024));
    }

    private static DmtcpHeader.UniquePid upid(ByteBuffer b, int off) {
        return new DmtcpHeader.UniquePid(b.getLong(off), b.getLong(off + 8), b.getInt(off + 16),
                Integer.toUnsignedLong(b.getInt(off + 20)));
    }

    // ---- input: positional on a plain file, a stream for gzip ----

    abstract static class In implements AutoCloseable {
        long pos;

        abstract void readFully(byte[] b, int off, int len, String what) throws ImageException;

        /** Reads up to {@code len} bytes (fewer only at the end); returns how many. */
        int readUpTo(byte[] b, int off, int len) throws ImageException {
            int done = 0;
            while (done < len) {
                int n = readSome(b, off + done, len - done);
                if (n <= 0) {
                    break;
                }
                done += n;
            }
            return done;
        }

        /** One read: bytes read, or -1 at the end. */
        abstract int readSome(byte[] b, int off, int len) throws ImageException;

        abstract void skip(long n, String what) throws ImageException;

        /** Reads to the end (gzip: checks the trailer); returns bytes consumed. */
        abstract void drain() throws ImageException;

        @Override
        public abstract void close();
    }

    private static In in(Path path, FileChannel ch, boolean gzip, long size) throws ImageException {
        if (!gzip) {
            return new In() {
                @Override
                void readFully(byte[] b, int off, int len, String what) throws ImageException {
                    ManaImageReader.readFully(ch, pos, ByteBuffer.wrap(b, off, len), what);
                    pos += len;
                }

                @Override
                int readSome(byte[] b, int off, int len) throws ImageException {
                    int n = (int) Math.min(len, Math.max(0, size - pos));
                    if (n == 0) {
                        return -1;
                    }
                    readFully(b, off, n, "file header");
                    return n;
                }

                @Override
                void skip(long n, String what) throws ImageException {
                    if (n > size - pos) {
                        throw Fail.truncated("%s: %d bytes at offset %d run past the end of the file (%d bytes)", what, n,
                                pos, size);
                    }
                    pos += n;
                }

                @Override
                void drain() {
                    pos = size;
                }

                @Override
                public void close() {
                    // the channel belongs to the image
                }
            };
        }
        InputStream raw;
        try {
            raw = Files.newInputStream(path);
        } catch (IOException e) {
            throw Fail.io(path.toString(), e);
        }
        InputStream z;
        try {
            z = new GZIPInputStream(new BufferedInputStream(raw, 1 << 16), 1 << 16);
        } catch (IOException e) {
            try {
                raw.close();
            } catch (IOException ignored) {
                // reported below
            }
            throw gz(e, "gzip header");
        }
        return new In() {
            @Override
            void readFully(byte[] b, int off, int len, String what) throws ImageException {
                try {
                    int done = 0;
                    while (done < len) {
                        int n = z.read(b, off + done, len - done);
                        if (n < 0) {
                            throw Fail.truncated("%s: the gzip'd image ends at uncompressed offset %d", what, pos + done);
                        }
                        done += n;
                    }
                    pos += len;
                } catch (ImageException e) {
                    throw e;
                } catch (IOException e) {
                    throw gz(e, what);
                }
            }

            @Override
            int readSome(byte[] b, int off, int len) throws ImageException {
                try {
                    int n = z.read(b, off, len);
                    if (n > 0) {
                        pos += n;
                    }
                    return n;
                } catch (IOException e) {
                    throw gz(e, "file header");
                }
            }

            @Override
            void skip(long n, String what) throws ImageException {
                try {
                    long left = n;
                    while (left > 0) {
                        long k = z.skip(left);
                        if (k <= 0) {
                            if (z.read() < 0) {
                                throw Fail.truncated("%s: the gzip'd image ends at uncompressed offset %d, %d bytes short",
                                        what, pos + n - left, left);
                            }
                            k = 1;
                        }
                        left -= k;
                    }
                    pos += n;
                } catch (ImageException e) {
                    throw e;
                } catch (IOException e) {
                    throw gz(e, what);
                }
            }

            @Override
            void drain() throws ImageException {
                byte[] buf = new byte[1 << 16];
                try {
                    int n;
                    while ((n = z.read(buf)) >= 0) {
                        pos += n;
                    }
                } catch (IOException e) {
                    throw gz(e, "end of the gzip stream");
                }
            }

            @Override
            public void close() {
                try {
                    z.close();
                } catch (IOException ignored) {
                    // read-only
                }
            }
        };
    }

    private static ImageException gz(IOException e, String what) {
        if (e instanceof EOFException) {
            return Fail.truncated("%s: the gzip stream ends early", what);
        }
        if (e instanceof ZipException) {
            return Fail.corrupt("%s: the gzip stream is damaged (%s)", what, e.getMessage());
        }
        return Fail.io(what, e);
    }

    // ---- scanning ----

    @Override
    public synchronized List<DmtcpArea> areas() throws ImageException {
        if (areas == null) {
            try (In in = in(path, ch, gzip, size)) {
                scan(in, null);
            }
        }
        return areas;
    }

    private void scan(In in, LongConsumer progress) throws ImageException {
        in.skip(2L * HDR, "file headers");
        byte[] h = new byte[HDR];
        ByteBuffer b = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN);
        List<DmtcpArea> out = new ArrayList<>();
        List<Problem> found = new ArrayList<>();
        for (int i = 0;; i++) {
            if (i > MAX_AREAS) {
                throw Fail.malformed("more than %d region headers", MAX_AREAS);
            }
            long hdrOff = in.pos;
            in.readFully(h, 0, HDR, i == 0 ? "first region header" : "region header " + i + " (no end marker)");
            long addr = b.getLong(0);
            long size = b.getLong(16);
            if (addr == 0 && size == -1L) {
                break;
            }
            int nul = 0;
            while (nul < 1024 && h[88 + nul] != 0) {
                nul++;
            }
            if (nul == 1024) {
                found.add(new Problem(ErrorKind.MALFORMED, "region header " + i + ": the name has no NUL"));
            }
            String name = new String(h, 88, nul, StandardCharsets.UTF_8);
            int flags = b.getInt(40);
            long mmapFileSize = b.getLong(72);
            long props = b.getLong(80);
            long len;
            if ((props & (DmtcpArea.ZERO_PAGE | DmtcpArea.PARENT_HEADER)) != 0) {
                len = 0;
            } else if ((flags & DmtcpArea.MAP_ANONYMOUS) == 0 && mmapFileSize > 0) {
                len = mmapFileSize;
            } else {
                len = size;
            }
            if (len < 0 || len > MAX_LEN) {
                throw Fail.malformed("region header %d at %s: absurd data length %d", i, Fail.hex(addr), len);
            }
            DmtcpArea a = new DmtcpArea(i, addr, b.getLong(8), size, b.getLong(24), b.getInt(32), flags,
                    b.getLong(48), b.getLong(56), b.getLong(64), mmapFileSize, props, name, hdrOff,
                    len > 0 ? in.pos : -1, len);
            out.add(a);
            if (len > 0) {
                in.skip(len, "data of region " + i + " (" + Fail.hex(addr) + ", " + len + " bytes)");
            }
            if (progress != null) {
                progress.accept(in.pos);
            }
        }
        areas = Collections.unmodifiableList(out);
        problems = found;
        endOfImage = in.pos;
    }

    /** Where the end marker ends (uncompressed stream); what follows it is not part of the image. */
    private long endOfImage = -1;

    private static Half halfOfName(String name) {
        return name.equals("[vdso]") || name.startsWith("[vvar") || name.equals("[vsyscall]") ? Half.KERNEL : Half.UPPER;
    }

    @Override
    public synchronized List<MemoryRegion> regions() throws ImageException {
        if (regions == null) {
            List<DmtcpArea> as = areas();
            List<MemoryRegion> out = new ArrayList<>();
            List<List<DmtcpArea>> parts = new ArrayList<>();
            List<Problem> found = new ArrayList<>(problems);
            long prevEnd = 0;
            for (int i = 0; i < as.size(); i++) {
                DmtcpArea a = as.get(i);
                String at = "region header " + a.index() + " (" + Fail.hex(a.addr()) + ")";
                if (a.child()) {
                    found.add(new Problem(ErrorKind.MALFORMED, at + ": a CHILD header without a PARENT"));
                    continue;
                }
                List<DmtcpArea> mine = new ArrayList<>();
                mine.add(a);
                long stored = a.dataLength();
                long zero = a.zeroPage() ? a.size() : 0;
                if (a.parent()) {
                    long next = a.addr();
                    while (i + 1 < as.size() && as.get(i + 1).child()) {
                        DmtcpArea c = as.get(++i);
                        mine.add(c);
                        if (c.addr() != next || c.endAddr() != c.addr() + c.size()) {
                            found.add(new Problem(ErrorKind.MALFORMED, String.format(
                                    "%s: child header %d [%s, %s) does not continue the parent at %s", at, c.index(),
                                    Fail.hex(c.addr()), Fail.hex(c.endAddr()), Fail.hex(next))));
                        }
                        next = c.addr() + c.size();
                        stored += c.dataLength();
                        zero += c.zeroPage() ? c.size() : 0;
                    }
                    if (next != a.endAddr()) {
                        found.add(new Problem(ErrorKind.MALFORMED, String.format(
                                "%s: child headers cover up to %s, the parent ends at %s", at, Fail.hex(next),
                                Fail.hex(a.endAddr()))));
                    }
                } else if (!a.zeroPage() && a.size() > a.dataLength()) {
                    zero = 0;
                }
                if (a.endAddr() != a.addr() + a.size()) {
                    found.add(new Problem(ErrorKind.MALFORMED, String.format("%s: endAddr %s is not addr + size %s", at,
                            Fail.hex(a.endAddr()), Fail.hex(a.addr() + a.size()))));
                }
                if ((a.addr() & 4095) != 0 || (a.size() & 4095) != 0 || a.size() <= 0) {
                    found.add(new Problem(ErrorKind.MALFORMED, at + ": empty or not page-aligned"));
                }
                if (!out.isEmpty() && Long.compareUnsigned(a.addr(), prevEnd) < 0) {
                    found.add(new Problem(ErrorKind.MALFORMED, at + ": overlaps or precedes the previous region"));
                }
                prevEnd = a.endAddr();
                MemoryRegion.Builder rb = MemoryRegion.builder().index(out.size()).range(a.addr(), a.endAddr())
                        .prot(a.prot()).shared(a.shared()).anonymous(a.anonymous()).name(a.name())
                        .half(halfOfName(a.name())).saved(true).storedBytes(stored).zeroBytes(zero)
                        .payloadOffset(Math.max(0, a.dataOffset())).fileOffset(a.offset()).inode(a.inode())
                        .dev((int) a.devMajor(), (int) a.devMinor()).formatFlags(a.flags());
                if (a.shared()) {
                    rb.flag("MAP_SHARED");
                }
                if ((a.flags() & DmtcpArea.MAP_PRIVATE) != 0) {
                    rb.flag("MAP_PRIVATE");
                }
                if ((a.flags() & DmtcpArea.MAP_FIXED) != 0) {
                    rb.flag("MAP_FIXED");
                }
                if (a.anonymous()) {
                    rb.flag("MAP_ANONYMOUS");
                }
                if (a.parent()) {
                    rb.flag("parent:" + (mine.size() - 1) + "-children");
                }
                if (a.zeroPage()) {
                    rb.flag("zero-page");
                }
                out.add(rb.build());
                parts.add(mine);
            }
            if (copiesDiffer) {
                found.add(0, new Problem(ErrorKind.CORRUPT, "the two copies of the file header differ"));
            }
            if (header.elfType() != 1) {
                found.add(new Problem(ErrorKind.UNSUPPORTED, "elfType " + header.elfType() + " (1 = 64-bit expected)"));
            }
            problems = found;
            regionAreas = parts;
            regions = Collections.unmodifiableList(out);
        }
        return regions;
    }

    // ---- API ----

    @Override
    public Path path() {
        return path;
    }

    @Override
    public long fileSize() {
        return size;
    }

    @Override
    public DmtcpHeader header() {
        return header;
    }

    @Override
    public boolean compressed() {
        return gzip;
    }

    private static final Pattern RANK_DIR = Pattern.compile("ckpt_rank_(\\d{1,9})");

    /** The rank, from the directory MANA puts the image in ({@code ckpt_rank_N/}), or -1. */
    private long rankFromPath() {
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null && parent.getFileName() != null) {
            Matcher m = RANK_DIR.matcher(parent.getFileName().toString());
            if (m.matches()) {
                return Long.parseLong(m.group(1));
            }
        }
        return -1;
    }

    @Override
    public ImageSummary summary() throws ImageException {
        long mapped = 0;
        long stored = 0;
        long zero = 0;
        for (MemoryRegion r : regions()) {
            mapped += r.mappedBytes();
            stored += r.storedBytes();
            zero += r.zeroBytes();
        }
        String program = header.procname();
        return new ImageSummary(format(), program, header.procSelfExe(), header.pid(), rankFromPath(),
                header.numPeers() > 0 ? header.numPeers() : -1, Long.toHexString(header.upid().hostid()), "",
                header.compGroup().generation(), -1, size, gzip, regions.size(), -1, -1, mapped, stored, zero, false);
    }

    @Override
    public String simulate() throws ImageException {
        StringBuilder sb = new StringBuilder();
        DmtcpHeader h = header;
        sb.append("DMTCP: ").append(h.signature()).append('\n');
        sb.append("**** mtcp_restart (will be copied here): ").append(p(h.restoreBufStart())).append("..")
                .append(p(h.restoreBufEnd())).append('\n');
        sb.append("**** DMTCP entry point (ThreadList::postRestart()): ").append(p(h.postRestartAddr())).append('\n');
        sb.append("**** brk (sbrk(0)): ").append(p(h.savedBrk())).append('\n');
        sb.append("**** vdso: ").append(p(h.vdsoStart())).append("..").append(p(h.vdsoEnd())).append('\n');
        sb.append("**** vvar: ").append(p(h.vvarStart())).append("..").append(p(h.vvarEnd())).append('\n');
        sb.append("**** vvar_vclock: ").append(p(h.vvarVClockStart())).append("..").append(p(h.vvarVClockEnd())).append('\n');
        sb.append("**** end of stack: ").append(p(h.endOfStack())).append('\n');
        sb.append('\n');
        sb.append("**** Listing ckpt image area:\n");
        for (DmtcpArea a : areas()) {
            if (a.child()) {
                continue;
            }
            sb.append(p(a.addr())).append('-').append(p(a.endAddr())).append(' ')
                    .append((a.prot() & 1) != 0 ? 'r' : '-')
                    .append((a.prot() & 2) != 0 ? 'w' : '-')
                    .append((a.prot() & 4) != 0 ? 'x' : '-')
                    .append(a.shared() ? 's' : 'p')
                    .append(a.anonymous() ? " Anon" : "     ")
                    .append("          ")
                    .append(a.name()).append('\n');
        }
        return sb.toString();
    }

    /** %p as mtcp_restart prints it: 0x and lowercase hex. */
    private static String p(long v) {
        return "0x" + Long.toHexString(v);
    }

    @Override
    public void readMemory(long address, ByteBuffer dst) throws ImageException {
        regions();
        long addr = address;
        while (dst.hasRemaining()) {
            MemoryRegion r = regionAt(addr);
            if (r == null) {
                throw Fail.notFound("address %s is not in any region of the image", Fail.hex(addr));
            }
            DmtcpArea holder = holderOf(regionAreas.get(r.index()), addr);
            if (holder == null) {
                throw Fail.notFound("address %s: no region header of the image covers it", Fail.hex(addr));
            }
            long areaLeft = holder.addr() + holder.size() - addr;
            long n = Math.min(areaLeft, dst.remaining());
            long off = addr - holder.addr();
            if (holder.zeroPage() || off >= holder.dataLength()) {
                // a zero page, or past the data a file-backed header stores (DMTCP stores a mapping of a
                // file up to the file's end only, e.g. a locale archive): restore gives zeros there
                for (long i = 0; i < n; ) {
                    int k = (int) Math.min(ZEROS.length, n - i);
                    dst.put(dst.position() + (int) i, ZEROS, 0, k);
                    i += k;
                }
            } else {
                n = Math.min(Math.min(n, holder.dataLength() - off), 1 << 20);
                byte[] buf = new byte[(int) n];
                readData(holder.dataOffset() + off, buf);
                dst.put(dst.position(), buf);
            }
            dst.position(dst.position() + (int) n);
            addr += n;
        }
    }

    /**
     * The header of {@code mine} (a region's headers: the parent first when there are children, which
     * are in address order) whose range holds {@code addr}; binary search, so reading a region with
     * many child headers stays linear.
     */
    private static final byte[] ZEROS = new byte[1 << 16];

    static DmtcpArea holderOf(List<DmtcpArea> mine, long addr) {
        int lo = mine.get(0).parent() ? 1 : 0;
        int hi = mine.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            DmtcpArea a = mine.get(mid);
            if (Long.compareUnsigned(addr, a.addr()) < 0) {
                hi = mid - 1;
            } else if (Long.compareUnsigned(addr, a.addr() + a.size()) >= 0) {
                lo = mid + 1;
            } else {
                return a;
            }
        }
        return null;
    }

    /** A gzip stream kept open at the end of the last read: reads in increasing order do not start over. */
    private In gzCursor;

    private synchronized void readData(long off, byte[] buf) throws ImageException {
        if (!gzip) {
            ManaImageReader.readFully(ch, off, ByteBuffer.wrap(buf), "region data");
            return;
        }
        if (gzCursor == null || gzCursor.pos > off) {
            if (gzCursor != null) {
                gzCursor.close();
            }
            gzCursor = in(path, ch, true, size);
        }
        gzCursor.skip(off - gzCursor.pos, "region data");
        gzCursor.readFully(buf, 0, buf.length, "region data");
    }

    @Override
    public synchronized VerifyReport verify(LongConsumer progress) throws ImageException {
        long read;
        long after;
        try (In in = in(path, ch, gzip, size)) {
            if (areas == null) {
                scan(in, progress);
            } else {
                in.skip(endOfImage, "the image");
            }
            long end = in.pos;
            in.drain();
            after = in.pos - end;
            read = gzip ? size : in.pos;
        }
        List<MemoryRegion> rs = regions();
        List<Problem> found = new ArrayList<>(problems);
        if (gzip) {
            found.addAll(gzipMembers(path, size));
        }
        if (after > 0) {
            found.add(new Problem(ErrorKind.MALFORMED, String.format(
                    "%d byte%s after the end marker (offset %d%s): not part of any region", after, after == 1 ? "" : "s",
                    endOfImage, gzip ? " of the uncompressed stream" : "")));
        }
        if (progress != null) {
            progress.accept(size);
        }
        return new VerifyReport(found, read, rs.size(), 0, false, List.of());
    }

    /**
     * The gzip members of the file: DMTCP writes exactly one. A second member (two images concatenated,
     * which GZIPInputStream would read on as one stream) or bytes after the member that are not a
     * member at all (GZIPInputStream ignores them) are problems.
     */
    static List<Problem> gzipMembers(Path path, long size) throws ImageException {
        List<Problem> out = new ArrayList<>();
        java.util.zip.Inflater inf = new java.util.zip.Inflater(true);
        byte[] in = new byte[1 << 16];
        byte[] sink = new byte[1 << 16];
        try (java.io.PushbackInputStream raw = new java.io.PushbackInputStream(
                new BufferedInputStream(Files.newInputStream(path), 1 << 16), in.length)) {
            long[] off = {0};
            for (int member = 0;; member++) {
                long start = off[0];
                int b0 = next(raw, off);
                if (b0 < 0) {
                    return out;                                   // a clean end after the last member
                }
                int b1 = next(raw, off);
                if (member > 0) {
                    out.add(b0 == 0x1f && b1 == 0x8b
                            ? new Problem(ErrorKind.MALFORMED, String.format(
                                    "a second gzip member at file offset %d (DMTCP writes one: two files concatenated?)", start))
                            : new Problem(ErrorKind.MALFORMED, String.format(
                                    "%d byte%s of garbage after the gzip stream (file offset %d)", size - start,
                                    size - start == 1 ? "" : "s", start)));
                    return out;
                }
                // the header (RFC 1952): ID1 ID2 CM FLG MTIME(4) XFL OS, then the fields FLG names; a
                // damaged or truncated one is the stream reader's to report
                if (b0 != 0x1f || b1 != 0x8b || next(raw, off) != 8) {
                    return out;
                }
                int flg = next(raw, off);
                skip(raw, off, 6);
                if ((flg & 4) != 0) {
                    int xlen = next(raw, off) | next(raw, off) << 8;
                    skip(raw, off, xlen);
                }
                for (int f = 8; f <= 16; f += 8) {
                    if ((flg & f) != 0) {
                        int c;
                        do {
                            c = next(raw, off);
                        } while (c > 0);
                    }
                }
                if ((flg & 2) != 0) {
                    skip(raw, off, 2);
                }
                inf.reset();
                int n = 0;
                while (!inf.finished()) {
                    if (inf.needsInput()) {
                        n = raw.read(in);
                        if (n <= 0) {
                            return out;
                        }
                        off[0] += n;
                        inf.setInput(in, 0, n);
                    }
                    try {
                        inf.inflate(sink);
                    } catch (java.util.zip.DataFormatException e) {
                        return out;
                    }
                }
                int rem = inf.getRemaining();
                raw.unread(in, n - rem, rem);
                off[0] -= rem;
                skip(raw, off, 8);                                // CRC-32 and size: the stream reader checks them
            }
        } catch (IOException e) {
            throw Fail.io(path.toString(), e);
        } finally {
            inf.end();
        }
    }

    private static int next(InputStream in, long[] off) throws IOException {
        int c = in.read();
        if (c >= 0) {
            off[0]++;
        }
        return c;
    }

    private static void skip(InputStream in, long[] off, long n) throws IOException {
        for (long i = 0; i < n && next(in, off) >= 0; i++) {
            // byte by byte: at most a few hundred bytes of header fields
        }
    }

    @Override
    public synchronized void close() {
        if (gzCursor != null) {
            gzCursor.close();
            gzCursor = null;
        }
        try {
            ch.close();
        } catch (IOException ignored) {
            // read-only
        }
    }
}
