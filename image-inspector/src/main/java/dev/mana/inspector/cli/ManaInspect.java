package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.ImageOpener.open;
import static dev.mana.inspector.cli.ImageOpener.withPath;
import static dev.mana.inspector.cli.SimulateCommand.simulate;
import static dev.mana.inspector.cli.SummaryCommand.summary;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code mana_inspect}: views and checks of checkpoint images. See docs/inspector.md. Exit status:
 * 0 fine, 1 {@code diff} found differences, 2 usage, then one per {@link ErrorKind}.
 */
@Command(name = "mana_inspect", mixinStandardHelpOptions = true, version = "mana_inspect 0.1.0 (image format v1, DMTCP v4.0)",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {"Inspect MANA checkpoint images: our format (MANAIMG1) and DMTCP v4.0",
            "(ckpt_*.dmtcp, gzip'd or not). Without a command: the summary of IMAGE",
            "(with --simulate: what mtcp_restart --simulate prints; for a directory: `dir`).", "",
            "Exit status: 0 ok; 1 diff found differences; 2 usage; 3 I/O error;",
            "4 not an image; 5 unsupported version; 6 truncated; 7 malformed;",
            "8 corrupt (checksum); 9 checkpoint directory not restartable;",
            "10 address/region not found; 11 view not available for this format."},
        subcommands = {SummaryCommand.class, MapCommand.class, ThreadsCommand.class, FilesCommand.class,
            SignalsCommand.class, MpiCommand.class, SectionsCommand.class, VerifyCommand.class, ExtractCommand.class,
            HexdumpCommand.class, DiffCommand.class, DirCommand.class, SimulateCommand.class, AllCommand.class,
            CommandLine.HelpCommand.class})
public final class ManaInspect implements Callable<Integer> {
    static final int DIFFERENT = 1;
    static final int USAGE = 2;
    static final int INTERNAL = 70;

    @Spec
    CommandSpec spec;

    @Option(names = "--simulate", description = "DMTCP images: print what `mtcp_restart --simulate` prints, line for line.")
    boolean simulate;

    @Option(names = "--json", description = "Machine-readable output (one JSON object).")
    boolean json;

    @Parameters(index = "0", arity = "0..1", paramLabel = "IMAGE", description = "A checkpoint image.")
    Path image;

    public static void main(String[] args) {
        long t0 = System.nanoTime();
        int rc;
        PrintWriter out = new PrintWriter(System.out, false);
        PrintWriter err = new PrintWriter(System.err, true);
        try {
            rc = run(args, out, err);
        } catch (OutOfMemoryError e) {
            out.flush();
            err.println("mana_inspect: out of memory (" + e.getMessage() + "); this is a bug: images are read in bounded pieces");
            rc = INTERNAL;
        }
        out.flush();
        if (System.getenv("MANA_INSPECT_STATS") != null) {
            // the JVM's start (to main) and the command's own work, apart
            err.println("mana_inspect: stats: heap_peak_mb=" + String.format(Locale.ROOT, "%.1f", peakHeapMb())
                    + " jvm_start_ms=" + ManagementFactory.getRuntimeMXBean().getUptime()
                    + " work_ms=" + String.format(Locale.ROOT, "%.1f", (System.nanoTime() - t0) / 1e6));
        }
        System.exit(rc);
    }

    /** Sum of the peak usage of the heap pools (an upper bound of the peak heap in use). */
    static double peakHeapMb() {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                sum += p.getPeakUsage().getUsed();
            }
        }
        return sum / 1048576.0;
    }

    /** Runs the command line; returns the exit status. Never throws for bad input. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new ManaInspect());
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((ex, a) -> {
            err.println("mana_inspect: " + ex.getMessage() + " (see mana_inspect --help)");
            return USAGE;
        });
        cl.setExecutionExceptionHandler((ex, c, parsed) -> {
            out.flush();
            if (ex instanceof CommandLine.ParameterException) {
                err.println("mana_inspect: " + ex.getMessage() + " (see mana_inspect --help)");
                return USAGE;
            }
            if (ex instanceof ImageException) {
                err.println("mana_inspect: " + ex.getMessage());
                return ((ImageException) ex).kind().exitStatus();
            }
            if (ex instanceof IOException) {
                err.println("mana_inspect: " + ex.getMessage());
                return ErrorKind.IO.exitStatus();
            }
            err.println("mana_inspect: internal error: " + ex);
            return INTERNAL;
        });
        int rc = cl.execute(args);
        out.flush();
        err.flush();
        return rc;
    }

    @Override
    public Integer call() throws Exception {
        if (image == null) {
            spec.commandLine().usage(spec.commandLine().getOut());
            return USAGE;
        }
        PrintWriter out = spec.commandLine().getOut();
        if (java.nio.file.Files.isDirectory(image) && !simulate) {
            // a checkpoint directory: the directory view
            DirCommand d = new DirCommand();
            d.spec = spec;
            d.json = json;
            d.dir = image;
            return d.call();
        }
        try (CheckpointImage img = open(image)) {
            if (simulate) {
                return simulate(img, json, out);
            }
            return summary(img, json, out);
        } catch (ImageException e) {
            throw withPath(image, e);
        }
    }
}
