package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.inspector.testkit.ManaImageWriter;
import dev.mana.inspector.testkit.TestManaImage;
import dev.mana.testing.Await;
import dev.mana.testing.Cannot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two writers, two readers, one format (fast: a few seconds): what the Java test writer (image-testkit, also
 * the benchmark's) writes passes the C checker ({@code bin/lower-half --check}, the rules a restart applies),
 * and what the C writer writes (a real checkpoint of a small program, taken without a coordinator:
 * {@code MANA_NO_COORD=1}, the checkpoint signal sent from outside) passes the Java verifier. The runtime must be
 * built (make build; in the reactor core-native builds before this module).
 */
class WriterReaderAgreementTest {
    static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();

    @TempDir
    Path tmp;

    static Path lowerHalf() {
        Path lh = ROOT.resolve("bin/lower-half");
        assertTrue(Files.isExecutable(lh), lh + " is not built: build core-native first (make build)");
        return lh;
    }

    static void javaAccepts(Path f) throws Exception {
        try (ManaImage img = (ManaImage) Images.open(f)) {
            VerifyReport v = img.verify(null);
            assertTrue(v.ok(), f.getFileName() + ": the Java verifier: " + v.problems());
        }
    }

    @Test
    void imagesOfTheJavaTestWriterPassTheCChecker() throws Exception {
        Path lh = lowerHalf();
        Path dir = Files.createDirectories(tmp.resolve("ckpt_rank_0"));
        // named as the runtime names images, so that the C name rule (program, generation) applies too
        Path sample = TestManaImage.sample(1).write(dir.resolve("ckpt_hello_gen1.mana"));
        Path fileData = CheckAgreementTest.withFileData(TestManaImage.sample(2)).write(dir.resolve("fd.mana"));
        Path small = ManaImageWriter.write(dir.resolve("ckpt_prog_gen3.mana"), "prog", 0, 1, 3,
                "hello".getBytes(StandardCharsets.US_ASCII));
        TestManaImage bench = ManaImageWriter.image("big", 0, 1, 1); // the benchmark's shape, small
        bench.mpi = "none";
        for (int r = 0; r < 3; r++) {
            bench.fillRegion(0x7e0000000000L + ((long) r << 32), 40 * TestManaImage.PAGE, 7 + r, 4);
        }
        Path big = ManaImageWriter.withStack(bench).write(dir.resolve("ckpt_big_gen1.mana"));
        for (Path f : List.of(sample, fileData, small, big)) {
            javaAccepts(f);
            CheckAgreementTest.Verdict c = CheckAgreementTest.check(lh, f);
            assertTrue(c.accepted(), f.getFileName() + ": lower-half --check: " + c.line());
            assertTrue(c.line().contains(": ok: "), c.line());
        }
    }

    @Test
    void anImageOfTheCWriterPassesTheJavaVerifier() throws Exception {
        Path lh = lowerHalf();
        Path launch = ROOT.resolve("bin/mana_launch");
        assertTrue(Files.isExecutable(launch), launch + " is not built");
        Files.writeString(tmp.resolve("spin.c"), """
                #include <stdio.h>
                #include <string.h>
                #include <unistd.h>
                static char data[3 * 4096] = "initialized data";
                int main(void) {
                    static char bss[8 * 4096];
                    memset(bss + 4096, 7, 4096);
                    printf("ready %s\\n", data);
                    fflush(stdout);
                    for (unsigned long n = 0;; n++) { bss[n % sizeof bss] ^= 1; usleep(10000); }
                }
                """);
        Process cc = new ProcessBuilder("gcc", "-O1", "-o", "spin", "spin.c").directory(tmp.toFile())
                .redirectErrorStream(true).start();
        String ccOut = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(cc.waitFor(60, TimeUnit.SECONDS) && cc.exitValue() == 0, "gcc: " + ccOut);

        Path ck = tmp.resolve("ck");
        Path out = tmp.resolve("out.txt");
        Path err = tmp.resolve("err.txt");
        ProcessBuilder pb = new ProcessBuilder(launch.toString(), "--ckptdir", ck.toString(),
                tmp.resolve("spin").toString()).directory(tmp.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("MANA_") || k.startsWith("DMTCP_"));
        pb.environment().put("MANA_NO_COORD", "1");    // no coordinator: the checkpoint signal takes one
        pb.environment().put("MANA_DEBUG", "1");
        pb.environment().put("MANA_INCREMENTAL", "1");  // the second image is incremental, on the first
        pb.environment().put("MANA_COMPRESS", "fast");  // both compressed: the Java side decodes zstd
        Process p = pb.start();
        Path image = ck.resolve("ckpt_rank_0/ckpt_spin_gen1.mana");
        Path image2 = ck.resolve("ckpt_rank_0/ckpt_spin_gen2.mana");
        try {
            awaitWhileRunning("the program to start under the runtime (\"ready\" on its stdout)",
                    () -> Files.readString(out).startsWith("ready"), p, err);
            for (Path want : List.of(image, image2)) {
                Process kill = new ProcessBuilder("kill", "-40", Long.toString(p.pid())).start();
                assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -40");
                awaitWhileRunning("the image " + want + " after the checkpoint signal", () -> Files.exists(want), p, err);
            }
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        javaAccepts(image);
        try (ManaImage img = (ManaImage) Images.open(image)) {
            assertEquals("spin", img.summary().program());
            assertTrue(img.threads().stream().anyMatch(ThreadInfo::main), "a main thread");
            assertTrue(img.parent().isEmpty(), "the first image is a full one");
            // compressed regions decode (verify did) and read back: the program's initialized data is there
            List<MemoryRegion> zs = img.regions().stream().filter(r -> r.flagNames().contains("zstd")).toList();
            assertTrue(!zs.isEmpty(), "no compressed region in " + image);
            boolean found = false;
            for (MemoryRegion r : zs) {
                java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate((int) (r.end() - r.start()));
                img.readMemory(r.start(), b);
                found |= new String(b.array(), StandardCharsets.ISO_8859_1).contains("initialized data");
            }
            assertTrue(found, "the program's initialized data is in no compressed region");
        }
        CheckAgreementTest.Verdict c = CheckAgreementTest.check(lh, image);
        assertTrue(c.accepted(), "lower-half --check: " + c.line());
        if (Files.readString(err).contains("incremental checkpoints were asked for, but")) {
            // a kernel without written-page tracking writes full images: the incremental half cannot be checked
            Cannot.skipOrFail("softdirty", "the kernel cannot track written pages (generation 1 checked; generation 2 "
                    + "is full): " + RealImageTest.tail(Files.readString(err)));
        }
        javaAccepts(image2);
        try (ManaImage img = (ManaImage) Images.open(image2)) {
            ParentInfo parent = img.parent().orElseThrow(() -> new AssertionError("generation 2 is not incremental"));
            assertEquals("ckpt_spin_gen1.mana", parent.name());
            assertEquals(1, parent.generation());
            assertEquals(1, parent.depth());
            try (ManaImage first = (ManaImage) Images.open(image)) {
                assertEquals(first.header().headerCrc(), parent.headerCrc());
            }
            assertTrue(img.header().storedBytes() < Files.size(image) / 2, "the incremental image stores little");
        }
        CheckAgreementTest.Verdict c2 = CheckAgreementTest.check(lh, image2);
        assertTrue(c2.accepted() && c2.line().contains("incremental on ckpt_spin_gen1.mana"), "lower-half --check: " + c2.line());
    }

    interface Cond {
        boolean get() throws Exception;
    }

    /**
     * Polls every 50 ms until {@code c} holds (an IOException: not yet); fails when 60 s pass or {@code p} ends,
     * with the tail of its stderr {@code err}.
     */
    static void awaitWhileRunning(String what, Cond c, Process p, Path err) throws Exception {
        java.util.function.Supplier<String> stderr = () -> {
            try {
                return "stderr: " + RealImageTest.tail(Files.readString(err));
            } catch (java.io.IOException e) {
                return "(stderr unreadable: " + e + ")";
            }
        };
        Await.value(Duration.ofSeconds(60), Duration.ofMillis(50), what, () -> {
            try {
                if (c.get()) {
                    return true;
                }
            } catch (java.io.IOException e) {
                // not there yet
            }
            if (!p.isAlive()) {
                throw new AssertionError("the program ended (exit " + p.exitValue() + ") before " + what + "\n"
                        + stderr.get());
            }
            return false;
        }, Boolean::booleanValue, stderr);
    }
}
