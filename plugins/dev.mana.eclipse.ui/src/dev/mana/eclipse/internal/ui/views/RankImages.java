package dev.mana.eclipse.internal.ui.views;

import java.io.File;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds each rank's newest complete image in a checkpoint directory. Lists folders and reads file sizes
 * and dates, which can block for long (or for good) on a parallel file system: run it in a background
 * job, never on the UI thread.
 */
public final class RankImages {
    private RankImages() {}

    /** An image as found: its file, generation, size and date (read once, off the UI thread). */
    public record Image(File file, long generation, long bytes, long modifiedMillis) {}

    private static final Pattern GEN = Pattern.compile(".*_gen(\\d+)\\.(mana|dmtcp)");

    /** The newest image of each rank; the first directory that has one for a rank wins. */
    static Map<Integer, Image> scan(List<Integer> ranks, List<File> directories) {
        Map<Integer, Image> found = new HashMap<>();
        for (int r : ranks) {
            for (File dir : directories) {
                Image i = newest(r, dir);
                if (i != null) {
                    found.put(r, i);
                    break;
                }
            }
        }
        return found;
    }

    private static Image newest(int rank, File ckptDir) {
        File rankDir = ckptDir.getName().equals("ckpt_rank_" + rank) ? ckptDir : new File(ckptDir, "ckpt_rank_" + rank);
        File best = null;
        long bestGen = -1;
        File[] files = rankDir.listFiles();
        for (File f : files == null ? new File[0] : files) {
            Matcher m = GEN.matcher(f.getName());
            if (m.matches() && Long.parseLong(m.group(1)) > bestGen && f.isFile()) {
                best = f;
                bestGen = Long.parseLong(m.group(1));
            }
        }
        return best == null ? null : new Image(best, bestGen, best.length(), best.lastModified());
    }
}
