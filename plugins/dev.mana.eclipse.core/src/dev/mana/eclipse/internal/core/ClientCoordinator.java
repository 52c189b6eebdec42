package dev.mana.eclipse.internal.core;

import java.io.IOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.CoordinatorAddress;
import dev.mana.coordinator.CoordinatorClient;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;
import dev.mana.eclipse.core.CoordinatorEndpoint;
import dev.mana.eclipse.core.IManaCoordinator;

/**
 * A coordinator joined over the protocol, through the control-plane library's {@link CoordinatorClient}.
 * One connection per call: calls are rare, and a coordinator restarted between them is simply reached
 * again. Failures are the library's {@code CoordinatorException}s (one line, fit for users).
 */
public final class ClientCoordinator implements IManaCoordinator {
    /** Wait for the connection and for each reply (a checkpoint's result is awaited without a limit). */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final CoordinatorEndpoint endpoint;
    private final String job;
    private final CoordinatorAddress address;

    public ClientCoordinator(CoordinatorEndpoint endpoint, String job) {
        this.endpoint = endpoint;
        this.job = job;
        this.address = CoordinatorAddress.of(endpoint.host(), endpoint.port(), endpoint.secret());
    }

    private CoordinatorClient connect() throws IOException {
        return CoordinatorClient.connect(address, job == null ? "" : job, TIMEOUT);
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
        try (CoordinatorClient c = connect()) {
            return ranks(c);
        }
    }

    @Override
    public JobStatus status() throws IOException {
        try (CoordinatorClient c = connect()) {
            return c.status();
        }
    }

    /** LIST and STATUS over one connection (the job polls this). */
    public Snapshot snapshot() throws IOException {
        try (CoordinatorClient c = connect()) {
            List<RankInfo> ranks = ranks(c);
            return new Snapshot(ranks, c.status());
        }
    }

    /** Ranks and summary at one moment. */
    public record Snapshot(List<RankInfo> ranks, JobStatus status) {}

    private static List<RankInfo> ranks(CoordinatorClient c) throws IOException {
        return c.list().stream().sorted(Comparator.comparingInt(RankInfo::rank)).toList();
    }

    @Override
    public CheckpointResult checkpoint(boolean exit, Consumer<CheckpointProgress> progress) throws IOException {
        try (CoordinatorClient c = connect()) {
            return c.checkpoint(exit, p -> {
                if (progress != null) {
                    progress.accept(p);
                }
            });
        }
    }

    @Override
    public void setInterval(int seconds) throws IOException {
        try (CoordinatorClient c = connect()) {
            c.setInterval(seconds);
        }
    }

    @Override
    public void kill() throws IOException {
        try (CoordinatorClient c = connect()) {
            c.killJob();
        }
    }

    /** Stops the coordinator itself (QUIT). */
    void quit() throws IOException {
        try (CoordinatorClient c = connect()) {
            c.quit();
        }
    }

    @Override
    public void close() {
        // a joined coordinator outlives the job
    }
}
