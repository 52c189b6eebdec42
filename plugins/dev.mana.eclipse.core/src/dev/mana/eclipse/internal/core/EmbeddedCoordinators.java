package dev.mana.eclipse.internal.core;

import java.io.File;

import dev.mana.eclipse.core.IManaCoordinator;

/**
 * Starts the coordinator inside the IDE with the control-plane library (bundle dev.mana.coordinator),
 * when that bundle is installed. Returns null otherwise, and the caller falls back to the runtime's
 * {@code mana_coordinator} as a child process.
 */
final class EmbeddedCoordinators {
    private EmbeddedCoordinators() {}

    static IManaCoordinator tryStart(String job, int interval, File statusFile) {
        return null;
    }
}
