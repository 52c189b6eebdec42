package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.FormatGuard.requireDmtcp;
import static dev.mana.inspector.cli.ImageOpener.open;
import static dev.mana.inspector.cli.ImageOpener.withPath;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.DmtcpImage;
import dev.mana.inspector.ImageException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "simulate", mixinStandardHelpOptions = true, description = "DMTCP images: what `mtcp_restart --simulate` prints, line for line.")
final class SimulateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Machine-readable output: the lines as a JSON array.")
    boolean json;

    @Parameters(index = "0", paramLabel = "IMAGE")
    Path image;

    @Override
    public Integer call() throws Exception {
        try (CheckpointImage img = open(image)) {
            return simulate(img, json, spec.commandLine().getOut());
        } catch (ImageException e) {
            throw withPath(image, e);
        }
    }

    static int simulate(CheckpointImage img, boolean json, PrintWriter out) throws ImageException {
        DmtcpImage d = requireDmtcp(img, "--simulate");
        String text = d.simulate();
        if (json) {
            out.println(Json.obj().put("image", img.path().toString()).put("lines", List.of(text.split("\n", -1)))
                    .put("text", text));
        } else {
            out.print(text);
        }
        return 0;
    }
}
