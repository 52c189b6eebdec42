package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.ImageOpener.open;
import static dev.mana.inspector.cli.ImageOpener.openChain;
import static dev.mana.inspector.cli.ImageOpener.withPath;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** A subcommand that views one image: IMAGE and --json, the image opened and closed around {@link #run}. */
abstract class ImageCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Machine-readable output (one JSON object).")
    boolean json;

    @Parameters(index = "0", paramLabel = "IMAGE", description = "A checkpoint image.")
    Path image;

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    @Override
    public Integer call() throws Exception {
        try (CheckpointImage img = readsMemory() ? openChain(image) : open(image)) {
            return run(img);
        } catch (ImageException e) {
            throw withPath(image, e);
        }
    }

    /** Whether the command reads memory, so that an incremental image is opened with its chain. */
    boolean readsMemory() {
        return false;
    }

    abstract int run(CheckpointImage img) throws Exception;
}
