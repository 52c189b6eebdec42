package dev.mana.dap.session;

import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.command.MiGdbSet;
import dev.mana.gdb.mi.command.MiTargetAttach;
import dev.mana.gdb.split.ElfObject;
import dev.mana.gdb.split.LhInfo;
import dev.mana.gdb.split.MemorySource;
import dev.mana.gdb.split.ProcMaps;
import dev.mana.gdb.split.RankDebugger;
import dev.mana.gdb.split.RankLocator;
import dev.mana.gdb.split.RuntimeSymbols;
import dev.mana.gdb.split.SymbolLoader;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.Images;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Gets a rank into gdb's hands for a {@code launch} or {@code attach}: starts the runtime's command when
 * asked to, finds the rank's process, waits until it may be attached, attaches with both halves' symbols.
 * The same steps as {@code mana_gdb} and the Eclipse launch, for one rank.
 *
 * <p>Finding a process polls {@code /proc} (50 ms rounds, up to the spec's time-out): a process appearing
 * or reaching its pause loop raises no event anyone outside it can wait on.
 */
final class RankStarter {
    private static final Duration POLL = Duration.ofMillis(50);

    private final LaunchSpec spec;
    /** (category, text) for the client: "console" for the adapter's own lines, stdout/stderr for the rank's. */
    private final BiConsumer<String, String> out;

    RankStarter(LaunchSpec spec, BiConsumer<String, String> out) {
        this.spec = spec;
        this.out = out;
    }

    /** Does what the spec asks; on failure nothing it started is left running. */
    Debuggee start() throws IOException, MiException, InterruptedException {
        return switch (spec.kind()) {
            case RESTART -> restart();
            case LAUNCH_PROGRAM -> launchProgram();
            case ATTACH -> attach();
        };
    }

    private GdbMi.Options gdbOptions() {
        GdbMi.Options o = GdbMi.Options.defaults().withGdb(spec.gdb()).withKillOnClose(false);
        if (spec.gdbTrace()) {
            o = o.withTranscript(line -> out.accept("console", "gdb: " + line + "\n"));
        }
        return o;
    }

    /**
     * {@code [mpirun ...] mana_restart --restartdir D --debug-rank R --debug-level N}: only rank R pauses
     * (the script clears the pause of the others), so the ranks not debugged need no one to release them.
     */
    private Debuggee restart() throws IOException, MiException, InterruptedException {
        Path dir = spec.restartDir();
        if (!Files.isDirectory(dir)) {
            throw new IOException("restart directory " + dir + " does not exist");
        }
        int rank = spec.rankOr0();
        List<String> cmd = new ArrayList<>(spec.mpirun());
        cmd.add(tool("mana_restart"));
        cmd.addAll(List.of("--restartdir", dir.toString(), "--debug-rank", Integer.toString(rank),
                "--debug-level", Integer.toString(spec.pauseLevel())));
        if (spec.job() != null) {
            cmd.addAll(List.of("--job", spec.job()));
        }
        cmd.addAll(spec.manaArgs());
        Started s = startProcess(cmd, Map.of());
        boolean ok = false;
        try {
            long deadline = deadline();
            long pid = findRestarting(dir, rank, s.process, deadline);
            awaitPublished(pid, s.process, deadline);
            // gdb must not attach while the restore code still replaces memory and moves the vdso
            RankDebugger.waitForPause(pid, spec.pauseLevel(), remaining(deadline), gdbOptions());
            Debuggee d = attachRestarted(pid, dir, rank, s);
            ok = true;
            return d;
        } finally {
            if (!ok) {
                kill(s.process);
            }
        }
    }

    /**
     * {@code [mpirun ...] mana_launch --ckptdir D PROGRAM ARGS} with {@code MANA_LAUNCH_PAUSE=1}: every rank
     * waits before its program is loaded. The lower half initializes MPI (collectively) before it maps the
     * program, so the ranks not debugged are released first; then the debugged one runs to {@code main}.
     */
    private Debuggee launchProgram() throws IOException, MiException, InterruptedException {
        Path ckpt = spec.ckptDir();
        Files.createDirectories(ckpt);
        int rank = spec.rankOr0();
        List<String> cmd = new ArrayList<>(spec.mpirun());
        cmd.add(tool("mana_launch"));
        cmd.addAll(List.of("--ckptdir", ckpt.toString()));
        if (spec.job() != null) {
            cmd.addAll(List.of("--job", spec.job()));
        }
        cmd.addAll(spec.manaArgs());
        cmd.add(spec.program());
        cmd.addAll(spec.args());
        Started s = startProcess(cmd, Map.of("MANA_LAUNCH_PAUSE", "1"));
        boolean ok = false;
        try {
            long deadline = deadline();
            Map<Integer, Long> pids = new TreeMap<>();
            while (pids.size() < spec.ranks()) {
                for (RankLocator.Launched l : RankLocator.launched(ckpt)) {
                    if (ours(l.pid(), s.process) && l.rank() < spec.ranks() && RankLocator.inLaunchPause(l.pid())) {
                        pids.putIfAbsent(l.rank(), l.pid());
                    }
                }
                if (pids.size() < spec.ranks()) {
                    waitRound(s.process, deadline, "ranks in their launch pause (found " + pids + " of "
                            + spec.ranks() + ")");
                }
            }
            for (Map.Entry<Integer, Long> e : pids.entrySet()) {
                if (e.getKey() != rank) {
                    release(e.getValue(), RuntimeSymbols.MANA_LAUNCH_PAUSE_WAIT);
                }
            }
            long pid = pids.get(rank);
            RankDebugger dbg = RankDebugger.attachAtLaunch(pid, remaining(deadline), gdbOptions());
            String summary = "mana-dap: rank " + rank + ", pid " + pid + ", launched with a pause and run to main\n"
                    + objects(dbg);
            ok = true;
            return new Debuggee(dbg, null, s.process, s.pumps, false, rank, summary);
        } finally {
            if (!ok) {
                kill(s.process);
            }
        }
    }

    /** A rank that runs, or waits in its restart pause; found by pid, or by rank and restart directory. */
    private Debuggee attach() throws IOException, MiException, InterruptedException {
        long deadline = deadline();
        Long pid = spec.pid();
        if (pid == null) {
            pid = findRestarting(spec.restartDir(), spec.rank(), null, deadline);
        } else if (!Files.isDirectory(Path.of("/proc/" + pid))) {
            throw new IOException("no process " + pid);
        }
        Path dir = spec.restartDir() != null ? spec.restartDir() : RankLocator.restoreDirOf(pid);
        if (spec.pauseLevel() != null) {
            // as mana_gdb --level: a rank found while still restoring runs to its pause first
            awaitPublished(pid, null, deadline);
            RankDebugger.waitForPause(pid, spec.pauseLevel(), remaining(deadline), gdbOptions());
        }
        int rank = rankOf(pid);
        if (spec.rank() != null && rank >= 0 && rank != spec.rank()) {
            throw new IOException("pid " + pid + " is rank " + rank + ", not " + spec.rank());
        }
        if (dir != null) {
            return attachRestarted(pid, dir, rank < 0 ? spec.rankOr0() : rank, new Started(null, List.of()));
        }
        RankDebugger dbg = RankDebugger.attach(pid, null, gdbOptions());
        // a process without lh_info is no MANA rank: gdb debugs it all the same, as one half
        String summary = "mana-dap: " + (rank >= 0 ? "rank " + rank + ", pid " + pid + " (launched, running)"
                : "pid " + pid + " (no lh_info: not a MANA rank)") + "\n" + objects(dbg);
        return new Debuggee(dbg, null, null, List.of(), false, rank, summary);
    }

    private Debuggee attachRestarted(long pid, Path dir, int rank, Started s) throws IOException, MiException {
        Path imagePath = RankLocator.imageOf(pid, dir, rank);
        CheckpointImage img;
        try {
            img = Images.open(imagePath);
        } catch (ImageException e) {
            throw new IOException(e.getMessage(), e);
        }
        boolean ok = false;
        try {
            RankDebugger dbg = RankDebugger.attach(pid, img, gdbOptions());
            boolean paused;
            try {
                paused = dbg.isPaused();
            } catch (MiException e) {
                dbg.close();
                throw e;
            }
            String summary = "mana-dap: rank " + rank + ", pid " + pid + ", restarted from " + imagePath
                    + (paused ? ", waits in its restart pause level " + dbg.pauseLevel()
                    + " (the first continue or step releases it)" : "") + "\n" + objects(dbg);
            ok = true;
            return new Debuggee(dbg, img, s.process, s.pumps, paused, rank, summary);
        } finally {
            if (!ok) {
                img.close();
            }
        }
    }

    /** The table mana_gdb prints: each object, its half, where it is loaded and what gdb does with it. */
    private static String objects(RankDebugger dbg) {
        StringBuilder b = new StringBuilder();
        for (SymbolLoader.Outcome o : dbg.symbols()) {
            ElfObject e = o.object();
            b.append(String.format("  %-5s 0x%012x  %-16s %s%s%n", e.half().label(), e.start(),
                    o.action().name().toLowerCase().replace('_', '-'), e.path(),
                    o.message() == null || o.message().isEmpty() ? "" : "  (" + o.message() + ")"));
        }
        for (String w : dbg.process().warnings()) {
            b.append("mana-dap: warning: ").append(w).append('\n');
        }
        return b.toString();
    }

    /** The process of rank {@code rank} restoring {@code dir}; with {@code started}, one of its own. */
    private long findRestarting(Path dir, int rank, Process started, long deadline)
            throws IOException, InterruptedException {
        while (true) {
            List<RankLocator.Restarting> mine = new ArrayList<>();
            for (RankLocator.Restarting r : RankLocator.restarting(dir)) {
                if (r.rank() == rank && (started == null || ours(r.pid(), started))) {
                    mine.add(r);
                }
            }
            if (mine.size() > 1) {
                throw new IOException("several processes restore rank " + rank + " from " + dir + ": "
                        + mine.stream().map(r -> Long.toString(r.pid())).toList() + " (attach by \"pid\")");
            }
            if (mine.size() == 1) {
                return mine.get(0).pid();
            }
            waitRound(started, deadline, "a process restoring rank " + rank + " from " + dir);
        }
    }

    /**
     * Waits until the lower half has published its settings in {@code lh_info}: it re-executes itself
     * once after {@code mana_restart} execs it, and a gdb attached before that would see the first image go.
     */
    private void awaitPublished(long pid, Process started, long deadline) throws IOException, InterruptedException {
        while (true) {
            try {
                Path exe = Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe"));
                LhInfo lh = LhInfo.read(MemorySource.ofPid(pid), ProcMaps.read(pid), exe);
                if (lh.restartPause() > 0 || lh.restarted()) {
                    return;
                }
            } catch (IOException e) {
                if (!Files.isDirectory(Path.of("/proc/" + pid))) {
                    throw new IOException("pid " + pid + " ended while restoring" + exitOf(started));
                }
            }
            waitRound(started, deadline, "pid " + pid + " to publish its settings (lh_info)");
        }
    }

    /** The rank a process says it is ({@code lh_info}), or -1 when it cannot be read. */
    private static int rankOf(long pid) {
        try {
            Path exe = Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe"));
            return LhInfo.read(MemorySource.ofPid(pid), ProcMaps.read(pid), exe).rank();
        } catch (IOException e) {
            return -1;
        }
    }

    /** A rank not debugged, in its launch pause: gdb attaches for a moment, clears the variable, detaches. */
    private void release(long pid, String variable) throws IOException, MiException {
        try (GdbMi gdb = GdbMi.start(gdbOptions())) {
            CompletableFuture<GdbEvent.Stopped> stop = gdb.expect(GdbEvent.Stopped.class, x -> true);
            gdb.execute(new MiTargetAttach(pid), Duration.ofSeconds(60));
            gdb.await(stop, Duration.ofSeconds(30), "stop after attaching to " + pid);
            gdb.execute(MiGdbSet.variable(variable, "0"));
        }
        out.accept("console", "mana-dap: released pid " + pid + " (a rank not debugged)\n");
    }

    /** The process itself or one of its descendants (mpirun's ranks, the lower half mana_restart execs). */
    private static boolean ours(long pid, Process started) {
        return started.pid() == pid || started.descendants().anyMatch(h -> h.pid() == pid);
    }

    private record Started(Process process, List<OutputPump> pumps) {
    }

    private Started startProcess(List<String> cmd, Map<String, String> extraEnv) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        if (spec.cwd() != null) {
            pb.directory(spec.cwd().toFile());
        }
        pb.environment().putAll(spec.env());
        pb.environment().putAll(extraEnv);
        out.accept("console", "mana-dap: " + String.join(" ", cmd) + "\n");
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new IOException("cannot start " + cmd.get(0) + ": " + e.getMessage(), e);
        }
        p.getOutputStream().close(); // the rank reads no terminal: EOF on stdin, as under a batch system
        List<OutputPump> pumps = List.of(
                new OutputPump(p.getInputStream(), "stdout", "mana-dap-stdout-" + p.pid(), out),
                new OutputPump(p.getErrorStream(), "stderr", "mana-dap-stderr-" + p.pid(), out));
        pumps.forEach(OutputPump::start);
        return new Started(p, pumps);
    }

    private String tool(String name) throws IOException {
        Path t = spec.manaRoot().resolve("bin").resolve(name);
        if (!Files.isExecutable(t)) {
            throw new IOException(t + " not found: \"manaRoot\" must be the MANA installation (bin/, lib/)");
        }
        return t.toString();
    }

    private long deadline() {
        return System.nanoTime() + spec.timeout().toNanos();
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(1_000_000_000L, deadline - System.nanoTime()));
    }

    /** One polling round: fails when the deadline passed or the started process ended. */
    private void waitRound(Process started, long deadline, String what) throws IOException, InterruptedException {
        if (started != null && !started.isAlive()) {
            throw new IOException("waiting for " + what + ": " + started.info().command().orElse("the command")
                    + " ended" + exitOf(started) + " (its output is in the debug console)");
        }
        if (System.nanoTime() > deadline) {
            throw new IOException("no " + what + " within " + spec.timeout().toSeconds() + " s");
        }
        Thread.sleep(POLL.toMillis());
    }

    private static String exitOf(Process p) {
        return p != null && !p.isAlive() ? " with status " + p.exitValue() : "";
    }

    /** Kills a started command and everything under it (mpirun's ranks). */
    static void kill(Process p) {
        if (p == null) {
            return;
        }
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }
}
