package dev.mana.eclipse.internal.ui.actions;

/** Run &gt; Checkpoint and Stop. */
public final class CheckpointAndStopHandler extends CheckpointHandler {
    @Override
    protected boolean stop() {
        return true;
    }
}
