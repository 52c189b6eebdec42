package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.TextFormat.human;
import static dev.mana.inspector.cli.TextFormat.shortSize;

import dev.mana.inspector.CheckpointDirectory;
import dev.mana.inspector.ErrorKind;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "dir", mixinStandardHelpOptions = true, aliases = "ckptdir", description = {"A checkpoint directory (CKPTDIR/ckpt_rank_N/): every rank",
    "present, the newest generation all ranks have, no *.tmp, sizes. Exit 0 restartable, 9 not."})
final class DirCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Machine-readable output (one JSON object).")
    boolean json;

    @Parameters(index = "0", paramLabel = "CKPTDIR", defaultValue = ".")
    Path dir;

    @Override
    public Integer call() throws Exception {
        CheckpointDirectory c = CheckpointDirectory.scan(dir);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            List<Object> ranks = new ArrayList<>();
            for (CheckpointDirectory.RankDir r : c.ranks()) {
                List<Object> imgs = new ArrayList<>();
                for (CheckpointDirectory.ImageFile f : r.images()) {
                    imgs.add(Json.obj().put("path", f.path().toString()).put("size", f.size())
                            .put("format", f.format() == null ? null : f.format().name()).put("program", f.program())
                            .put("generation", f.generation()).put("rank", f.rank()).put("nranks", f.nranks())
                            .put("error", f.error()));
                }
                ranks.add(Json.obj().put("rank", r.rank()).put("dir", r.dir().toString()).put("images", imgs));
            }
            List<String> tmps = new ArrayList<>();
            c.tmpFiles().forEach(p -> tmps.add(p.toString()));
            out.println(Json.obj().put("dir", dir.toString()).put("restartable", c.restartable())
                    .put("nranks", c.nranks()).put("newest_common_generation", c.newestCommonGeneration())
                    .put("bytes", c.bytesOfNewest()).put("missing_ranks", c.missingRanks()).put("tmp_files", tmps)
                    .put("problems", c.problems()).put("ranks", ranks));
        } else {
            out.printf("%s: %d rank%s, newest generation every rank has: %s%n", dir, c.nranks(), c.nranks() == 1 ? "" : "s",
                    c.newestCommonGeneration() < 0 ? "none" : Long.toString(c.newestCommonGeneration()));
            out.printf("%-6s %-5s %12s %-10s  %s%n", "RANK", "GEN", "SIZE", "FORMAT", "IMAGE");
            for (CheckpointDirectory.RankDir r : c.ranks()) {
                if (r.images().isEmpty()) {
                    out.printf("%-6d %-5s %12s %-10s  %s%n", r.rank(), "-", "-", "-", r.dir() + "/ (no image)");
                }
                for (CheckpointDirectory.ImageFile f : r.images()) {
                    String mark = f.error() == null && f.generation() == c.newestCommonGeneration() ? " *" : "";
                    out.printf("%-6d %-5s %12s %-10s  %s%s%s%n", r.rank(), f.error() == null ? Long.toString(f.generation()) : "?",
                            shortSize(f.size()), f.format() == null ? "?" : f.format() == dev.mana.inspector.ImageFormat.MANA_V1 ? "mana-v1" : "dmtcp-v4",
                            f.path().getFileName(), mark, f.error() == null ? "" : "  (" + f.error() + ")");
                }
            }
            for (Path t : c.tmpFiles()) {
                out.printf("%-6s %-5s %12s %-10s  %s%n", "tmp", "-", "-", "-", dir.relativize(t));
            }
            if (c.restartable()) {
                out.printf("restartable: generation %d (* above), %s in all%n", c.newestCommonGeneration(), human(c.bytesOfNewest()));
            } else {
                for (String p : c.problems()) {
                    out.println("problem: " + p);
                }
            }
        }
        if (!c.restartable()) {
            out.flush();
            spec.commandLine().getErr().println("mana_inspect: " + dir + ": not restartable: " + c.problems().get(0));
            return ErrorKind.INCOMPLETE.exitStatus();
        }
        return 0;
    }
}
