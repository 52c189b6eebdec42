// Writes a large, valid image in our format v1 for the benchmark (docs/image-format.md), streaming:
// every payload byte is really written (no holes: a sparse file would make read throughput a lie).
// Run as a single-file program:  java GenBenchImage.java OUT.mana STORED_GIB
// Layout: REGIONS anonymous regions; in each, every 17th page is a zero page (not stored: runs).
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

public class GenBenchImage {
    static final int PAGE = 4096;
    static final int REGIONS = 64;

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]);
        long storedTotal = (long) (Double.parseDouble(args[1]) * (1L << 30));
        long storedPerRegion = storedTotal / REGIONS / PAGE * PAGE;
        long pagesStored = storedPerRegion / PAGE;
        byte[] noise = new byte[8 << 20];
        new Random(42).nextBytes(noise);
        ByteBuffer buf = ByteBuffer.allocateDirect(8 << 20).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer meta = ByteBuffer.allocate(64 << 20).order(ByteOrder.LITTLE_ENDIAN);
        long pos = PAGE;
        long mappedAll = 0;
        long storedAll = 0;
        long stamp = 0;
        try (FileChannel ch = FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (int r = 0; r < REGIONS; r++) {
                long start = 0x7e0000000000L + (long) r * (1L << 32);
                List<long[]> runs = new ArrayList<>();
                CRC32C crc = new CRC32C();
                long payload = pos;
                long page = 0;
                long stored = 0;
                while (stored < pagesStored) {
                    if (page % 17 == 16) { // a zero page: not stored
                        page++;
                        continue;
                    }
                    if (!runs.isEmpty() && runs.get(runs.size() - 1)[0] + runs.get(runs.size() - 1)[1] == page) {
                        runs.get(runs.size() - 1)[1]++;
                    } else {
                        runs.add(new long[] {page, 1});
                    }
                    int off = (int) ((stamp * 7919 % 2047) * PAGE);
                    buf.put(noise, off, PAGE);
                    buf.putLong(buf.position() - PAGE, ++stamp); // every page distinct
                    if (!buf.hasRemaining()) {
                        pos = flush(ch, buf, crc, pos);
                    }
                    stored++;
                    page++;
                }
                pos = flush(ch, buf, crc, pos);
                long end = start + page * PAGE;
                mappedAll += end - start;
                storedAll += stored * PAGE;
                meta.putLong(start).putLong(end).putInt(3).putInt(0x2).putLong(0).putLong(0).putInt(0).putInt(0)
                        .putLong(payload).putLong(stored * PAGE).putInt(runs.size()).putInt((int) crc.getValue())
                        .putInt(0).putInt(0);
                for (long[] run : runs) {
                    meta.putLong(run[0]).putLong(run[1]);
                }
            }
            byte[] memory = bytes(meta);
            // PROCESS: 128-byte record, exe, cwd, argc + argv
            ByteBuffer p = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
            p.putInt(777).putInt(1).putInt(777).putInt(777).putInt(022).putInt(0x2d0);
            for (int i = 0; i < 13; i++) {
                p.putLong(0);
            }
            str(p, "/opt/bench/big");
            str(p, "/opt/bench");
            p.putInt(1).putInt(0);
            str(p, "big");
            byte[] process = bytes(p);
            ByteBuffer t = ByteBuffer.allocate(296).order(ByteOrder.LITTLE_ENDIAN);
            t.putInt(777).putInt(1);
            byte[] threads = t.array();
            ByteBuffer s = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            byte[] signals = s.array();
            byte[][] bodies = {process, memory, threads, new byte[0], signals};
            long[] counts = {1, REGIONS, 1, 0, 0};
            ByteBuffer table = ByteBuffer.allocate(32 * bodies.length).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < bodies.length; i++) {
                CRC32C c = new CRC32C();
                c.update(bodies[i]);
                table.putInt(i + 1).putInt(1).putLong(pos).putLong(bodies[i].length).putInt((int) c.getValue())
                        .putInt((int) counts[i]);
                pos = write(ch, ByteBuffer.wrap(bodies[i]), pos); // all lengths are multiples of 8
            }
            long tableOff = pos;
            table.flip();
            pos = write(ch, table, pos);
            ByteBuffer h = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
            h.put("MANAIMG1".getBytes(StandardCharsets.US_ASCII)).putInt(1).putInt(256).putLong(pos).putLong(tableOff)
                    .putInt(bodies.length).putInt(32).putInt(PAGE).putInt(0).putInt(0).putInt(1).putInt(1).putInt(777)
                    .putLong(System.currentTimeMillis() * 1_000_000L).putLong(mappedAll).putLong(storedAll).putInt(0)
                    .putInt(0);
            h.put(96, "benchhost".getBytes(StandardCharsets.US_ASCII));
            h.put(160, "none".getBytes(StandardCharsets.US_ASCII));
            h.put(176, "big".getBytes(StandardCharsets.US_ASCII));
            CRC32C hc = new CRC32C();
            hc.update(h.array());
            h.putInt(88, (int) hc.getValue());
            h.clear();
            write(ch, h, 0);
            ch.force(true);
        }
        System.out.printf("wrote %s: %d bytes, %d regions, %d stored bytes%n", out, pos, REGIONS, storedAll);
    }

    static void str(ByteBuffer b, String s) {
        byte[] v = s.getBytes(StandardCharsets.UTF_8);
        b.putInt(v.length).put(v);
        while ((b.position() & 7) != 0) {
            b.put((byte) 0);
        }
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] r = new byte[b.position()];
        b.flip();
        b.get(r);
        return r;
    }

    static long flush(FileChannel ch, ByteBuffer buf, CRC32C crc, long pos) throws IOException {
        buf.flip();
        crc.update(buf.duplicate());
        pos = write(ch, buf, pos);
        buf.clear();
        return pos;
    }

    static long write(FileChannel ch, ByteBuffer b, long pos) throws IOException {
        while (b.hasRemaining()) {
            pos += ch.write(b, pos);
        }
        return pos;
    }
}
