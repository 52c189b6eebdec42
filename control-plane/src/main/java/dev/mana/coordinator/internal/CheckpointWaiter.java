package dev.mana.coordinator.internal;

import dev.mana.coordinator.protocol.Messages.CkptProgress;
import dev.mana.coordinator.protocol.Messages.CkptResult;

/** Someone waiting for a checkpoint: a control connection or an in-process future. */
interface CheckpointWaiter {
    void progress(CkptProgress p, String job);

    void result(CkptResult r, String job);
}
