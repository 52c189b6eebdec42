package dev.mana.eclipse.internal.ui.images;

import java.nio.file.Path;
import java.util.List;
import java.util.function.LongConsumer;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.osgi.util.NLS;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.Images;
import dev.mana.inspector.MemoryRegion;
import dev.mana.inspector.Problem;
import dev.mana.inspector.Salvaged;
import dev.mana.inspector.VerifyReport;

/**
 * One verify of an image file, on the calling (background) thread: the library's single sequential pass
 * with its progress reported to a monitor, cancelable between reads. It opens its own instance of the image
 * (a cancel interrupts the library's reader threads, which may close the channel they read from) and
 * closes it; the image is only read.
 *
 * @param report   the verify report, null when the image could not be opened or the verify was canceled
 * @param regions  the memory map (for the per-region result), empty when it cannot be read
 * @param failure  why there is no report ("" when there is one or it was canceled)
 */
record Verification(VerifyReport report, List<MemoryRegion> regions, String failure, boolean canceled) {

    static Verification run(Path path, IProgressMonitor monitor, LongConsumer progress) {
        Salvaged s = Images.salvage(path);
        if (s.image() == null) {
            Problem p = s.problems().get(0);
            return new Verification(null, List.of(), NLS.bind(Messages.Verification_failure, p.kind().label(), p.message()),
                false);
        }
        try (CheckpointImage img = s.image()) {
            long size = Math.max(1, img.fileSize());
            int total = 1000;
            monitor.beginTask(NLS.bind(Messages.Verification_task, path.getFileName()), total);
            int[] reported = {0};
            VerifyReport r = img.verify(done -> {
                if (monitor.isCanceled()) {
                    throw new OperationCanceledException();
                }
                int now = (int) Math.min(total, done * total / size);
                if (now > reported[0]) {
                    monitor.worked(now - reported[0]);
                    reported[0] = now;
                }
                monitor.subTask(NLS.bind(Messages.Verification_progress, dev.mana.eclipse.core.ManaFormat.bytes(done),
                    dev.mana.eclipse.core.ManaFormat.bytes(img.fileSize())));
                if (progress != null) {
                    progress.accept(done);
                }
            });
            List<MemoryRegion> regions;
            try {
                regions = img.regions();
            } catch (ImageException e) {
                regions = List.of();
            }
            return new Verification(r, regions, "", false);
        } catch (OperationCanceledException e) {
            return new Verification(null, List.of(), "", true);
        } catch (ImageException e) {
            return new Verification(null, List.of(), NLS.bind(Messages.Verification_failure, e.kind().label(),
                e.getMessage()), false);
        } finally {
            monitor.done();
        }
    }

    boolean ok() {
        return report != null && report.ok();
    }

    /** "OK", "CORRUPT (2 problems)", "canceled", "truncated: ..." : one word or line for a table cell. */
    String verdict() {
        if (canceled) {
            return Messages.Verification_canceled;
        }
        if (report == null) {
            return failure;
        }
        if (report.ok()) {
            return report.checksums() ? Messages.Verification_ok : Messages.Verification_okStructure;
        }
        int n = report.problems().size();
        return NLS.bind(n == 1 ? Messages.Verification_problem : Messages.Verification_problems, report.worstKind().name(), n);
    }

    /** "corrupt: region 3 (...): checksum mismatch ...": the kind once (the library's messages may start with it). */
    static String describe(Problem p) {
        String label = p.kind().label() + ": ";
        return p.message().startsWith(label) ? p.message() : label + p.message();
    }

    /** The result of one region: its problems, else whether its checksum (or structure) held. */
    String regionResult(MemoryRegion r) {
        StringBuilder sb = new StringBuilder();
        for (Problem p : report.problems()) {
            if (p.region() == r.index()) {
                sb.append(sb.length() == 0 ? "" : "; ").append(describe(p));
            }
        }
        if (sb.length() > 0) {
            return sb.toString();
        }
        if (!r.saved()) {
            return NLS.bind(Messages.Verification_notSaved, r.whyNotSaved());
        }
        if (r.storedBytes() == 0) {
            return Messages.Verification_zeroOnly;
        }
        return report.checksums() ? Messages.Verification_checksum : Messages.Verification_structure;

    }
}
