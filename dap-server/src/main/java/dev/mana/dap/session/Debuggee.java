package dev.mana.dap.session;

import dev.mana.gdb.split.RankDebugger;
import dev.mana.inspector.CheckpointImage;
import java.util.List;

/**
 * A rank with gdb attached, as {@link RankStarter} leaves it: stopped, both halves' symbols loaded.
 *
 * @param debugger          gdb on the rank
 * @param image             the image it was restarted from (kept open: the session's halves come from
 *                          it), or null for a launched rank
 * @param started           the process the adapter started ({@code mana_restart}, {@code mana_launch} or
 *                          the {@code mpirun} around it), or null for an attach
 * @param pumps             the copies of that process's stdout and stderr to the client
 * @param restartPauseHeld  the rank waits in its restart pause: the first resume must release it
 * @param rank              the rank's number in its job
 * @param summary           what was attached to and how, for the client's console
 */
record Debuggee(RankDebugger debugger, CheckpointImage image, Process started, List<OutputPump> pumps,
                boolean restartPauseHeld, int rank, String summary) {
    Debuggee {
        pumps = List.copyOf(pumps);
    }
}
