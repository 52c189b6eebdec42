package dev.mana.inspector.internal;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageDiff;
import dev.mana.inspector.ImageDiff.Kind;
import dev.mana.inspector.ImageDiff.RegionDiff;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ImageSummary;
import dev.mana.inspector.MemoryRegion;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.LongConsumer;

/** Implementation of {@link ImageDiff#compare}. */
public final class Differ {
    private static final int CHUNK = 1 << 20;

    private Differ() {
    }

    public static ImageDiff compare(CheckpointImage a, CheckpointImage b, LongConsumer progress) throws ImageException {
        List<String> header = new ArrayList<>();
        ImageSummary sa = a.summary();
        ImageSummary sb = b.summary();
        field(header, "format", sa.format(), sb.format());
        field(header, "program", sa.program(), sb.program());
        field(header, "pid", sa.pid(), sb.pid());
        field(header, "rank", sa.rank(), sb.rank());
        field(header, "nranks", sa.nranks(), sb.nranks());
        field(header, "host", sa.host(), sb.host());
        field(header, "mpi", sa.mpi(), sb.mpi());
        field(header, "generation", sa.generation(), sb.generation());
        field(header, "threads", sa.threadCount(), sb.threadCount());
        field(header, "files", sa.fileCount(), sb.fileCount());
        List<MemoryRegion> ra = a.regions();
        List<MemoryRegion> rb = b.regions();
        List<RegionDiff> out = new ArrayList<>();
        Sweep sw = new Sweep(a, b, ra, rb, progress);
        long total = 0;
        int i = 0;
        int j = 0;
        // Every address counts once: an address A holds (saved) belongs to A's region, compared with
        // whatever B holds there (another region of B included: a boundary that moved is not counted
        // again as a removed and an added region); an address only B holds belongs to B's region.
        while (i < ra.size() || j < rb.size()) {
            MemoryRegion x = i < ra.size() ? ra.get(i) : null;
            MemoryRegion y = j < rb.size() ? rb.get(j) : null;
            int cmp = x == null ? 1 : y == null ? -1 : Long.compareUnsigned(x.start(), y.start());
            if (cmp < 0) {
                long n = x.saved() ? sw.aAgainstB(x.start(), x.end()) : 0;
                out.add(new RegionDiff(Kind.REMOVED, x, null, List.of(), n, 0));
                total += n;
                i++;
            } else if (cmp > 0) {
                long n = y.saved() ? sw.onlyInB(y.start(), y.end()) : 0;
                out.add(new RegionDiff(Kind.ADDED, null, y, List.of(), n, 0));
                total += n;
                j++;
            } else {
                List<String> ch = new ArrayList<>();
                if (x.end() != y.end()) {
                    ch.add("end " + Fail.hex(x.end()) + " -> " + Fail.hex(y.end()));
                }
                field(ch, "perms", x.permissions(), y.permissions());
                field(ch, "name", x.name(), y.name());
                field(ch, "half", x.half().label(), y.half().label());
                field(ch, "flags", x.flagNames(), y.flagNames());
                field(ch, "file offset", x.fileOffset(), y.fileOffset());
                field(ch, "stored bytes", x.storedBytes(), y.storedBytes());
                long before = sw.compared;
                long changed = 0;
                if (x.saved()) {
                    changed += sw.aAgainstB(x.start(), x.end());
                }
                if (y.saved()) {
                    changed += sw.onlyInB(y.start(), y.end());
                }
                if (x.saved() != y.saved()) {
                    ch.add(x.saved() ? "no longer saved" : "now saved");
                }
                if (changed > 0 && ch.isEmpty()) {
                    ch.add("contents");
                }
                out.add(new RegionDiff(ch.isEmpty() && changed == 0 ? Kind.UNCHANGED : Kind.CHANGED, x, y, ch, changed,
                        sw.compared - before));
                total += changed;
                i++;
                j++;
            }
        }
        return new ImageDiff(header, out, total);
    }

    /** Reads both images over address ranges; counts differing bytes. */
    private static final class Sweep {
        final CheckpointImage a;
        final CheckpointImage b;
        final List<MemoryRegion> ra;
        final List<MemoryRegion> rb;
        final LongConsumer progress;
        final byte[] ba = new byte[CHUNK];
        final byte[] bb = new byte[CHUNK];
        long compared;
        long done;

        Sweep(CheckpointImage a, CheckpointImage b, List<MemoryRegion> ra, List<MemoryRegion> rb, LongConsumer progress) {
            this.a = a;
            this.b = b;
            this.ra = ra;
            this.rb = rb;
            this.progress = progress;
        }

        /** Bytes of [lo, hi) (A's, saved) that differ in B: compared where B holds saved memory, all elsewhere. */
        long aAgainstB(long lo, long hi) throws ImageException {
            long changed = 0;
            for (long p = lo; Long.compareUnsigned(p, hi) < 0; ) {
                MemoryRegion r = b.regionAt(p);
                long q;
                if (r == null || !r.saved()) {
                    q = r != null ? r.end() : nextStart(rb, p);
                    q = Long.compareUnsigned(q, hi) < 0 ? q : hi;
                    changed += q - p;
                } else {
                    q = Long.compareUnsigned(r.end(), hi) < 0 ? r.end() : hi;
                    for (long c = p; Long.compareUnsigned(c, q) < 0; ) {
                        int n = (int) Math.min(CHUNK, q - c);
                        a.readMemory(c, ByteBuffer.wrap(ba, 0, n));
                        b.readMemory(c, ByteBuffer.wrap(bb, 0, n));
                        changed += countDiffering(ba, bb, n);
                        compared += n;
                        c += n;
                        done += n;
                        if (progress != null) {
                            progress.accept(done);
                        }
                    }
                }
                p = q;
            }
            return changed;
        }

        /** Bytes of [lo, hi) (B's, saved) where A holds no saved memory (the rest is A's regions' to count). */
        long onlyInB(long lo, long hi) throws ImageException {
            long only = 0;
            for (long p = lo; Long.compareUnsigned(p, hi) < 0; ) {
                MemoryRegion r = a.regionAt(p);
                long q;
                if (r == null || !r.saved()) {
                    q = r != null ? r.end() : nextStart(ra, p);
                    q = Long.compareUnsigned(q, hi) < 0 ? q : hi;
                    only += q - p;
                } else {
                    q = Long.compareUnsigned(r.end(), hi) < 0 ? r.end() : hi;
                }
                p = q;
            }
            return only;
        }

        /** Start of the first region after {@code p} (regions in address order), or the top of the address space. */
        static long nextStart(List<MemoryRegion> rs, long p) {
            int lo = 0;
            int hi = rs.size() - 1;
            long best = -1L;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (Long.compareUnsigned(rs.get(mid).start(), p) > 0) {
                    best = rs.get(mid).start();
                    hi = mid - 1;
                } else {
                    lo = mid + 1;
                }
            }
            return best;
        }
    }

    static long countDiffering(byte[] a, byte[] b, int n) {
        long count = 0;
        int from = 0;
        while (from < n) {
            int m = Arrays.mismatch(a, from, n, b, from, n);
            if (m < 0) {
                break;
            }
            count++;
            from += m + 1;
        }
        return count;
    }

    private static void field(List<String> out, String what, Object x, Object y) {
        if (!Objects.equals(x, y)) {
            out.add(what + ": " + x + " -> " + y);
        }
    }
}
