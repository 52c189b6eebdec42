package dev.mana.eclipse.core;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.mana.inspector.CheckpointDirectory;
import dev.mana.inspector.CheckpointDirectory.ImageFile;
import dev.mana.inspector.CheckpointDirectory.RankDir;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;

/**
 * Checks that a directory holds a checkpoint that a restart can use. The rules are the image
 * inspector's ({@link CheckpointDirectory#scan}, docs/inspector.md): a {@code ckpt_rank_N} folder
 * with a readable image for every rank 0..n-1 (n from the images' headers), a generation that every
 * rank has (the newest such is the one restarted from); a {@code *.tmp} (an interrupted write) only
 * counts when no generation is complete, since restart moves it aside and takes the newest complete one.
 * Headers are read, so a file that is not an image, or whose header contradicts its name or folder,
 * is a problem. This class turns the scan into sentences and adds the one rule of the launch: as
 * many ranks as the configuration runs.
 */
public final class CheckpointDirectoryValidator {

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
        Path root = dir.toPath();
        CheckpointDirectory cd;
        try {
            cd = CheckpointDirectory.scan(root);
        } catch (ImageException e) {
            problems.add(e.kind() == ErrorKind.INCOMPLETE
                ? "No checkpoint in " + dir + ": there is no ckpt_rank_N folder."
                : "Cannot read the checkpoint directory: " + e.getMessage());
            return new CheckpointValidation(dir, 0, -1, Map.of(), 0, 0, problems);
        }
        int ranks = (int) Math.min(cd.nranks(), Integer.MAX_VALUE);
        Map<Long, RankDir> rankDirs = new TreeMap<>();
        for (RankDir r : cd.ranks()) {
            rankDirs.put(r.rank(), r);
        }
        List<Long> noFolder = new ArrayList<>();
        List<Long> noImage = new ArrayList<>();
        for (Long r : cd.missingRanks()) {
            RankDir rd = rankDirs.get(r);
            if (rd == null) {
                noFolder.add(r);
            } else if (rd.images().isEmpty()) {
                noImage.add(r);
            }
        }
        if (!noFolder.isEmpty()) {
            problems.add("Rank" + (noFolder.size() == 1 ? " " : "s ") + join(noFolder) + " missing: no ckpt_rank_"
                + noFolder.get(0) + " folder.");
        }
        for (Long r : noImage) {
            problems.add("Rank " + r + " has no image in ckpt_rank_" + r + ".");
        }
        if (expectedRanks > 0 && expectedRanks != ranks) {
            problems.add("The checkpoint has " + ranks + " ranks but the job runs " + expectedRanks
                + ": the number of ranks must match at restart.");
        }
        TreeSet<Long> declared = new TreeSet<>();
        // per rank: the generations of its usable images
        Map<Long, TreeSet<Long>> generations = new TreeMap<>();
        for (RankDir r : cd.ranks()) {
            TreeSet<Long> gens = new TreeSet<>();
            for (ImageFile f : r.images()) {
                String name = relative(root, f.path());
                if (f.error() != null) {
                    problems.add(name + " is not a usable image: " + f.error() + ".");
                } else if (f.rank() >= 0 && f.rank() != r.rank()) {
                    problems.add(name + " holds rank " + f.rank() + ", not " + r.rank() + ".");
                } else {
                    gens.add(f.generation());
                    if (f.nranks() > 0) {
                        declared.add(f.nranks());
                    }
                }
            }
            if (r.rank() >= cd.nranks()) {
                problems.add(r.dir().getFileName() + " is beyond the job's " + cd.nranks()
                    + " ranks (left from another job?).");
            } else {
                generations.put(r.rank(), gens);
            }
        }
        if (declared.size() > 1) {
            problems.add("The images disagree on the number of ranks: " + declared + ".");
        }
        long common = cd.newestCommonGeneration();
        if (common < 0 && cd.missingRanks().isEmpty()) {
            problems.add("The ranks' images are of different generations (" + describe(generations)
                + "): no generation is complete.");
        }
        if (common < 0) {
            // with a complete generation, restart moves a dead writer's partial image aside and goes on
            // (as mana_restart does); without one, the partial write is the likely reason
            for (Path t : cd.tmpFiles()) {
                problems.add("Incomplete checkpoint: " + relative(root, t) + " is a partial write.");
            }
        }
        if (problems.isEmpty() && !cd.restartable()) {
            // a rule of the inspector's that has no sentence above: say it as the inspector does
            problems.addAll(cd.problems());
        }
        Map<Integer, File> images = new TreeMap<>();
        long total = 0;
        long last = 0;
        if (common >= 0) {
            for (RankDir r : cd.ranks()) {
                if (r.rank() >= cd.nranks()) {
                    continue;
                }
                for (ImageFile f : r.images()) {
                    if (f.error() == null && f.generation() == common && (f.rank() < 0 || f.rank() == r.rank())) {
                        File img = f.path().toFile();
                        images.put((int) r.rank(), img);
                        total += f.size();
                        last = Math.max(last, img.lastModified());
                        break;
                    }
                }
            }
        }
        return new CheckpointValidation(dir, ranks, common, images, total, last, problems);
    }

    private static String relative(Path root, Path p) {
        return p.startsWith(root) ? root.relativize(p).toString() : p.toString();
    }

    private static String describe(Map<Long, TreeSet<Long>> generations) {
        StringBuilder b = new StringBuilder();
        generations.forEach((r, g) -> {
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append("rank ").append(r).append(": ").append(g);
        });
        return b.toString();
    }

    private static String join(List<Long> l) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < l.size(); i++) {
            if (i > 0) {
                b.append(i == l.size() - 1 ? " and " : ", ");
            }
            b.append(l.get(i));
        }
        return b.toString();
    }

    /** Whether {@code dir} holds any checkpoint at all (some ckpt_rank_N folder); lists, reads no image. */
    public static boolean hasCheckpoint(File dir) {
        File[] f = dir == null ? null : dir.listFiles((d, n) -> n.matches("ckpt_rank_\\d+") && new File(d, n).isDirectory());
        return f != null && f.length > 0;
    }
}
