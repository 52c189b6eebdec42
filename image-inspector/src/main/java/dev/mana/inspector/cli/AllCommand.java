package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.ImageOpener.open;
import static dev.mana.inspector.cli.ImageOpener.withPath;
import static dev.mana.inspector.cli.MapCommand.map;
import static dev.mana.inspector.cli.SummaryCommand.summary;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ManaImage;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "all", mixinStandardHelpOptions = true, description = "Everything, as readdmtcp.sh: summary, memory map, then threads, files and signals (our format).")
final class AllCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Machine-readable output: one JSON object with every view.")
    boolean json;

    @Parameters(index = "0", paramLabel = "IMAGE")
    Path image;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (CheckpointImage img = open(image)) {
            if (json) {
                Json.Obj o = Json.obj().put("image", image.toString());
                o.put("summary", new Json.Raw(capture(w -> summary(img, true, w))));
                o.put("map", new Json.Raw(capture(w -> map(img, true, w))));
                if (img instanceof ManaImage) {
                    for (String v : VIEWS) {
                        o.put(v, new Json.Raw(capture(w -> view(v, img, true, w))));
                    }
                }
                out.println(o);
                return 0;
            }
            summary(img, false, out);
            out.println();
            map(img, false, out);
            if (img instanceof ManaImage) {
                for (String v : VIEWS) {
                    out.println();
                    out.println("---- " + v + " ----");
                    out.flush();
                    view(v, img, false, out);
                }
            }
        } catch (ImageException e) {
            throw withPath(image, e);
        }
        return 0;
    }

    private static final String[] VIEWS = {"threads", "files", "signals"};

    /** Runs the subcommand {@code name}'s view of {@code img} into {@code w}. */
    private int view(String name, CheckpointImage img, boolean asJson, PrintWriter w) throws Exception {
        CommandLine sub = spec.parent().subcommands().get(name);
        ImageCommand c = sub.getCommand();
        c.image = image;
        c.json = asJson;
        PrintWriter saved = sub.getOut();
        sub.setOut(w);
        try {
            return c.run(img);
        } finally {
            sub.setOut(saved);
        }
    }

    interface View {
        int run(PrintWriter w) throws Exception;
    }

    /** A view's JSON output (one object), without its line end. */
    private static String capture(View v) throws Exception {
        java.io.StringWriter sw = new java.io.StringWriter();
        PrintWriter w = new PrintWriter(sw);
        v.run(w);
        w.flush();
        return sw.toString().trim();
    }
}
