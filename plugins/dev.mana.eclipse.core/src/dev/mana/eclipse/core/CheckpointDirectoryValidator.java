package dev.mana.eclipse.core;

import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks that a directory holds a checkpoint that a restart can use, from its listing: a
 * {@code ckpt_rank_N} folder for every rank 0..n-1, an image of one common generation in each, and
 * no {@code *.tmp} (an interrupted write). As the runtime does, the newest generation that every rank
 * has is the one restarted from (see docs/image-format.md). Image names carry their generation:
 * {@code ckpt_rank_N/ckpt_<anything>_gen<G>.mana} (or {@code .dmtcp} for MANA's own images, which
 * carry no generation and count as generation 0).
 */
public final class CheckpointDirectoryValidator {

    private static final Pattern RANK_DIR = Pattern.compile("ckpt_rank_(\\d+)");
    private static final Pattern GEN = Pattern.compile(".*_gen(\\d+)\\.(mana|dmtcp)");

    private CheckpointDirectoryValidator() {}

    /**
     * @param dir the checkpoint directory
     * @param expectedRanks the number of ranks the job will have, or 0 to accept what is there
     */
    public static CheckpointValidation validate(File dir, int expectedRanks) {
        List<String> problems = new ArrayList<>();
        if (dir == null || !dir.isDirectory()) {
            problems.add("The checkpoint directory " + dir + " does not exist.");
            return new CheckpointValidation(dir, 0, -1, Map.of(), 0, 0, problems);
        }
        File[] entries = dir.listFiles();
        TreeMap<Integer, File> rankDirs = new TreeMap<>();
        for (File f : entries == null ? new File[0] : entries) {
            Matcher m = RANK_DIR.matcher(f.getName());
            if (f.isDirectory() && m.matches()) {
                rankDirs.put(Integer.parseInt(m.group(1)), f);
            } else if (f.getName().endsWith(".tmp")) {
                problems.add("Incomplete checkpoint: " + f.getName() + " is a partial write.");
            }
        }
        if (rankDirs.isEmpty()) {
            problems.add(0, "No checkpoint in " + dir + ": there is no ckpt_rank_N folder.");
            return new CheckpointValidation(dir, 0, -1, Map.of(), 0, 0, problems);
        }
        int ranks = rankDirs.lastKey() + 1;
        List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            if (!rankDirs.containsKey(r)) {
                missing.add(r);
            }
        }
        if (!missing.isEmpty()) {
            problems.add("Rank" + (missing.size() == 1 ? " " : "s ") + join(missing) + " missing: no ckpt_rank_"
                + missing.get(0) + " folder.");
        }
        if (expectedRanks > 0 && expectedRanks != ranks) {
            problems.add("The checkpoint has " + ranks + " ranks but the job runs " + expectedRanks
                + ": the number of ranks must match at restart.");
        }
        // per rank: generation -> image
        Map<Integer, Map<Long, File>> byRank = new HashMap<>();
        for (Map.Entry<Integer, File> e : rankDirs.entrySet()) {
            Map<Long, File> gens = new TreeMap<>();
            File[] files = e.getValue().listFiles();
            for (File f : files == null ? new File[0] : files) {
                if (f.getName().endsWith(".tmp")) {
                    problems.add("Incomplete checkpoint: " + e.getValue().getName() + "/" + f.getName()
                        + " is a partial write.");
                    continue;
                }
                Matcher m = GEN.matcher(f.getName());
                if (f.isFile() && m.matches()) {
                    gens.put(Long.parseLong(m.group(1)), f);
                } else if (f.isFile() && f.getName().endsWith(".dmtcp")) {
                    gens.put(0L, f);
                }
            }
            if (gens.isEmpty()) {
                problems.add("Rank " + e.getKey() + " has no image in " + e.getValue().getName() + ".");
            }
            byRank.put(e.getKey(), gens);
        }
        // newest generation that every rank has
        long common = -1;
        if (missing.isEmpty()) {
            TreeMap<Long, Integer> counts = new TreeMap<>();
            for (Map<Long, File> g : byRank.values()) {
                for (Long gen : g.keySet()) {
                    counts.merge(gen, 1, Integer::sum);
                }
            }
            for (Map.Entry<Long, Integer> c : counts.descendingMap().entrySet()) {
                if (c.getValue() == ranks) {
                    common = c.getKey();
                    break;
                }
            }
            boolean anyEmpty = byRank.values().stream().anyMatch(Map::isEmpty);
            if (common < 0 && !anyEmpty) {
                problems.add("The ranks' images are of different generations ("
                    + describeGenerations(byRank) + "): no generation is complete.");
            }
        }
        Map<Integer, File> images = new TreeMap<>();
        long total = 0;
        long last = 0;
        if (common >= 0) {
            for (Map.Entry<Integer, Map<Long, File>> e : byRank.entrySet()) {
                File img = e.getValue().get(common);
                images.put(e.getKey(), img);
                total += img.length();
                last = Math.max(last, img.lastModified());
            }
        }
        return new CheckpointValidation(dir, ranks, common, images, total, last, problems);
    }

    private static String describeGenerations(Map<Integer, Map<Long, File>> byRank) {
        StringBuilder b = new StringBuilder();
        new TreeMap<>(byRank).forEach((r, g) -> {
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append("rank ").append(r).append(": ").append(g.keySet());
        });
        return b.toString();
    }

    private static String join(List<Integer> l) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < l.size(); i++) {
            if (i > 0) {
                b.append(i == l.size() - 1 ? " and " : ", ");
            }
            b.append(l.get(i));
        }
        return b.toString();
    }

    /** Whether {@code dir} holds any checkpoint at all (some ckpt_rank_N folder). */
    public static boolean hasCheckpoint(File dir) {
        File[] f = dir == null ? null : dir.listFiles((d, n) -> RANK_DIR.matcher(n).matches());
        return f != null && f.length > 0;
    }
}
