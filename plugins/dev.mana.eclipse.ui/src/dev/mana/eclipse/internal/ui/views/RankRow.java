package dev.mana.eclipse.internal.ui.views;

import java.io.File;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.core.runtime.IAdaptable;
import org.eclipse.debug.core.ILaunch;

import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.RankInfo;

/** One row of the MANA Job view: a rank and its newest image on disk. */
public record RankRow(IManaJob job, RankInfo rank, File image, long imageGeneration) implements IAdaptable {

    private static final Pattern GEN = Pattern.compile(".*_gen(\\d+)\\.(mana|dmtcp)");

    /** The rank's newest complete image in the checkpoint directory, or null. */
    static RankRow of(IManaJob job, RankInfo r, File ckptDir) {
        File best = null;
        long bestGen = -1;
        File rankDir = ckptDir.getName().equals("ckpt_rank_" + r.rank()) ? ckptDir
            : new File(ckptDir, "ckpt_rank_" + r.rank());
        File[] files = rankDir.listFiles();
        for (File f : files == null ? new File[0] : files) {
            Matcher m = GEN.matcher(f.getName());
            if (f.isFile() && m.matches() && Long.parseLong(m.group(1)) > bestGen) {
                best = f;
                bestGen = Long.parseLong(m.group(1));
            }
        }
        return new RankRow(job, r, best, bestGen);
    }

    @Override
    public <T> T getAdapter(Class<T> adapter) {
        if (adapter == IManaJob.class) {
            return adapter.cast(job);
        }
        if (adapter == ILaunch.class) {
            return adapter.cast(job.getLaunch());
        }
        return null;
    }
}
