package dev.mana.coordinator.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.CoordinatorAddress;
import dev.mana.coordinator.CoordinatorClient;
import dev.mana.coordinator.CoordinatorException;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.RankState;
import dev.mana.coordinator.RefusedRank;
import dev.mana.coordinator.protocol.Protocol;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code mana_status}: query and command a running coordinator. */
@Command(name = "mana_status", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Query or command the running MANA coordinator (found through -h/-p, MANA_COORD_HOST/"
                + "MANA_COORD_PORT/MANA_COORD_SECRET, $MANA_RC, ~/.mana.rc or ~/.mana-slurm-$SLURM_JOB_ID.rc).",
                "Without an action, --status."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:done", "1:the operation failed (e.g. a checkpoint aborted, not all ranks registered)",
                "2:bad usage", "3:coordinator unreachable or connection lost"})
public final class StatusCommand implements Callable<Integer> {
    static final int EXIT_FAILED = 1;
    static final int EXIT_UNREACHABLE = 3;

    @Spec CommandSpec spec;

    static final class Action {
        @Option(names = {"-l", "--list"}, description = "List the ranks: rank, host, pid, state, generation.")
        boolean list;
        @Option(names = {"-s", "--status"}, description = "Summary: ranks, generation, last checkpoint time, size, directory.")
        boolean status;
        @Option(names = {"-c", "--checkpoint", "--bcheckpoint"},
                description = "Checkpoint and wait until every image is written (progress on a terminal).")
        boolean checkpoint;
        @Option(names = {"--checkpoint-and-kill", "--kcheckpoint", "-kc"},
                description = "Checkpoint, then the ranks exit once it is committed.")
        boolean checkpointAndKill;
        @Option(names = {"-k", "--kill"}, description = "Kill every rank of the job.")
        boolean kill;
        @Option(names = {"-q", "--quit"}, description = "Kill every rank, then stop the coordinator.")
        boolean quit;
        @Option(names = {"-i", "--interval"}, paramLabel = "SEC",
                description = "Set the interval between automatic checkpoints (0 = off).")
        Integer interval;
    }

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Action action = new Action();

    @Option(names = {"-h", "--coord-host"}, paramLabel = "HOST", description = "Coordinator host.")
    String host;
    @Option(names = {"-p", "--coord-port"}, paramLabel = "PORT", description = "Coordinator port.")
    Integer port;
    @Option(names = {"-j", "--job"}, paramLabel = "NAME", description = "Job name (default: the only job).")
    String job = "";
    @Option(names = "--json", description = "Print one JSON object (for tools).")
    boolean json;
    @Option(names = "--no-wait", description = "With --checkpoint: return once the checkpoint started.")
    boolean noWait;
    @Option(names = "--full", description = "With --checkpoint: every rank writes a full image, even where "
            + "incremental images are on (the chain starts again from it).")
    boolean full;
    @Option(names = "--forked", description = "With --checkpoint: this checkpoint is written forked (a writer "
            + "process per rank; the program runs on), as if launched with --forked.")
    boolean forked;
    @Option(names = "--unforked", description = "With --checkpoint: this checkpoint is written with the program "
            + "stopped, even where forked checkpoints are on.")
    boolean unforked;
    @Option(names = "--compress", paramLabel = "LEVEL", arity = "0..1", fallbackValue = "fast",
            description = "With --checkpoint: this checkpoint's images compressed: off, fast (zstd level 3, the "
            + "default of the flag) or strong (level 9), whatever the job was launched with.")
    String compress;
    @Option(names = "--timeout", paramLabel = "SEC",
            description = "With --checkpoint: give up after SEC seconds (default 0 = wait as long as it takes).")
    int timeout;
    @Option(names = "--verbose", description = "Say which coordinator is used.")
    boolean verbose;
    @Option(names = "--help", usageHelp = true, description = "Show this help.")
    boolean help;

    private final Gson gson = new GsonBuilder().disableHtmlEscaping().create();
    private int compressFlag;      // --compress as CKPT_REQUEST bits 5-6 (0: as launched)

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return new CommandLine(new StatusCommand()).setUsageHelpWidth(100).execute(args);
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        CoordinatorAddress addr;
        try {
            addr = CoordinatorAddress.resolve(host, port);
        } catch (CoordinatorException e) {
            err.println("mana_status: " + e.getMessage());
            return EXIT_FAILED;
        }
        if (verbose) err.println("mana_status: coordinator " + addr + " (from " + addr.source() + ")");
        Action a = action == null ? new Action() : action;
        if ((full || forked || unforked || compress != null) && !(a.checkpoint || a.checkpointAndKill)) {
            err.println("mana_status: --full, --forked, --unforked and --compress go with --checkpoint or "
                    + "--checkpoint-and-kill");
            return 2;
        }
        int compressFlag = 0;
        if (compress != null) {
            switch (compress) {
                case "off": compressFlag = Protocol.FLAG_COMPRESS_OFF; break;
                case "fast": compressFlag = Protocol.FLAG_COMPRESS_FAST; break;
                case "strong": compressFlag = Protocol.FLAG_COMPRESS_STRONG; break;
                default:
                    err.println("mana_status: --compress takes off, fast or strong, not '" + compress + "'");
                    return 2;
            }
        }
        this.compressFlag = compressFlag;
        if (forked && unforked) {
            err.println("mana_status: --forked and --unforked exclude each other");
            return 2;
        }
        try (CoordinatorClient c = CoordinatorClient.connect(addr, job)) {
            if (a.list) return list(c, out);
            if (a.checkpoint || a.checkpointAndKill) return checkpoint(c, a.checkpointAndKill, out, err);
            if (a.kill) {
                c.killJob();
                return done(out, "killed every rank of job '" + c.job() + "'");
            }
            if (a.quit) {
                c.quit();
                return done(out, "coordinator at " + addr + " is quitting");
            }
            if (a.interval != null) {
                c.setInterval(a.interval);
                return done(out, a.interval == 0 ? "interval checkpoints off" : "checkpoint every " + a.interval + " s");
            }
            return status(c, addr, out);
        } catch (CoordinatorException e) {
            boolean unreachable = e.code() == null;
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("ok", false);
                m.put("error", e.getMessage());
                out.println(gson.toJson(m));
            }
            err.println("mana_status: " + e.getMessage()
                    + (e.code() == dev.mana.coordinator.protocol.ErrorCode.UNKNOWN_JOB ? " (-j NAME picks a job)" : ""));
            return unreachable ? EXIT_UNREACHABLE : EXIT_FAILED;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private int done(PrintWriter out, String text) {
        if (json) {
            out.println("{\"ok\":true}");
        } else {
            out.println(text);
        }
        return 0;
    }

    private int list(CoordinatorClient c, PrintWriter out) throws CoordinatorException {
        JobStatus st = c.status();
        List<RankInfo> ranks = withUnprotected(c.list(), st);
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("job", c.job());
            m.put("ranks", ranks.stream().map(r -> {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("rank", r.rank());
                e.put("host", r.host());
                e.put("pid", r.pid());
                e.put("state", r.state().name());
                e.put("generation", r.generation());
                e.put("mpi", r.mpi());
                e.put("clientId", r.clientId());
                return e;
            }).toList());
            m.put("refused", refusedJson(st.refused()));
            out.println(gson.toJson(m));
            return 0;
        }
        int hostWidth = Math.max(4, ranks.stream().mapToInt(r -> r.host().length()).max().orElse(4));
        String fmt = "%6s  %-" + hostWidth + "s  %8s  %-12s  %10s  %s%n";
        out.printf(fmt, "RANK", "HOST", "PID", "STATE", "GENERATION", "MPI");
        for (RankInfo r : ranks) {
            out.printf(fmt, r.rank(), r.host(), r.pid(), r.state(), r.generation(), r.mpi());
        }
        if (ranks.isEmpty()) out.println("(no ranks registered)");
        printRefused(st.refused(), out);
        return 0;
    }

    /** The job's refused ranks, after the list and the status: the reason its checkpoints are refused. */
    private static void printRefused(List<RefusedRank> refused, PrintWriter out) {
        if (refused.isEmpty()) return;
        out.println("Refused at registration (no checkpoints for them, so none for the job until it ends):");
        for (RefusedRank r : refused) out.println("  " + r.describe());
    }

    private static List<Map<String, Object>> refusedJson(List<RefusedRank> refused) {
        return refused.stream().map(r -> {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("rank", r.rank());
            e.put("nranks", r.nranks());
            e.put("host", r.host());
            e.put("pid", r.pid());
            e.put("reason", r.reason());
            return e;
        }).toList();
    }

    /**
     * The registered ranks, and a row for each rank of the job that is not connected to this
     * coordinator (state UNPROTECTED: it runs without checkpoints until it registers), in rank order.
     */
    static List<RankInfo> withUnprotected(List<RankInfo> ranks, JobStatus s) {
        if (s.nranks() <= 0) return ranks;
        boolean[] seen = new boolean[s.nranks()];
        for (RankInfo r : ranks) if (r.rank() >= 0 && r.rank() < seen.length) seen[r.rank()] = true;
        List<RankInfo> all = new java.util.ArrayList<>(ranks);
        for (int r = 0; r < seen.length; r++) {
            if (!seen[r]) all.add(new RankInfo(s.job(), r, "-", 0, RankState.UNPROTECTED, 0, "-", 0, "", ""));
        }
        all.sort(java.util.Comparator.comparingInt(RankInfo::rank));
        return all;
    }

    private int status(CoordinatorClient c, CoordinatorAddress addr, PrintWriter out) throws CoordinatorException {
        JobStatus s = c.status();
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("coordinator", addr.toString());
            m.put("job", s.job());
            m.put("nranks", s.nranks());
            m.put("connected", s.connected());
            m.put("generation", s.generation());
            m.put("checkpointing", s.checkpointing());
            m.put("lastCheckpointUnixMs", s.lastCheckpointUnixMs());
            m.put("lastCheckpointSeconds", s.lastCheckpointNanos() / 1e9);
            m.put("lastCheckpointBytes", s.lastCheckpointBytes());
            m.put("lastCheckpointDir", s.lastCheckpointDir());
            m.put("interval", s.intervalSeconds());
            m.put("refused", refusedJson(s.refused()));
            out.println(gson.toJson(m));
            return 0;
        }
        out.println("Coordinator:       " + addr);
        out.println("Job:               " + (s.job().isEmpty() ? "(none yet)" : s.job()));
        int unprotected = s.nranks() - s.connected();
        out.println("Ranks:             " + s.connected() + " connected of " + s.nranks()
                + (s.nranks() > 0 && unprotected > 0 ? " (" + unprotected + " unprotected: not connected, no checkpoints)" : ""));
        out.println("Checkpointing:     " + (s.checkpointing() ? "yes" : "no"));
        out.println("Latest generation: " + s.generation());
        if (s.lastCheckpointUnixMs() != 0) {
            out.println("Last checkpoint:   " + Format.time(s.lastCheckpointUnixMs()) + ", "
                    + Format.seconds(s.lastCheckpointNanos()) + ", " + Format.bytes(s.lastCheckpointBytes()));
            out.println("Checkpoint dir:    " + s.lastCheckpointDir());
        } else {
            out.println("Last checkpoint:   none");
        }
        out.println("Interval:          " + (s.intervalSeconds() == 0 ? "off" : s.intervalSeconds() + " s"));
        printRefused(s.refused(), out);
        return 0;
    }

    private int checkpoint(CoordinatorClient c, boolean kill, PrintWriter out, PrintWriter err)
            throws CoordinatorException {
        CheckpointResult r;
        int imageFlags = (full ? Protocol.FLAG_FULL : 0) | (forked ? Protocol.FLAG_FORKED : 0)
                | (unforked ? Protocol.FLAG_UNFORKED : 0) | compressFlag;
        if (noWait) {
            r = c.startCheckpoint(kill, imageFlags);
        } else {
            boolean tty = System.console() != null && !json;
            int[] shown = {0};
            r = c.checkpoint(kill, imageFlags, tty ? p -> {
                String line = progressLine(p);
                err.print("\r" + line + " ".repeat(Math.max(0, shown[0] - line.length())));
                err.flush();
                shown[0] = line.length();
            } : null, Duration.ofSeconds(Math.max(0, timeout)));
            if (shown[0] > 0) {
                err.print("\r" + " ".repeat(shown[0]) + "\r");
                err.flush();
            }
        }
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("ok", r.ok());
            m.put("job", r.job());
            m.put("generation", r.generation());
            m.put("seconds", r.elapsedNanos() / 1e9);
            m.put("bytes", r.totalBytes());
            m.put("ranks", r.ranks());
            m.put("dir", r.dir());
            m.put("message", r.message());
            out.println(gson.toJson(m));
        } else if (r.ok() && noWait) {
            out.println("checkpoint " + r.generation() + " started");
        } else if (r.ok()) {
            out.println("checkpoint " + r.generation() + " written: " + r.ranks() + " ranks, "
                    + Format.bytes(r.totalBytes()) + " in " + Format.seconds(r.elapsedNanos())
                    + (r.dir().isEmpty() ? "" : " (" + r.dir() + ")") + (kill ? "; ranks exiting" : ""));
        }
        if (!r.ok()) {
            err.println("mana_status: checkpoint failed: " + r.message());
            return EXIT_FAILED;
        }
        return 0;
    }

    private static String progressLine(CheckpointProgress p) {
        return "checkpoint " + p.generation() + ": " + p.reached() + "/" + p.nranks() + " ranks " + p.state();
    }
}
