package dev.mana.inspector.internal;

import dev.mana.inspector.CheckpointDirectory;
import dev.mana.inspector.CheckpointDirectory.ImageFile;
import dev.mana.inspector.CheckpointDirectory.RankDir;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.DmtcpImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.Images;
import dev.mana.inspector.ManaImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Implementation of {@link CheckpointDirectory#scan}. */
public final class DirectoryScanner {
    private static final Pattern RANK_DIR = Pattern.compile("ckpt_rank_(\\d{1,9})");
    private static final Pattern GEN = Pattern.compile("ckpt_.*_gen(\\d{1,9})\\.mana");
    /** More entries than this in a directory is not a checkpoint directory. */
    private static final int MAX_ENTRIES = 1 << 20;

    private DirectoryScanner() {
    }

    private static List<Path> list(Path dir) throws ImageException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.limit(MAX_ENTRIES).sorted().forEach(out::add);
        } catch (IOException | SecurityException e) {
            throw new ImageException(ErrorKind.IO, dir + ": cannot list (" + e.getMessage() + ")", e);
        }
        return out;
    }

    /** An image being written: ours ({@code *.tmp}) or DMTCP's ({@code *.dmtcp.temp}). */
    static boolean isTemp(String name) {
        return name.endsWith(".tmp") || name.endsWith(".dmtcp.temp");
    }

    public static CheckpointDirectory scan(Path dir) throws ImageException {
        if (!Files.isDirectory(dir)) {
            throw new ImageException(ErrorKind.IO, dir + ": not a directory");
        }
        Map<Long, RankDir> ranks = new TreeMap<>();
        List<Path> tmps = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Path p : list(dir)) {
            Matcher m = RANK_DIR.matcher(p.getFileName().toString());
            if (!m.matches() || !Files.isDirectory(p)) {
                if (isTemp(p.getFileName().toString())) {
                    tmps.add(p);
                }
                continue;
            }
            long rank = Long.parseLong(m.group(1));
            List<ImageFile> images = new ArrayList<>();
            for (Path f : list(p)) {
                String n = f.getFileName().toString();
                if (isTemp(n)) {
                    tmps.add(f);
                } else if (n.endsWith(".mana") && !n.equals("header.mana") || n.endsWith(".dmtcp")) {
                    images.add(read(f));
                }
            }
            ranks.put(rank, new RankDir(rank, p, images));
        }
        if (ranks.isEmpty()) {
            throw new ImageException(ErrorKind.INCOMPLETE, dir + ": no ckpt_rank_N directories (not a checkpoint directory)");
        }
        // nranks: what the headers say, else the rank directories
        TreeSet<Long> declared = new TreeSet<>();
        for (RankDir r : ranks.values()) {
            for (ImageFile f : r.images()) {
                if (f.error() == null && f.nranks() > 0) {
                    declared.add(f.nranks());
                }
            }
        }
        long nranks = declared.isEmpty() ? ranks.size() : declared.last();
        if (declared.size() > 1) {
            problems.add("images disagree on the number of ranks: " + declared);
        }
        for (RankDir r : ranks.values()) {
            for (ImageFile f : r.images()) {
                if (f.error() != null) {
                    problems.add(f.path() + ": " + f.error());
                } else if (f.rank() >= 0 && f.rank() != r.rank()) {
                    problems.add(f.path() + ": holds rank " + f.rank() + ", not " + r.rank());
                }
            }
            if (r.rank() >= nranks) {
                problems.add(r.dir().getFileName() + ": beyond the job's " + nranks + " ranks (left from another job?)");
            }
        }
        List<Long> missing = new ArrayList<>();
        TreeSet<Long> common = null;
        for (long k = 0; k < nranks && k < MAX_ENTRIES; k++) {
            RankDir r = ranks.get(k);
            TreeSet<Long> gens = new TreeSet<>();
            if (r != null) {
                for (ImageFile f : r.images()) {
                    if (f.error() == null && (f.rank() < 0 || f.rank() == k)) {
                        gens.add(f.generation());
                    }
                }
            }
            if (gens.isEmpty()) {
                missing.add(k);
            }
            if (common == null) {
                common = gens;
            } else {
                common.retainAll(gens);
            }
        }
        if (!missing.isEmpty()) {
            problems.add("no usable image for rank" + (missing.size() > 1 ? "s " : " ") + abbreviate(missing));
        }
        long newest = common == null || common.isEmpty() ? -1 : common.last();
        if (newest < 0 && missing.isEmpty()) {
            problems.add("no generation that every rank has");
        }
        if (!tmps.isEmpty() && newest < 0) {
            // restart goes ahead past a dead writer's *.tmp (it moves it aside) when a complete generation
            // exists; with none, the *.tmp is the likely reason
            problems.add(tmps.size() + " unfinished image" + (tmps.size() > 1 ? "s" : "")
                    + " (a checkpoint still being written, or a writer that died): " + tmps.get(0).getFileName()
                    + (tmps.size() > 1 ? ", ..." : ""));
        }
        return new CheckpointDirectory(dir, nranks, new ArrayList<>(ranks.values()), missing, tmps, newest, problems);
    }

    private static String abbreviate(List<Long> xs) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < xs.size() && i < 16; i++) {
            sb.append(i > 0 ? ", " : "").append(xs.get(i));
        }
        if (xs.size() > 16) {
            sb.append(", ... (").append(xs.size()).append(" in all)");
        }
        return sb.toString();
    }

    private static ImageFile read(Path f) {
        long size = -1;
        try {
            size = Files.size(f);
        } catch (IOException e) {
            // reported by open below
        }
        try (CheckpointImage img = Images.open(f)) {
            if (img instanceof ManaImage) {
                ManaImage mi = (ManaImage) img;
                var h = mi.header();
                String error = null;
                Matcher g = GEN.matcher(f.getFileName().toString());
                if (g.matches() && Long.parseLong(g.group(1)) != h.generation()) {
                    error = "named generation " + g.group(1) + ", its header says " + h.generation();
                }
                return new ImageFile(f, size, img.format(), h.program(), h.generation(), h.rank(), h.nranks(), error);
            }
            DmtcpImage di = (DmtcpImage) img;
            var h = di.header();
            return new ImageFile(f, size, img.format(), h.procname(), h.compGroup().generation(), -1,
                    h.numPeers() > 0 ? h.numPeers() : -1, null);
        } catch (ImageException e) {
            String msg = e.getMessage();
            String prefix = f.toString() + ": ";
            if (msg != null && msg.startsWith(prefix)) {
                msg = msg.substring(prefix.length());
            }
            return new ImageFile(f, size, null, "", -1, -1, -1, msg);
        }
    }
}
