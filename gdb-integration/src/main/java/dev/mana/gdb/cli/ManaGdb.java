package dev.mana.gdb.cli;

import dev.mana.coordinator.CoordinatorAddress;
import dev.mana.coordinator.CoordinatorClient;
import dev.mana.coordinator.CoordinatorException;
import dev.mana.coordinator.RankInfo;
import dev.mana.gdb.split.ElfObject;
import dev.mana.gdb.split.LhInfo;
import dev.mana.gdb.split.RankLocator;
import dev.mana.gdb.split.RuntimeSymbols;
import dev.mana.gdb.split.SplitProcess;
import dev.mana.gdb.split.SymbolLoader;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.Half;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.Images;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code mana_gdb}: gdb on one rank of a split process, with both halves' symbols and the restart
 * pause released by {@code continue}.
 *
 * <p>This class finds the process and computes the symbols; it writes a gdb command file and gdb's
 * argument list into the directory given with the internal option {@code --emit}, and the shell
 * launcher ({@code bin/mana_gdb}) then runs gdb on the terminal, so gdb is an ordinary interactive
 * gdb (Ctrl-C, readline, the user's own init file).
 */
@Command(name = "mana_gdb", mixinStandardHelpOptions = true, version = "mana_gdb 0.1",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Debug one rank of a MANA job with gdb: both halves' symbols are loaded (the upper half's from "
                    + "the checkpoint image), and at a restart pause (MANA_RESTART_PAUSE=N) `continue` releases it.",
            "",
            "  mana_gdb --rank R --restartdir D [--level N]   a rank restarting from D, paused at level N",
            "  mana_gdb --pid P [--rank R]                   a process (restarting or running); R checked",
            "  mana_gdb --rank R                             a running rank: its pid from the coordinator",
            "",
            "Exit status: gdb's; 1 the rank or its process cannot be found or read; 2 usage; "
                    + "3 coordinator unreachable."})
public final class ManaGdb implements Callable<Integer> {
    @Option(names = "--rank", paramLabel = "R",
            description = "The rank to debug (with --pid: taken from the process when not given).")
    Integer rankOption;

    /** The rank: --rank, or with --pid the rank the process's lower half says it is. */
    int rank;

    @Option(names = "--restartdir", paramLabel = "D",
            description = "The restart directory the rank restores (finds its `lower-half --restore D` process).")
    Path restartDir;

    @Option(names = "--level", paramLabel = "N",
            description = "Check that the rank was restarted with MANA_RESTART_PAUSE=N (1-4).")
    Integer level;

    @Option(names = "--pid", paramLabel = "P", description = "The process of the rank.")
    Long pid;

    @Option(names = "--wait", paramLabel = "SEC", defaultValue = "30",
            description = "With --restartdir: wait up to SEC seconds for the process to appear (default ${DEFAULT-VALUE}).")
    int waitSec;

    @Option(names = {"-j", "--job"}, paramLabel = "NAME", defaultValue = "",
            description = "Coordinator job (without --pid and --restartdir).")
    String job;

    @Option(names = "--batch", description = "Run the -ex commands, then detach and exit (gdb's --batch).")
    boolean batch;

    @Option(names = {"-ex", "--eval-command"}, paramLabel = "CMD",
            description = "A gdb command to run after the symbols are loaded (repeatable).")
    List<String> commands = new ArrayList<>();

    @Option(names = "--gdb", paramLabel = "PATH", defaultValue = "gdb", description = "The gdb to run (default ${DEFAULT-VALUE}).")
    String gdbPath;

    @Option(names = {"-q", "--quiet"}, description = "Do not print the table of objects.")
    boolean quiet;

    @Option(names = "--emit", hidden = true, paramLabel = "DIR")
    Path emitDir;

    @Parameters(paramLabel = "GDB_ARGS", description = "After `--`: more arguments for gdb.")
    List<String> gdbArgs = new ArrayList<>();

    /** A failure that ends the command with one line and a status. */
    static final class Fail extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;

        Fail(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    @Override
    public Integer call() {
        try {
            return run();
        } catch (Fail f) {
            System.err.println("mana_gdb: " + f.getMessage());
            return f.status;
        }
    }

    private int run() throws Fail {
        if (emitDir == null) {
            throw new Fail(2, "run through bin/mana_gdb (this class only prepares gdb's command file)");
        }
        if (level != null && (level < 1 || level > 4)) {
            throw new Fail(2, "--level must be 1-4, not " + level);
        }
        if (pid != null && restartDir != null) {
            throw new Fail(2, "give either --pid or --restartdir, not both");
        }
        if (rankOption == null && pid == null) {
            throw new Fail(2, "which rank? give --rank R (or --pid P of its process)");
        }
        if (rankOption != null) {
            rank = rankOption;
        }
        long p = resolvePid();
        if (rankOption == null) {
            rank = rankOf(p);
        }
        if (level != null) {
            LhInfo published = awaitLhInfo(p);
            if (published != null && published.restartPause() != level) {
                throw new Fail(1, "rank " + rank + " (pid " + p + ") was restarted with MANA_RESTART_PAUSE="
                        + published.restartPause() + ", not " + level);
            }
            try {
                // the user's gdb must not attach while the restore code still replaces memory
                dev.mana.gdb.split.RankDebugger.waitForPause(p, level, java.time.Duration.ofSeconds(waitSec),
                        dev.mana.gdb.mi.GdbMi.Options.defaults().withGdb(gdbPath));
            } catch (IOException | dev.mana.gdb.mi.MiException e) {
                throw new Fail(1, "rank " + rank + " (pid " + p + "): " + e.getMessage());
            }
        }
        Path dir = restartDir != null ? restartDir : RankLocator.restoreDirOf(p);
        Path imagePath;
        try {
            imagePath = dir == null ? null : RankLocator.imageOf(p, dir, rank);
        } catch (IOException e) {
            throw new Fail(1, "rank " + rank + " (pid " + p + "): " + e.getMessage());
        }
        SplitProcess sp;
        try (CheckpointImage img = imagePath == null ? null : Images.open(imagePath)) {
            sp = SplitProcess.ofProcess(p, img);
        } catch (ImageException e) {
            throw new Fail(1, e.getMessage());
        } catch (IOException e) {
            throw new Fail(1, "pid " + p + ": " + e.getMessage());
        }
        LhInfo lh = sp.lhInfo();
        if (level != null) {
            if (lh == null) {
                throw new Fail(1, "pid " + p + ": cannot read its lh_info, so its pause level is unknown");
            }
            if (lh.restartPause() != level) {
                throw new Fail(1, "rank " + rank + " (pid " + p + ") was restarted with MANA_RESTART_PAUSE="
                        + lh.restartPause() + ", not " + level);
            }
        }
        if (lh != null && lh.rank() != rank) {
            throw new Fail(1, "pid " + p + " is rank " + lh.rank() + ", not " + rank);
        }
        if (!quiet) {
            System.err.println(summary(p, imagePath, sp));
        }
        try {
            Files.createDirectories(emitDir);
            Path script = emitDir.resolve("mana.gdb");
            Files.writeString(script, script(p, sp, level != null), StandardCharsets.UTF_8);
            List<String> argv = new ArrayList<>();
            argv.add(gdbPath);
            argv.add("-q");
            if (batch) {
                argv.add("--batch");
            }
            argv.add("-p");
            argv.add(Long.toString(p));
            argv.add("-x");
            argv.add(script.toString());
            for (String c : commands) {
                argv.add("-ex");
                argv.add(c);
            }
            argv.addAll(gdbArgs);
            StringBuilder nul = new StringBuilder();
            for (String a : argv) {
                nul.append(a).append('\0');
            }
            Files.writeString(emitDir.resolve("gdb.args"), nul, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new Fail(1, "cannot write gdb's command file: " + e.getMessage());
        }
        return 0;
    }

    private long resolvePid() throws Fail {
        if (pid != null) {
            if (!Files.isDirectory(Path.of("/proc/" + pid))) {
                throw new Fail(1, "no process " + pid);
            }
            return pid;
        }
        if (restartDir != null) {
            if (!Files.isDirectory(restartDir)) {
                throw new Fail(1, "restart directory " + restartDir + " does not exist");
            }
            long deadline = System.nanoTime() + waitSec * 1_000_000_000L;
            while (true) {
                List<RankLocator.Restarting> found;
                try {
                    found = RankLocator.restarting(restartDir);
                } catch (IOException e) {
                    throw new Fail(1, e.getMessage());
                }
                List<RankLocator.Restarting> mine = found.stream().filter(r -> r.rank() == rank).toList();
                if (mine.size() > 1) {
                    throw new Fail(1, "several processes restore rank " + rank + " from " + restartDir + ": "
                            + mine.stream().map(r -> Long.toString(r.pid())).toList() + " (use --pid)");
                }
                if (mine.size() == 1) {
                    return mine.get(0).pid();
                }
                if (System.nanoTime() > deadline) {
                    throw new Fail(1, "no process restores rank " + rank + " from " + restartDir + " (waited "
                            + waitSec + " s; start it with MANA_RESTART_PAUSE=N mana_restart --restartdir "
                            + restartDir + ")");
                }
                try {
                    Thread.sleep(50); // a process to appear: /proc has no event to wait on
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new Fail(1, "interrupted");
                }
            }
        }
        try (CoordinatorClient c = CoordinatorClient.connect(CoordinatorAddress.resolve(null, null), job)) {
            for (RankInfo r : c.list()) {
                if (r.rank() == rank) {
                    return r.pid();
                }
            }
            throw new Fail(1, "the coordinator has no rank " + rank + (job.isEmpty() ? "" : " in job " + job));
        } catch (CoordinatorException e) {
            throw new Fail(3, "coordinator: " + e.getMessage());
        }
    }

    /** The rank a process is, from its lower half's lh_info (the launcher gave it; restarts keep it). */
    private int rankOf(long p) throws Fail {
        LhInfo lh = level != null ? awaitLhInfo(p) : null;
        if (lh == null) {
            try {
                Path exe = Files.readSymbolicLink(Path.of("/proc/" + p + "/exe"));
                lh = LhInfo.read(dev.mana.gdb.split.MemorySource.ofPid(p), dev.mana.gdb.split.ProcMaps.read(p), exe);
            } catch (IOException e) {
                throw new Fail(1, "pid " + p + ": cannot tell which rank it is (" + e.getMessage()
                        + "); give --rank R");
            }
        }
        return lh.rank();
    }

    /**
     * Waits (up to --wait) until the lower half has published its settings: a process found right
     * after mana_restart exec'd it may still be re-executing itself. Whether it has reached its pause
     * is left to gdb (the command file waits for it), since only gdb can see where the thread is.
     */
    private LhInfo awaitLhInfo(long p) throws Fail {
        long deadline = System.nanoTime() + waitSec * 1_000_000_000L;
        while (true) {
            try {
                Path exe = Files.readSymbolicLink(Path.of("/proc/" + p + "/exe"));
                LhInfo lh = LhInfo.read(dev.mana.gdb.split.MemorySource.ofPid(p), dev.mana.gdb.split.ProcMaps.read(p), exe);
                if (lh.restartPause() > 0 || lh.restarted()) {
                    return lh;
                }
            } catch (IOException e) {
                if (!Files.isDirectory(Path.of("/proc/" + p))) {
                    throw new Fail(1, "pid " + p + " ended");
                }
            }
            if (System.nanoTime() > deadline) {
                return null; // the level check below says what is wrong
            }
            try {
                Thread.sleep(20); // nothing to wait on from outside the process
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Fail(1, "interrupted");
            }
        }
    }

    static String summary(long pid, Path image, SplitProcess sp) {
        StringBuilder b = new StringBuilder();
        LhInfo lh = sp.lhInfo();
        b.append(String.format("mana_gdb: pid %d%s%s%n", pid, image == null ? "" : ", restarted from " + image,
                lh != null && lh.restartPause() > 0 ? ", restart pause level " + lh.restartPause() : ""));
        for (ElfObject o : sp.objects()) {
            String how = o.half() == Half.UPPER ? (o.loadable() ? "add-symbol-file" : "NOT LOADED") : "gdb loads it";
            b.append(String.format("  %-5s 0x%012x  bias 0x%012x  %-14s %-15s %s%n", o.half().label(), o.start(), o.bias(),
                    o.check().name().toLowerCase().replace('_', '-'), how, o.path()));
        }
        for (String w : sp.warnings()) {
            b.append("mana_gdb: warning: ").append(w).append('\n');
        }
        if (lh != null && lh.restartPause() > 0) {
            b.append("mana_gdb: `continue` releases the restart pause (set var " + RuntimeSymbols.MANA_RESTART_PAUSE_WAIT + " = 0)\n");
        }
        return b.toString().stripTrailing();
    }

    static String script(long pid, SplitProcess sp, boolean waitForPause) {
        StringBuilder b = new StringBuilder();
        b.append("# written by mana_gdb for pid ").append(pid).append(": the upper half's objects (gdb finds the lower half's)\n");
        b.append("set confirm off\n");
        for (String c : SymbolLoader.commands(sp)) {
            b.append(c).append('\n');
        }
        b.append("set confirm on\n");
        b.append("define mana-halves\n");
        for (ElfObject o : sp.objects()) {
            b.append(String.format("  echo %-5s 0x%012x-0x%012x bias 0x%x %s\\n%n", o.half().label(), o.start(), o.end(),
                    o.bias(), o.path().toString().replace("\\", "\\\\")));
        }
        b.append("end\n");
        b.append("document mana-halves\nLists the ELF objects of both halves of this MANA rank, with their load biases.\nend\n");
        // after the symbols ($_any_caller_matches needs gdb's Python; without it only this and the
        // frame filter are lost): a rank still restoring runs to its pause before the user's commands
        LhInfo lh0 = sp.lhInfo();
        if (lh0 != null && lh0.restartPause() > 0) {
            b.append("if !$_any_caller_matches(\"^" + RuntimeSymbols.LH_RESTART_PAUSE + "$\", 2)\n");
            if (waitForPause) {
                // found while still restoring: let it run to its pause before anything touches upper memory
                b.append("  tbreak " + RuntimeSymbols.LH_RESTART_PAUSE + " if ")
                        .append(RuntimeSymbols.restartPauseLevelCondition(lh0.restartPause())).append('\n')
                        .append("  continue\n");
            } else {
                b.append("  echo mana_gdb: the rank is not (or no longer) in its restart pause\\n\n");
            }
            b.append("end\n");
        }
        if (lh0 != null && lh0.restartPause() > 0) {
            // defined last, so the wait above does not release the pause
            b.append("define hook-continue\n  set var " + RuntimeSymbols.MANA_RESTART_PAUSE_WAIT + " = 0\nend\n");
        }
        b.append(frameFilter(sp));
        return b.toString();
    }

    /**
     * A Python frame filter that prefixes each frame's function with its half ("[upper] main") in
     * backtraces. Last in the file: a gdb without Python reports one error here and has everything else.
     */
    static String frameFilter(SplitProcess sp) {
        StringBuilder r = new StringBuilder();
        for (var range : sp.halfRanges()) {
            r.append(String.format("(0x%x, 0x%x), ", range.start(), range.end()));
        }
        Half in = sp.insideHalf();
        Half out = in == Half.UPPER ? Half.LOWER : Half.UPPER;
        return "python\n"
                + "import gdb\n"
                + "from gdb.FrameDecorator import FrameDecorator\n"
                + "_mana_ranges = [" + r + "]\n"
                + "def _mana_half(pc):\n"
                + "    return '" + in.label() + "' if any(a <= pc < b for a, b in _mana_ranges) else '" + out.label() + "'\n"
                + "class _ManaHalfFrame(FrameDecorator):\n"
                + "    def function(self):\n"
                + "        f = super().function()\n"
                + "        if not isinstance(f, str):\n"
                + "            return f\n"
                + "        return '[%s] %s' % (_mana_half(self.inferior_frame().pc()), f)\n"
                + "class _ManaHalfFilter:\n"
                + "    def __init__(self):\n"
                + "        self.name = 'mana-halves'\n"
                + "        self.priority = 100\n"
                + "        self.enabled = True\n"
                + "        gdb.frame_filters[self.name] = self\n"
                + "    def filter(self, frames):\n"
                + "        return map(_ManaHalfFrame, frames)\n"
                + "_ManaHalfFilter()\n"
                + "end\n";
    }

    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new ManaGdb());
        cl.setUnmatchedOptionsArePositionalParams(false);
        cl.setErr(new PrintWriter(System.err, true));
        cl.setParameterExceptionHandler((ex, a) -> {
            System.err.println("mana_gdb: " + ex.getMessage() + " (see mana_gdb --help)");
            return 2;
        });
        System.exit(cl.execute(args));
    }
}
