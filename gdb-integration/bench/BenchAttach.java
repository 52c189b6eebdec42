/*
 * BenchAttach: how long gdb-integration takes to attach to a rank paused at a restart, load both
 * halves' symbols, insert a breakpoint and release the pause; for one rank and for 4 ranks at once;
 * and gdb's resident memory per rank. Run by bench_gdb.sh (java source-file mode, with the module's
 * jars on the class path): BenchAttach ROOT WORKDIR PROGRAM TRIALS [MPI_PROGRAM].
 *
 * Each rank is its own non-MPI job (coordinator jobs b0..b3), launched under bin/mana_launch,
 * checkpointed with mana_status, killed; every trial restarts the ranks it needs with
 * MANA_RESTART_PAUSE=2 and waits for their pause line before the clock starts. The clock covers what a
 * debugger front end does: start gdb, attach, read /proc and the image, add-symbol-file of the upper
 * half, insert a breakpoint, clear mana_restart_pause_wait, continue (until gdb reports running);
 * "to breakpoint" runs on until the breakpoint right after the checkpoint point is hit.
 *
 * With MPI_PROGRAM (the runtime's heat_mpi built with -g): the same for the 4 ranks of one Open MPI job
 * (mpirun -n 4), launched, checkpointed and killed once, restarted paused at level 2 in every trial; the
 * breakpoint is the MPI_Gather line of its step loop (every rank must be released for the halo exchange).
 */
import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.split.RankDebugger;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.Images;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

public class BenchAttach {
    static Path root;
    static Path work;
    static Path rc;

    public static void main(String[] a) throws Exception {
        root = Path.of(a[0]);
        work = Path.of(a[1]);
        Path program = Path.of(a[2]);
        int trials = Integer.parseInt(a[3]);
        Path mpiProgram = a.length > 4 ? Path.of(a[4]) : null;
        rc = work.resolve("mana.rc");
        run(List.of(bin("mana_coordinator"), "-p", "0", "--no-exit-on-last", "--status-file=" + rc));
        try {
            for (int k = 0; k < 4; k++) {
                Process p = start(List.of(bin("mana_launch"), "--job", "b" + k, "--ckptdir", work.resolve("ck" + k).toString(),
                        program.toString(), "100000", "10000"), null);
                awaitLine(p.getInputStream(), "started ");
                run(List.of(bin("mana_status"), "-j", "b" + k, "--checkpoint"));
                p.destroyForcibly();
                p.waitFor();
            }
            List<double[]> one = new ArrayList<>();
            List<Double> four = new ArrayList<>();
            List<Double> fourHit = new ArrayList<>();
            List<Long> rss = new ArrayList<>();
            for (int t = 0; t < trials; t++) {
                one.add(trial(1, rss).get(0));
                List<double[]> r4 = trial(4, rss);
                four.add(r4.stream().mapToDouble(x -> x[2]).max().orElseThrow());
                fourHit.add(r4.stream().mapToDouble(x -> x[3]).max().orElseThrow());
            }
            List<Double> oneRelease = one.stream().map(x -> x[0]).sorted().toList();
            List<Double> oneHit = one.stream().map(x -> x[1]).sorted().toList();
            List<Double> symbols = one.stream().map(x -> x[4]).sorted().toList();
            List<Double> mpiRelease = new ArrayList<>();
            List<Double> mpiHit = new ArrayList<>();
            List<Long> mpiRss = new ArrayList<>();
            if (mpiProgram != null) {
                int line = gatherLine(mpiProgram);
                launchMpi(mpiProgram);
                for (int t = 0; t < trials; t++) {
                    List<double[]> r = mpiTrial(mpiProgram, line, mpiRss);
                    mpiRelease.add(r.stream().mapToDouble(x -> x[0]).max().orElseThrow());
                    mpiHit.add(r.stream().mapToDouble(x -> x[1]).max().orElseThrow());
                }
                Collections.sort(mpiRelease);
                Collections.sort(mpiHit);
                Collections.sort(mpiRss);
            }
            Collections.sort(four);
            Collections.sort(fourHit);
            Collections.sort(rss);
            System.out.printf(Locale.ROOT, "%-46s %10s %10s%n", "what (" + trials + " trials)", "best", "median");
            row("1 rank: attach + symbols + release (s)", oneRelease);
            row("1 rank: ... until the breakpoint is hit (s)", oneHit);
            row("1 rank: of which symbol loading (s)", symbols);
            row("4 ranks at once: all released (s)", four);
            row("4 ranks at once: all at the breakpoint (s)", fourHit);
            System.out.printf(Locale.ROOT, "%-46s %10.1f %10.1f%n", "gdb RSS per rank (MiB)", rss.get(0) / 1024.0,
                    rss.get(rss.size() / 2) / 1024.0);
            String mpiJson = "";
            if (mpiProgram != null) {
                row("4 MPI ranks (1 job) at once: all released (s)", mpiRelease);
                row("4 MPI ranks at once: all at the breakpoint (s)", mpiHit);
                System.out.printf(Locale.ROOT, "%-46s %10.1f %10.1f%n", "gdb RSS per MPI rank (MiB)", mpiRss.get(0) / 1024.0,
                        mpiRss.get(mpiRss.size() / 2) / 1024.0);
                mpiJson = String.format(Locale.ROOT, "\"mpi4_release_s\": %.3f, \"mpi4_breakpoint_s\": %.3f, "
                        + "\"mpi_gdb_rss_mib\": %.1f, \"mpi4_ok\": %b, ", median(mpiRelease), median(mpiHit),
                        mpiRss.get(mpiRss.size() / 2) / 1024.0, median(mpiRelease) < 4.0);
            }
            System.out.printf(Locale.ROOT,
                    "{\"one_rank_release_s\": %.3f, \"one_rank_breakpoint_s\": %.3f, \"one_rank_symbols_s\": %.3f, "
                            + "\"four_ranks_release_s\": %.3f, \"four_ranks_breakpoint_s\": %.3f, \"gdb_rss_mib\": %.1f, "
                            + "%s\"one_ok\": %b, \"four_ok\": %b, \"trials\": %d}%n",
                    median(oneRelease), median(oneHit), median(symbols), median(four), median(fourHit),
                    rss.get(rss.size() / 2) / 1024.0, mpiJson, median(oneRelease) < 2.0, median(four) < 4.0, trials);
        } finally {
            Process q = pb(List.of(bin("mana_status"), "--quit")).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            q.waitFor(10, TimeUnit.SECONDS);
        }
    }

    static double median(List<Double> l) {
        return l.get(l.size() / 2);
    }

    static void row(String what, List<Double> l) {
        System.out.printf(Locale.ROOT, "%-46s %10.3f %10.3f%n", what, l.get(0), median(l));
    }

    /** Restarts n ranks paused at level 2 and debugs them at once: [release s, breakpoint s, wall release, wall hit, symbols s]. */
    static List<double[]> trial(int n, List<Long> rss) throws Exception {
        List<Process> procs = new ArrayList<>();
        List<Long> pids = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Process p = start(List.of(bin("mana_restart"), "--job", "b" + k, "--restartdir", work.resolve("ck" + k).toString()), "2");
            procs.add(p);
            String line = awaitLine(p.getErrorStream(), "restart pause level 2");
            String s = line.substring(line.indexOf(" pid ") + 5);
            pids.add(Long.parseLong(s.substring(0, s.indexOf(' '))));
        }
        ExecutorService ex = Executors.newFixedThreadPool(n);
        long t0 = System.nanoTime();
        List<Future<double[]>> fs = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            final int kk = k;
            fs.add(ex.submit(() -> debugOne(pids.get(kk), image(kk), t0, rss)));
        }
        List<double[]> out = new ArrayList<>();
        for (Future<double[]> f : fs) {
            out.add(f.get(120, TimeUnit.SECONDS));
        }
        ex.shutdown();
        for (Process p : procs) {
            p.destroyForcibly();
            p.waitFor();
        }
        return out;
    }

    static int gatherLine(Path program) throws Exception {
        List<String> lines = Files.readAllLines(program.resolveSibling(program.getFileName() + ".c"));
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("MPI_Gather(")) {
                return i + 1;
            }
        }
        throw new IllegalStateException("no MPI_Gather in " + program + ".c");
    }

    static List<String> mpirun(List<String> cmd) {
        List<String> c = new ArrayList<>(List.of("mpirun.openmpi", "--oversubscribe", "-n", "4"));
        c.addAll(cmd);
        return c;
    }

    static ProcessBuilder mpiPb(List<String> cmd) {
        ProcessBuilder pb = pb(mpirun(cmd));
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        return pb;
    }

    static void killTree(Process p) throws Exception {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor();
    }

    /** One 4-rank Open MPI job of the MPI program, launched, checkpointed at step 2 and killed. */
    static void launchMpi(Path program) throws Exception {
        Process p = mpiPb(List.of(bin("mana_launch"), "--job", "m4", "--ckptdir", work.resolve("ckm").toString(),
                program.toString(), "100000", "100")).start();
        awaitLine(p.getInputStream(), "heat step   2/");
        run(List.of(bin("mana_status"), "-j", "m4", "--checkpoint"));
        killTree(p);
    }

    /** The 4 MPI ranks restarted paused at level 2, debugged at once: per rank [wall release, wall hit]. */
    static List<double[]> mpiTrial(Path program, int line, List<Long> rss) throws Exception {
        ProcessBuilder pb = mpiPb(List.of(bin("mana_restart"), "--job", "m4", "--restartdir", work.resolve("ckm").toString()));
        pb.environment().put("MANA_RESTART_PAUSE", "2");
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process job = pb.start();
        BufferedReader err = new BufferedReader(new InputStreamReader(job.getErrorStream()));
        List<Long> pids = new ArrayList<>();
        while (pids.size() < 4) {
            String l = err.readLine();
            if (l == null) {
                throw new IllegalStateException("the restarted MPI job ended before its 4 pauses");
            }
            if (l.contains("restart pause level 2") && l.contains(" pid ")) {
                String s = l.substring(l.indexOf(" pid ") + 5);
                pids.add(Long.parseLong(s.substring(0, s.indexOf(' '))));
            }
        }
        Thread drain = new Thread(() -> {
            try {
                while (err.readLine() != null) {
                    // drain
                }
            } catch (java.io.IOException e) {
                // closed
            }
        });
        drain.setDaemon(true);
        drain.start();
        String location = program.resolveSibling(program.getFileName() + ".c") + ":" + line;
        java.util.Map<Long, Integer> rankOf = new java.util.HashMap<>();
        for (dev.mana.gdb.split.RankLocator.Restarting r : dev.mana.gdb.split.RankLocator.restarting(work.resolve("ckm"))) {
            rankOf.put(r.pid(), r.rank());
        }
        ExecutorService ex = Executors.newFixedThreadPool(4);
        long t0 = System.nanoTime();
        List<Future<double[]>> fs = new ArrayList<>();
        for (long pid : pids) {
            fs.add(ex.submit(() -> {
                Path image = dev.mana.gdb.split.RankLocator.imageOf(pid, work.resolve("ckm"), rankOf.get(pid));
                try (CheckpointImage img = Images.open(image);
                     RankDebugger dbg = RankDebugger.attach(pid, img, GdbMi.Options.defaults().withKillOnClose(true))) {
                    dbg.insertBreakpoint(location);
                    CompletableFuture<GdbEvent.Stopped> stop = dbg.nextStop();
                    dbg.releaseAndContinue();
                    long released = System.nanoTime();
                    dbg.awaitStop(stop, Duration.ofSeconds(60));
                    long hit = System.nanoTime();
                    String status = Files.readString(Path.of("/proc/" + dbg.gdb().gdbPid() + "/status"));
                    long kb = Long.parseLong(status.lines().filter(x -> x.startsWith("VmRSS:")).findFirst().orElseThrow()
                            .replaceAll("[^0-9]", ""));
                    synchronized (rss) {
                        rss.add(kb);
                    }
                    return new double[] {(released - t0) / 1e9, (hit - t0) / 1e9};
                }
            }));
        }
        List<double[]> out = new ArrayList<>();
        for (Future<double[]> f : fs) {
            out.add(f.get(120, TimeUnit.SECONDS));
        }
        ex.shutdown();
        killTree(job);
        return out;
    }

    static double[] debugOne(long pid, Path image, long t0, List<Long> rss) throws Exception {
        long s = System.nanoTime();
        try (CheckpointImage img = Images.open(image);
             RankDebugger dbg = RankDebugger.attach(pid, img, GdbMi.Options.defaults().withKillOnClose(true))) {
            dbg.insertBreakpoint("after_step");
            CompletableFuture<GdbEvent.Stopped> stop = dbg.nextStop();
            dbg.releaseAndContinue();
            long released = System.nanoTime();
            dbg.awaitStop(stop, Duration.ofSeconds(60));
            long hit = System.nanoTime();
            String status = Files.readString(Path.of("/proc/" + dbg.gdb().gdbPid() + "/status"));
            long kb = Long.parseLong(status.lines().filter(l -> l.startsWith("VmRSS:")).findFirst().orElseThrow()
                    .replaceAll("[^0-9]", ""));
            synchronized (rss) {
                rss.add(kb);
            }
            return new double[] {(released - s) / 1e9, (hit - s) / 1e9, (released - t0) / 1e9, (hit - t0) / 1e9,
                    dbg.timings().symbols() / 1e3};
        }
    }

    static Path image(int k) throws Exception {
        try (Stream<Path> s = Files.list(work.resolve("ck" + k).resolve("ckpt_rank_0"))) {
            return s.filter(p -> p.toString().endsWith(".mana")).findFirst().orElseThrow();
        }
    }

    static String bin(String n) {
        return root.resolve("bin").resolve(n).toString();
    }

    static ProcessBuilder pb(List<String> cmd) {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile());
        pb.environment().put("MANA_RC", rc.toString());
        return pb;
    }

    static Process start(List<String> cmd, String pause) throws Exception {
        ProcessBuilder pb = pb(cmd);
        if (pause != null) {
            pb.environment().put("MANA_RESTART_PAUSE", pause);
        }
        return pb.start();
    }

    static void run(List<String> cmd) throws Exception {
        Process p = pb(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(cmd + " failed: " + out);
        }
    }

    /** Reads until a line containing {@code what}; the rest of the stream is drained by a thread. */
    static String awaitLine(java.io.InputStream in, String what) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(in));
        String l;
        while ((l = r.readLine()) != null) {
            if (l.contains(what)) {
                Thread d = new Thread(() -> {
                    try {
                        while (r.readLine() != null) {
                            // drain
                        }
                    } catch (java.io.IOException e) {
                        // closed
                    }
                });
                d.setDaemon(true);
                d.start();
                return l;
            }
        }
        throw new IllegalStateException("stream ended without \"" + what + "\"");
    }
}
