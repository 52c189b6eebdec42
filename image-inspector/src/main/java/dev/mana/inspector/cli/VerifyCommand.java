package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.TextFormat.human;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.Images;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.Problem;
import dev.mana.inspector.VerifyReport;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "verify", mixinStandardHelpOptions = true, description = {"Check checksums, truncation and consistency; reads the whole file once.",
    "Exit status: 0 sound, else the class of the worst problem (6 truncated, 8 corrupt, 7 malformed, 5 unsupported)."})
final class VerifyCommand extends ImageCommand {
    @Option(names = {"-q", "--quiet"}, description = "Print nothing when the image is sound.")
    boolean quiet;

    @Option(names = "--no-chain", description = "An incremental image: check this file only, not its parents.")
    boolean noChain;

    @Override
    int run(CheckpointImage img) throws ImageException {
        long t0 = System.nanoTime();
        VerifyReport r = noChain ? img.verify(null) : verifyWithChain(img);
        double s = (System.nanoTime() - t0) / 1e9;
        PrintWriter out = out();
        ErrorKind worst = r.worstKind();
        if (json) {
            List<Object> ps = new ArrayList<>();
            for (Problem p : r.problems()) {
                ps.add(Json.obj().put("kind", p.kind().name()).put("message", p.message()));
            }
            out.println(Json.obj().put("image", img.path().toString()).put("format", img.format().name())
                    .put("ok", r.ok()).put("status", worst == null ? "OK" : worst.name())
                    .put("exit_status", worst == null ? 0 : worst.exitStatus())
                    .put("checksums", r.checksums()).put("regions_checked", r.regionsChecked())
                    .put("sections_checked", r.sectionsChecked()).put("bytes_read", r.bytesRead())
                    .put("seconds", s).put("problems", ps).put("notes", r.notes()));
        } else {
            for (Problem p : r.problems()) {
                out.println(p);
            }
            if (!quiet) {
                for (String n : r.notes()) {
                    out.println("note: " + n);
                }
            }
            if (!quiet || !r.ok()) {
                out.printf(Locale.ROOT, "%s: %s: %d regions, %d sections%s checked; %s read in %.2f s (%.0f MB/s)%n",
                        img.path(), r.ok() ? "OK" : "FAILED (" + r.problems().size() + " problem"
                                + (r.problems().size() == 1 ? "" : "s") + ")",
                        r.regionsChecked(), r.sectionsChecked(), r.checksums() ? "" : " (no checksums in this format: structure)",
                        human(r.bytesRead()), s, s > 0 ? r.bytesRead() / s / 1e6 : 0.0);
            }
        }
        if (worst != null) {
            out.flush();
            spec.commandLine().getErr().println("mana_inspect: " + img.path() + ": " + worst.label() + ": "
                    + r.problems().get(0).message() + (r.problems().size() > 1 ? " (and " + (r.problems().size() - 1) + " more)" : ""));
            return worst.exitStatus();
        }
        return 0;
    }

    /**
     * Verify of an incremental image checks its chain too, as a restart needs it: every parent must be there and be
     * the one recorded (else one problem naming it, after this image's own), and each is verified in its turn.
     */
    static VerifyReport verifyWithChain(CheckpointImage img) throws ImageException {
        boolean incremental;
        try {
            incremental = img instanceof ManaImage m && m.parent().isPresent();
        } catch (ImageException e) {
            incremental = false;   // a damaged PARENT section is the image's own problem: its verify reports it
        }
        if (!incremental) {
            return img.verify(null);
        }
        try (CheckpointImage chain = Images.openChain(img.path())) {
            return chain.verify(null);
        } catch (ImageException e) {
            VerifyReport own = img.verify(null);
            List<Problem> ps = new ArrayList<>(own.problems());
            ps.add(new Problem(e.kind(), e.getMessage()));
            return new VerifyReport(ps, own.bytesRead(), own.regionsChecked(), own.sectionsChecked(), own.checksums(),
                    own.notes());
        }
    }
}
