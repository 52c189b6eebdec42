package dev.mana.inspector.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.mana.inspector.testkit.TestDmtcpImage;
import dev.mana.inspector.testkit.TestManaImage;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManaInspectCliTest {
    @TempDir
    Path tmp;
    Path img;
    TestManaImage sample;

    record Result(int rc, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        int rc = ManaInspect.run(args, new PrintWriter(o), new PrintWriter(e));
        return new Result(rc, o.toString(), e.toString());
    }

    @BeforeEach
    void image() throws Exception {
        sample = TestManaImage.sample(21);
        img = sample.write(tmp.resolve("ckpt_hello_gen1.mana"));
    }

    private static JsonObject json(Result r) {
        assertEquals(0, r.rc(), r.err());
        String[] lines = r.out().strip().split("\n");
        assertEquals(1, lines.length, "one JSON object on one line");
        return JsonParser.parseString(lines[0]).getAsJsonObject();
    }

    @Test
    void summaryTextAndJson() {
        Result r = run(img.toString());
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.out().contains("program       hello  (/home/user/hello)"), r.out());
        assertTrue(r.out().contains("rank          0 of 2"), r.out());
        JsonObject j = json(run("summary", "--json", img.toString()));
        assertEquals("MANA_V1", j.get("format").getAsString());
        assertEquals(4242, j.get("pid").getAsInt());
        assertEquals(9, j.get("regions").getAsInt());
        assertEquals(13L * 4096, j.get("stored_bytes").getAsLong());
        assertEquals("2025-11-24T16:00:00.123456789Z", j.get("time").getAsString());
    }

    @Test
    void everyViewHasJson() {
        for (String view : new String[] {"map", "threads", "files", "signals", "mpi", "sections", "verify"}) {
            JsonObject j = json(run(view, "--json", img.toString()));
            assertEquals(img.toString(), j.get("image").getAsString(), view);
        }
        JsonObject m = json(run("map", "--json", img.toString()));
        JsonObject heap = m.getAsJsonArray("regions").get(2).getAsJsonObject();
        assertEquals("0x555555600000", heap.get("start").getAsString());
        assertEquals("upper", heap.get("half").getAsString());
        assertEquals(5 * 4096, heap.get("zero_bytes").getAsLong());
        assertEquals("lower", m.getAsJsonArray("regions").get(3).getAsJsonObject().get("half").getAsString());
        JsonObject t = json(run("threads", "--json", img.toString()));
        assertEquals("0x555555555123", t.getAsJsonArray("threads").get(0).getAsJsonObject()
                .getAsJsonObject("registers").get("rip").getAsString());
        JsonObject v = json(run("verify", "--json", img.toString()));
        assertTrue(v.get("ok").getAsBoolean());
    }

    @Test
    void textViews() {
        Result map = run("map", img.toString());
        assertTrue(map.out().contains("0000555555600000-0000555555608000 rw-p upper  anon     32K     12K     20K  [heap]"), map.out());
        assertTrue(map.out().contains("(lower half: not saved)"));
        assertTrue(run("threads", img.toString()).out().contains("thread 4242 (main)"));
        String files = run("files", img.toString()).out();
        assertTrue(files.contains("/home/user/out.txt"), files);
        assertTrue(files.lines().anyMatch(l -> l.trim().startsWith("1 ") && l.contains("inherited")), files);
        assertTrue(run("signals", img.toString()).out().contains("SIGPIPE      SIG_IGN"));
        assertTrue(run("mpi", img.toString()).out().contains("MPI section: layout version 1, 300 bytes"));
        Result v = run("verify", img.toString());
        assertEquals(0, v.rc());
        assertTrue(v.out().contains(": OK: 5 regions, 6 sections checked"), v.out());
    }

    @Test
    void allPrintsEveryView() {
        Result r = run("all", img.toString());
        assertEquals(0, r.rc(), r.err());
        for (String s : new String[] {"program       hello", "[heap]", "---- threads ----", "thread 4242 (main)",
            "/home/user/out.txt", "SIGUSR1"}) {
            assertTrue(r.out().contains(s), s + " in " + r.out());
        }
    }

    @Test
    void allAsOneJsonObject() {
        JsonObject j = json(run("all", "--json", img.toString()));
        assertEquals("hello", j.getAsJsonObject("summary").get("program").getAsString());
        for (String v : new String[] {"map", "threads", "files", "signals"}) {
            assertTrue(j.has(v) && j.get(v).isJsonObject(), v + " in " + j);
        }
    }

    @Test
    void helpForEveryCommand() {
        for (String c : new String[] {"summary", "map", "threads", "files", "signals", "mpi", "sections", "verify",
            "extract", "hexdump", "diff", "dir", "all", "simulate"}) {
            Result r = run(c, "--help");
            assertEquals(0, r.rc(), c + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: mana_inspect " + c), c + ": " + r.out());
        }
        Result h = run("help", "diff");
        assertEquals(0, h.rc(), h.err());
        assertTrue(h.out().startsWith("Usage: mana_inspect diff"), h.out());
        assertTrue(run("help").out().contains("Commands:"));
    }

    @Test
    void failedExtractLeavesTheOutputAlone() throws Exception {
        Path out = tmp.resolve("keep.bin");
        Files.write(out, "precious".getBytes());
        Result x = run("extract", img.toString(), "--range", "0x7f0000000000-0x7f0000001000", "-o", out.toString());
        assertEquals(10, x.rc(), x.out());
        assertEquals("precious", Files.readString(out));
        try (var left = Files.list(tmp)) {
            assertEquals(0, left.filter(f -> f.getFileName().toString().endsWith(".part")).count(), "no .part left");
        }
    }

    @Test
    void hexdumpAndExtract() throws Exception {
        Result h = run("hexdump", img.toString(), "0x555555600000", "32");
        assertEquals(0, h.rc(), h.err());
        String[] lines = h.out().split("\n");
        assertEquals(2, lines.length);
        assertTrue(lines[0].startsWith("0000555555600000  5a "), lines[0]);
        Path out = tmp.resolve("heap.bin");
        Result x = run("extract", img.toString(), "--region", "[heap]", "-o", out.toString());
        assertEquals(0, x.rc(), x.err());
        assertArrayEquals(sample.regions.get(2).content, Files.readAllBytes(out));
        Path part = tmp.resolve("part.bin");
        assertEquals(0, run("extract", img.toString(), "--range", "0x555555601000-0x555555603000", "-o", part.toString()).rc());
        assertArrayEquals(Arrays.copyOfRange(sample.regions.get(2).content, 4096, 3 * 4096), Files.readAllBytes(part));
        Result lower = run("hexdump", img.toString(), "0x7f0000000000", "16");
        assertEquals(10, lower.rc());
        assertOneErrorLine(lower);
        Result usage = run("hexdump", img.toString(), "zz", "16");
        assertEquals(2, usage.rc());
        assertOneErrorLine(usage);
    }

    static void assertOneErrorLine(Result r) {
        String[] lines = r.err().strip().split("\n");
        assertEquals(1, lines.length, r.err());
        assertTrue(lines[0].startsWith("mana_inspect: "), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace");
    }

    @Test
    void distinctExitStatusPerClass() throws Exception {
        byte[] good = Files.readAllBytes(img);
        Path p = tmp.resolve("x.mana");
        // 3 I/O
        Result io = run("summary", tmp.resolve("missing.mana").toString());
        assertEquals(3, io.rc());
        assertOneErrorLine(io);
        assertEquals(3, run("summary", "/dev/null").rc()); // devices and FIFOs are refused, never read
        assertEquals(9, run(tmp.toString()).rc()); // a directory: the dir view (no ckpt_rank_N here)
        // 4 not an image
        Files.writeString(p, "#!/bin/sh\necho not an image\n");
        Result ni = run("summary", p.toString());
        assertEquals(4, ni.rc());
        assertOneErrorLine(ni);
        // 5 unsupported
        byte[] v9 = good.clone();
        v9[7] = '9';
        Files.write(p, v9);
        assertEquals(5, run("summary", p.toString()).rc());
        // 6 truncated
        Files.write(p, Arrays.copyOf(good, good.length - 100));
        Result tr = run("verify", p.toString());
        assertEquals(6, tr.rc());
        assertOneErrorLine(tr);
        assertTrue(tr.err().contains("truncated"), tr.err());
        // 7 malformed
        byte[] mal = good.clone();
        java.nio.ByteBuffer.wrap(mal).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(32, 1 << 30);
        TestManaImage.fixHeaderCrc(mal);
        Files.write(p, mal);
        assertEquals(7, run("summary", p.toString()).rc());
        // 8 corrupt (payload checksum: summary still works, verify says corrupt)
        byte[] cor = good.clone();
        cor[4096 * 2 + 7] ^= 1;
        Files.write(p, cor);
        assertEquals(0, run("summary", p.toString()).rc());
        Result c = run("verify", p.toString());
        assertEquals(8, c.rc());
        assertTrue(c.out().contains("checksum mismatch"), c.out());
        assertOneErrorLine(c);
        // 11 not available: threads of a DMTCP image; simulate of ours
        Path d = TestDmtcpImage.sample(1).write(tmp.resolve("a.dmtcp"), false);
        assertEquals(11, run("threads", d.toString()).rc());
        assertEquals(11, run("--simulate", img.toString()).rc());
        // 2 usage
        assertEquals(2, run("frobnicate", img.toString(), "extra").rc());
        assertEquals(2, run("extract", img.toString()).rc());
    }

    @Test
    void dmtcpSummaryMapSimulate() throws Exception {
        Path d = TestDmtcpImage.sample(1).write(tmp.resolve("b.dmtcp"), true);
        Result s = run("--simulate", d.toString());
        assertEquals(0, s.rc(), s.err());
        assertEquals(TestDmtcpImage.SAMPLE_SIMULATE, s.out());
        JsonObject sj = json(run("simulate", "--json", d.toString()));
        assertEquals(TestDmtcpImage.SAMPLE_SIMULATE, sj.get("text").getAsString());
        assertEquals(TestDmtcpImage.SAMPLE_SIMULATE.split("\n", -1).length, sj.getAsJsonArray("lines").size());
        // a DMTCP image diffed against itself is identical (file-backed regions stored short included)
        assertEquals(0, run("diff", d.toString(), d.toString()).rc());
        assertEquals(s.out(), run("simulate", d.toString()).out());
        Result sum = run(d.toString());
        assertTrue(sum.out().contains("DMTCP v4.0 image (gzip'd)"), sum.out());
        JsonObject m = json(run("map", "--json", d.toString()));
        assertEquals(8, m.getAsJsonArray("regions").size());
        assertEquals(0, run("verify", d.toString()).rc());
        assertEquals(0, run("hexdump", d.toString(), "0x80000000", "64").rc());
    }

    @Test
    void diffCountsRegionsAndBytes() throws Exception {
        TestManaImage b = TestManaImage.sample(21);
        b.generation = 2;
        b.regions.get(2).content[10] ^= 1; // heap: one byte
        b.regions.get(2).content[4096 * 3] = 7; // heap: a zero page gets a byte
        b.regions.remove(5); // libc gone
        b.region(0x7ffff7f00000L, 4096, 3, TestManaImage.ANON, "", TestManaImage.random(new java.util.Random(1), 4096, 0));
        b.regions.sort((x, y) -> Long.compareUnsigned(x.start, y.start));
        Path pb = b.write(tmp.resolve("ckpt_hello_gen2.mana"));
        Result r = run("diff", img.toString(), pb.toString());
        assertEquals(1, r.rc(), r.err());
        assertTrue(r.out().contains("1 added, 1 removed, 1 changed"), r.out());
        JsonObject j = json(new Result(0, run("diff", "--json", img.toString(), pb.toString()).out(), ""));
        assertEquals(2 + 4 * 4096 + 4096, j.get("bytes_changed").getAsLong());
        assertEquals(0, run("diff", img.toString(), img.toString()).rc());
    }
}
