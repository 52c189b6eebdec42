package dev.mana.dap.session;

import dev.mana.gdb.mi.MiException;
import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import org.eclipse.lsp4j.debug.services.IDebugProtocolClient;

/** Opens the session a launch or attach asks for: the one way in from the protocol side. */
public final class Sessions {
    private Sessions() {
    }

    /**
     * Starts (or finds) the rank, attaches gdb with both halves' symbols and returns its session, not yet
     * listening ({@link RankSession#start()}).
     *
     * @param out (category, text) for the client's console while the rank is being started
     */
    public static RankSession open(LaunchSpec spec, IDebugProtocolClient client, Executor worker, int lineBase,
                                   BiConsumer<String, String> out) throws IOException, MiException, InterruptedException {
        Debuggee d = new RankStarter(spec, out).start();
        return new RankSession(d, client, worker, lineBase);
    }
}
