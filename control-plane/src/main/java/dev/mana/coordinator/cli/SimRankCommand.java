package dev.mana.coordinator.cli;

import dev.mana.coordinator.CoordinatorAddress;
import dev.mana.coordinator.CoordinatorException;
import dev.mana.coordinator.protocol.Protocol;
import dev.mana.coordinator.sim.SimulatedRanks;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code mana_simrank}: simulated ranks for tests and load (see {@link SimulatedRanks}). */
@Command(name = "mana_simrank", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Register simulated ranks with the coordinator and follow its checkpoints (or run a "
                + "collective benchmark). Exits 0 when killed or after checkpoint-and-kill, 3 when the coordinator "
                + "is lost."})
public final class SimRankCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = {"-h", "--coord-host"}, paramLabel = "HOST") String host;
    @Option(names = {"-p", "--coord-port"}, paramLabel = "PORT") Integer port;
    @Option(names = {"-j", "--job"}, paramLabel = "NAME") String job = "";
    @Option(names = {"-n", "--ranks"}, paramLabel = "N", description = "Ranks this process simulates (default 1).")
    int count = 1;
    @Option(names = "--first", paramLabel = "R", description = "First rank of this process (default 0).")
    int first;
    @Option(names = "--nranks", paramLabel = "W", description = "World size (default first + ranks).")
    int nranks = -1;
    @Option(names = "--ckptdir", paramLabel = "DIR", description = "Write image files under DIR/ckpt_rank_N/.")
    Path ckptDir;
    @Option(names = "--image-bytes", paramLabel = "B", description = "Image size per rank (default 4096).")
    long imageBytes = 4096;
    @Option(names = {"-g", "--group-size"}, paramLabel = "K",
            description = "Carry the ranks in rank-group connections of up to K ranks each (HELLO role 3), as a "
                    + "node agent would; 0 (the default) = one connection per rank.")
    int groupSize;
    @Option(names = "--ports", paramLabel = "P,P,...", split = ",",
            description = "Spread the connections over these ports of HOST, in equal consecutive blocks (each "
                    + "node's ranks to its own node agent); the coordinator's secret still authenticates them.")
    int[] ports;
    @Option(names = "--restart-from", paramLabel = "G", description = "Register as restarting from generation G.")
    int restartFrom = -1;
    @Option(names = "--bench", paramLabel = "K", description = "Run K barriers and K sum reductions, then exit.")
    int bench;
    @Option(names = "--bench-values", paramLabel = "C", description = "Values per reduction (default 8).")
    int benchValues = 8;
    @Option(names = "--bench-out", paramLabel = "PREFIX",
            description = "Write timings to PREFIX.barrier and PREFIX.sum (lines: start_ns end_ns).")
    Path benchOut;
    @Option(names = "--help", usageHelp = true) boolean help;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SimRankCommand()).setUsageHelpWidth(100).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            if (groupSize < 0) throw new CommandLine.ParameterException(spec.commandLine(), "--group-size must be 0 or more");
            CoordinatorAddress addr = CoordinatorAddress.resolve(host, port);
            String self;
            try {
                self = java.net.InetAddress.getLocalHost().getHostName();
            } catch (IOException e) {
                self = "localhost";
            }
            SimulatedRanks.Builder b = SimulatedRanks.builder(addr).job(job).ranks(first, count).imageBytes(imageBytes)
                    .host(self).groupSize(groupSize).ports(ports)
                    .connectTimeout(Duration.ofSeconds(60));
            if (nranks > 0) b.nranks(nranks);
            if (ckptDir != null) b.ckptDir(ckptDir);
            if (restartFrom >= 0) b.restartFrom(restartFrom);
            try (SimulatedRanks s = b.build().start()) {
                if (bench > 0) {
                    writeTimings(s.runCollectives(bench, Protocol.OP_BARRIER, 0, Protocol.PHASE_FREE_FIRST,
                            Duration.ofMinutes(5)), "barrier");
                    writeTimings(s.runCollectives(bench, Protocol.OP_SUM, benchValues, Protocol.PHASE_FREE_FIRST + 1,
                            Duration.ofMinutes(5)), "sum");
                    s.exit(0);
                    s.awaitAllClosed(Duration.ofSeconds(10));
                    return 0;
                }
                while (!s.awaitAllClosed(Duration.ofSeconds(1))) {
                    // until KILL, checkpoint-and-kill, or the coordinator goes away
                }
                if (s.connectionLost() != null) {
                    err.println("mana_simrank: " + s.connectionLost());
                    return 3;
                }
                out.println("mana_simrank: ranks " + first + ".." + (first + count - 1) + " exited"
                        + (s.killed() ? " (killed)" : " after checkpoint " + s.latestGeneration()));
                return 0;
            }
        } catch (CoordinatorException e) {
            err.println("mana_simrank: " + e.getMessage());
            return e.code() == null ? 3 : 1;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private void writeTimings(List<SimulatedRanks.Timing> t, String kind) throws IOException {
        if (benchOut == null) return;
        List<String> lines = new ArrayList<>();
        for (SimulatedRanks.Timing x : t) lines.add(x.startNs() + " " + x.endNs());
        Files.write(Path.of(benchOut + "." + kind), lines);
    }
}
