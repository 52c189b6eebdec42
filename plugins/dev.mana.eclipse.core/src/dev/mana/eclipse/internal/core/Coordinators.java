package dev.mana.eclipse.internal.core;

import java.io.File;
import java.io.IOException;

import dev.mana.eclipse.core.CoordinatorEndpoint;
import dev.mana.eclipse.core.IManaCoordinator;
import dev.mana.eclipse.core.ManaJobSettings;

/** Hosts or joins the coordinator of a job. */
public final class Coordinators {
    private Coordinators() {}

    /**
     * @param s the job
     * @param stateDir where a hosted coordinator's status file goes (mode 0600)
     */
    public static IManaCoordinator open(ManaJobSettings s, File stateDir) throws IOException {
        if (s.joinCoordinator()) {
            CoordinatorEndpoint ep;
            if (s.coordinatorStatusFile() != null) {
                ep = StatusFiles.endpoint(s.coordinatorStatusFile());
            } else {
                ep = new CoordinatorEndpoint(s.coordinatorHost(), s.coordinatorPort(), "", null);
            }
            ClientCoordinator c = new ClientCoordinator(ep, s.jobName());
            c.status(); // fails now, clearly, when it is not there
            if (s.checkpointInterval() > 0) {
                c.setInterval(s.checkpointInterval());
            }
            return c;
        }
        File statusFile = new File(stateDir, "coordinator-" + ProcessHandle.current().pid() + "-"
            + Long.toHexString(System.nanoTime()) + ".rc");
        return EmbeddedCoordinators.start(s.jobName(), s.checkpointInterval(), statusFile);
    }
}
