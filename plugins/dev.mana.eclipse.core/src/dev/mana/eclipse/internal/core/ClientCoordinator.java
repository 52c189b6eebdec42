package dev.mana.eclipse.internal.core;

import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;

import dev.mana.eclipse.core.CheckpointProgress;
import dev.mana.eclipse.core.CheckpointResult;
import dev.mana.eclipse.core.CoordinatorEndpoint;
import dev.mana.eclipse.core.IManaCoordinator;
import dev.mana.eclipse.core.JobStatus;
import dev.mana.eclipse.core.RankInfo;
import dev.mana.eclipse.internal.core.mncp.MncpControlClient;

/**
 * A coordinator reached over the protocol. Subclasses that host one stop it on {@link #close()}.
 */
public class ClientCoordinator implements IManaCoordinator {
    protected final CoordinatorEndpoint endpoint;
    protected final String job;
    protected final MncpControlClient client;

    public ClientCoordinator(CoordinatorEndpoint endpoint, String job) {
        this.endpoint = endpoint;
        this.job = job;
        this.client = new MncpControlClient(endpoint, job);
    }

    @Override
    public CoordinatorEndpoint endpoint() {
        return endpoint;
    }

    @Override
    public boolean isHosted() {
        return false;
    }

    @Override
    public String job() {
        return job;
    }

    @Override
    public List<RankInfo> list() throws IOException {
        return client.list();
    }

    @Override
    public JobStatus status() throws IOException {
        return client.status();
    }

    public MncpControlClient.Snapshot snapshot() throws IOException {
        return client.snapshot();
    }

    @Override
    public CheckpointResult checkpoint(boolean exit, Consumer<CheckpointProgress> progress) throws IOException {
        return client.checkpoint(exit, progress);
    }

    @Override
    public void setInterval(int seconds) throws IOException {
        client.setInterval(seconds);
    }

    @Override
    public void kill() throws IOException {
        client.killJob();
    }

    @Override
    public void close() {
        // a joined coordinator outlives the job
    }
}
