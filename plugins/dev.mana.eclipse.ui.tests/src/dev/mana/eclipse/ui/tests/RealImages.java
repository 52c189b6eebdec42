package dev.mana.eclipse.ui.tests;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checkpoint images written by the repository's real runtime, as core-native/examples/demo.sh makes them:
 * a coordinator ({@code bin/mana_coordinator}, private status file), the example {@code heat} under
 * {@code bin/mana_launch}, two {@code bin/mana_status --checkpoint}s, then the program is killed. The runtime
 * removes generation 1 once generation 2 is committed; a copy taken in between is put back, so the
 * directory holds two generations (as a user who keeps old ones has). {@link #why} says why there are none
 * (runtime not built: {@code make build}). It all happens in the neutral {@link DemoDir}: the runtime and
 * heat are copied there first, so the images record /tmp/demo/heat and /tmp/demo/mana/lib/libmana.so and
 * lie in /tmp/demo/ck (what the editors' pictures show), not paths of the machine that built them.
 */
final class RealImages {
    final Path dir;
    final Path gen1;
    final Path gen2;
    final String why;

    private RealImages(Path dir, Path gen1, Path gen2, String why) {
        this.dir = dir;
        this.gen1 = gen1;
        this.gen2 = gen2;
        this.why = why;
    }

    static RealImages make(Path builtRoot, DemoDir demo) throws Exception {
        for (String t : new String[] {"mana_coordinator", "mana_launch", "mana_status", "mana_inspect"}) {
            if (!Files.isExecutable(builtRoot.resolve("bin").resolve(t))) {
                return new RealImages(null, null, null, "bin/" + t + " is not built (make build)");
            }
        }
        Path built = builtRoot.resolve("core-native/build/examples/heat");
        if (!Files.isExecutable(built)) {
            return new RealImages(null, null, null, "core-native/build/examples/heat is not built (make build)");
        }
        Path root = demo.copyRuntime(builtRoot); // /tmp/demo/mana
        Path heat = demo.copyProgram(built); // /tmp/demo/heat
        Path work = Files.createDirectories(demo.resolve("run")); // the coordinator's files and the logs
        Path rc = work.resolve("mana.rc");
        Path ck = Files.createDirectories(demo.resolve("ck"));
        Process coord = null;
        Process app = null;
        try {
            ProcessBuilder cb = new ProcessBuilder(root.resolve("bin/mana_coordinator").toString(), "--status-file",
                rc.toString(), "-p", "0").redirectErrorStream(true).redirectOutput(work.resolve("coord.log").toFile());
            cb.environment().put("HOME", work.toString());
            coord = cb.start();
            waitFor(() -> Files.isReadable(rc) && Files.readString(rc).contains("Secret:"), 30, "the coordinator's status file");
            ProcessBuilder lb = new ProcessBuilder(root.resolve("bin/mana_launch").toString(), "--ckptdir", ck.toString(),
                heat.toString(), "2000", "50").redirectErrorStream(true).redirectOutput(work.resolve("launch.out").toFile());
            lb.environment().put("MANA_RC", rc.toString());
            app = lb.start();
            Path out = work.resolve("launch.out");
            waitFor(() -> Files.readString(out).contains("step   5/"), 60, "heat under mana_launch to reach step 5");
            Path gen1 = checkpoint(root, rc, ck, work, 1);
            Path keep = Files.copy(gen1, work.resolve(gen1.getFileName()));
            Path gen2 = checkpoint(root, rc, ck, work, 2);
            Files.copy(keep, gen1, StandardCopyOption.COPY_ATTRIBUTES);
            return new RealImages(ck, gen1, gen2, "");
        } finally {
            for (Process p : new Process[] {app, coord}) {
                if (p != null) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static Path checkpoint(Path root, Path rc, Path ck, Path work, int gen) throws Exception {
        ProcessBuilder sb = new ProcessBuilder(root.resolve("bin/mana_status").toString(), "--checkpoint")
            .redirectErrorStream(true);
        sb.environment().put("MANA_RC", rc.toString());
        Process p = sb.start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("mana_status --checkpoint failed: " + text);
        }
        Path img = ck.resolve("ckpt_rank_0/ckpt_heat_gen" + gen + ".mana");
        waitFor(() -> Files.isRegularFile(img), 30, img.toString());
        return img;
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void waitFor(Check c, int seconds, String what) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            try {
                if (c.ok()) {
                    return;
                }
            } catch (IOException e) {
                // not there yet
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out after " + seconds + " s waiting for " + what);
            }
            Thread.sleep(50);
        }
    }

    /** {@code bin/mana_inspect ARGS...}: its stdout (exit status 0 or 1 expected). */
    static String inspect(Path root, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(root.resolve("bin/mana_inspect").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("mana_inspect " + args[0] + " did not end");
        }
        return out;
    }

    /** A top-level field of a one-line JSON object: a number as its digits, a string without its quotes. */
    static String json(String obj, String key) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(key) + "\":(\"((?:[^\"\\\\]|\\\\.)*)\"|-?[0-9]+|true|false|null)")
            .matcher(obj);
        if (!m.find()) {
            throw new AssertionError("no " + key + " in " + obj);
        }
        return m.group(2) != null ? m.group(2) : m.group(1);
    }

    static File file(Path p) {
        return p.toFile();
    }
}
