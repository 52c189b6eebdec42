package dev.mana.inspector;

import dev.mana.inspector.internal.DirectoryScanner;
import java.nio.file.Path;
import java.util.List;

/**
 * A checkpoint directory ({@code CKPTDIR} holding {@code ckpt_rank_N/}), as restart would judge it:
 * every rank present, a generation every rank has (the newest is used). Unfinished images ({@code *.tmp},
 * DMTCP's {@code *.dmtcp.temp}) are listed; restart moves a dead writer's aside and takes the newest
 * complete generation, so they only stand in the way when there is none.
 *
 * @param nranks                  ranks of the job (from the images' headers; else the rank directories)
 * @param ranks                   what each {@code ckpt_rank_N/} holds, by rank
 * @param missingRanks            ranks in [0, nranks) without a usable image
 * @param tmpFiles                unfinished images (a writer still at work, or one that died)
 * @param newestCommonGeneration  newest generation every rank has, -1 if none
 * @param problems                why restart would refuse this directory (empty: restartable)
 */
public record CheckpointDirectory(Path path, long nranks, List<RankDir> ranks, List<Long> missingRanks,
                                  List<Path> tmpFiles, long newestCommonGeneration, List<String> problems) {
    public CheckpointDirectory {
        ranks = List.copyOf(ranks);
        missingRanks = List.copyOf(missingRanks);
        tmpFiles = List.copyOf(tmpFiles);
        problems = List.copyOf(problems);
    }

    /** One {@code ckpt_rank_N/} directory. */
    public record RankDir(long rank, Path dir, List<ImageFile> images) {
        public RankDir {
            images = List.copyOf(images);
        }
    }

    /**
     * One image file found. {@code error} is null when its header reads; then format, generation,
     * rank and nranks come from it (-1 where the format does not say).
     */
    public record ImageFile(Path path, long size, ImageFormat format, String program, long generation, long rank,
                            long nranks, String error) {
    }

    public boolean restartable() {
        return problems.isEmpty();
    }

    /** Total bytes of the images of the newest common generation. */
    public long bytesOfNewest() {
        long sum = 0;
        for (RankDir r : ranks) {
            for (ImageFile f : r.images()) {
                if (f.error() == null && f.generation() == newestCommonGeneration) {
                    sum += f.size();
                }
            }
        }
        return sum;
    }

    /** Reads the headers of every image under {@code dir}. */
    public static CheckpointDirectory scan(Path dir) throws ImageException {
        return DirectoryScanner.scan(dir);
    }
}
