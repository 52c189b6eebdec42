package dev.mana.eclipse.internal.ui.images;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.osgi.util.NLS;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageDiff;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.Images;

/**
 * Two generations of a checkpoint directory compared rank by rank with the library's {@link ImageDiff}
 * (regions matched by start address: added, removed, changed, with the bytes that differ).
 *
 * @param ranks one entry per rank present in either generation
 */
public record GenerationDiff(Path directory, long genA, long genB, List<RankDiff> ranks) {

    /** One rank: its two images, and their diff or why there is none. */
    public record RankDiff(long rank, Path a, Path b, ImageDiff diff, String error) {}

    /**
     * Compares the images of {@code a} and {@code b} (rank to image path) rank by rank; cancelable.
     *
     * @throws OperationCanceledException when the monitor is canceled
     */
    static GenerationDiff compare(Path dir, long genA, long genB, Map<Long, Path> a, Map<Long, Path> b,
            IProgressMonitor monitor) {
        java.util.TreeSet<Long> ranks = new java.util.TreeSet<>(a.keySet());
        ranks.addAll(b.keySet());
        SubMonitor sm = SubMonitor.convert(monitor, NLS.bind(Messages.GenerationDiff_task, genA, genB), ranks.size() * 100);
        List<RankDiff> out = new ArrayList<>();
        for (long rank : ranks) {
            Path pa = a.get(rank);
            Path pb = b.get(rank);
            if (pa == null || pb == null) {
                out.add(new RankDiff(rank, pa, pb, null, NLS.bind(Messages.GenerationDiff_noImage, rank,
                    pa == null ? genA : genB)));
                sm.worked(100);
                continue;
            }
            sm.subTask(NLS.bind(Messages.GenerationDiff_rank, rank));
            // through the chains, as mana_inspect diff: an incremental image alone would show its parents' pages as zeros
            try (CheckpointImage ia = Images.openChain(pa); CheckpointImage ib = Images.openChain(pb)) {
                long total = Math.max(1, Math.max(ia.fileSize(), ib.fileSize()));
                SubMonitor rm = sm.split(100);
                rm.setWorkRemaining(100);
                int[] done = {0};
                ImageDiff d = ImageDiff.compare(ia, ib, bytes -> {
                    if (monitor.isCanceled()) {
                        throw new OperationCanceledException();
                    }
                    int now = (int) Math.min(100, bytes * 100 / total);
                    if (now > done[0]) {
                        rm.worked(now - done[0]);
                        done[0] = now;
                    }
                });
                out.add(new RankDiff(rank, pa, pb, d, null));
            } catch (ImageException e) {
                out.add(new RankDiff(rank, pa, pb, null, NLS.bind(Messages.GenerationDiff_error, e.kind().label(),
                    e.getMessage())));

            }
        }
        return new GenerationDiff(dir, genA, genB, out);
    }
}
