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
        byte[] ba = new byte[CHUNK];
        byte[] bb = new byte[CHUNK];
        long total = 0;
        long[] done = {0};
        int i = 0;
        int j = 0;
        while (i < ra.size() || j < rb.size()) {
            MemoryRegion x = i < ra.size() ? ra.get(i) : null;
            MemoryRegion y = j < rb.size() ? rb.get(j) : null;
            int cmp = x == null ? 1 : y == null ? -1 : Long.compareUnsigned(x.start(), y.start());
            if (cmp < 0) {
                long n = x.saved() ? x.mappedBytes() : 0;
                out.add(new RegionDiff(Kind.REMOVED, x, null, List.of(), n, 0));
                total += n;
                i++;
            } else if (cmp > 0) {
                long n = y.saved() ? y.mappedBytes() : 0;
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
                long changed = 0;
                long compared = 0;
                if (x.saved() && y.saved()) {
                    long end = Long.compareUnsigned(x.end(), y.end()) < 0 ? x.end() : y.end();
                    long extra = Math.abs(x.mappedBytes() - y.mappedBytes());
                    for (long p = x.start(); Long.compareUnsigned(p, end) < 0; ) {
                        int n = (int) Math.min(CHUNK, end - p);
                        a.readMemory(p, ByteBuffer.wrap(ba, 0, n));
                        b.readMemory(p, ByteBuffer.wrap(bb, 0, n));
                        changed += countDiffering(ba, bb, n);
                        compared += n;
                        p += n;
                        done[0] += n;
                        if (progress != null) {
                            progress.accept(done[0]);
                        }
                    }
                    changed += extra;
                } else if (x.saved() != y.saved()) {
                    ch.add(x.saved() ? "no longer saved" : "now saved");
                    changed = Math.max(x.mappedBytes(), y.mappedBytes());
                }
                if (changed > 0 && ch.isEmpty()) {
                    ch.add("contents");
                }
                out.add(new RegionDiff(ch.isEmpty() && changed == 0 ? Kind.UNCHANGED : Kind.CHANGED, x, y, ch, changed,
                        compared));
                total += changed;
                i++;
                j++;
            }
        }
        return new ImageDiff(header, out, total);
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
