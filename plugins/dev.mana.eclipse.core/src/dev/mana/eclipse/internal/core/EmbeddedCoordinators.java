package dev.mana.eclipse.internal.core;

import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.Coordinator;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;
import dev.mana.eclipse.core.CoordinatorEndpoint;
import dev.mana.eclipse.core.IManaCoordinator;

/**
 * The coordinator hosted inside the IDE: the control-plane library's {@link Coordinator}, listening
 * on a free port of this machine, with a status file (mode 0600) that the ranks read for the secret.
 */
final class EmbeddedCoordinators {
    private EmbeddedCoordinators() {}

    /** Starts one. */
    static IManaCoordinator start(String job, int interval, File statusFile) throws IOException {
        return Hosted.start(job, interval, statusFile);
    }

    /** An in-process coordinator serving one job. */
    static final class Hosted implements IManaCoordinator {
        private final Coordinator coordinator;
        private final String job;
        private final CoordinatorEndpoint endpoint;

        private Hosted(Coordinator c, String job, File statusFile) {
            this.coordinator = c;
            this.job = job;
            this.endpoint = new CoordinatorEndpoint(c.host(), c.port(), c.secret(), statusFile);
        }

        static Hosted start(String job, int interval, File statusFile) throws IOException {
            Coordinator c = Coordinator.builder()
                .port(0)
                .interval(interval)
                .statusFile(statusFile.toPath())
                .exitOnLast(false)
                .build()
                .start();
            return new Hosted(c, job, statusFile);
        }

        private static <T> T get(CompletableFuture<T> f, long seconds) throws IOException {
            try {
                return seconds > 0 ? f.get(seconds, TimeUnit.SECONDS) : f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                throw new IOException(c.getMessage() != null ? c.getMessage() : c.toString(), c);
            } catch (TimeoutException e) {
                throw new IOException("the coordinator did not answer within " + seconds + " s", e);
            }
        }

        @Override
        public CoordinatorEndpoint endpoint() {
            return endpoint;
        }

        @Override
        public boolean isHosted() {
            return true;
        }

        @Override
        public String job() {
            return job;
        }

        private boolean known() throws IOException {
            return get(coordinator.jobs(), 10).contains(job);
        }

        @Override
        public List<RankInfo> list() throws IOException {
            if (!known()) {
                return List.of();
            }
            return get(coordinator.list(job), 10);
        }

        @Override
        public JobStatus status() throws IOException {
            if (!known()) {
                return new JobStatus(job, 0, 0, 0, false, 0, 0, 0, "", 0);
            }
            return get(coordinator.status(job), 10);
        }

        @Override
        public CheckpointResult checkpoint(boolean exit, Consumer<CheckpointProgress> progress) throws IOException {
            return get(coordinator.checkpoint(job, exit, p -> {
                if (progress != null) {
                    progress.accept(p);
                }
            }), 0);
        }

        @Override
        public void setInterval(int seconds) throws IOException {
            get(coordinator.setInterval(job, seconds), 10);     // this job only (SET_INTERVAL is per job)
        }

        @Override
        public void kill() throws IOException {
            get(coordinator.killJob(job), 10);
        }

        @Override
        public void close() {
            coordinator.close();
        }
    }
}
