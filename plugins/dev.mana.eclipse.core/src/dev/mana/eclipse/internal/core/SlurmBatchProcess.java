package dev.mana.eclipse.internal.core;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.RandomAccessFile;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Slurm batch job as a {@link Process}, so the launch shows it like any launcher process: its output is the
 * job's output file followed as it grows (every rank's {@code --label}ed lines and the batch script's), it ends
 * when Slurm says the job ended ({@code squeue -j ID -t all}), with exit value 0 when the job COMPLETED and 1
 * otherwise (cancelled, failed, timed out, node failure), and {@link #destroy()} is {@code scancel}.
 * The state is asked once a second: the job runs on other machines, there is nothing to wait on here.
 */
final class SlurmBatchProcess extends Process {
    /** Slurm's job states in which the job is over. */
    static final Set<String> ENDED = Set.of("COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
        "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "SPECIAL_EXIT", "REVOKED");
    static final long POLL_MILLIS = 1000;

    private final SlurmCommands commands;
    private final String jobId;
    private final File output;
    private final PipedInputStream stdout = new PipedInputStream(1 << 16);
    private final PipedOutputStream toStdout;
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile int exitValue = -1;
    private volatile String state = "PENDING";

    SlurmBatchProcess(SlurmCommands commands, String jobId, File output) throws IOException {
        this.commands = commands;
        this.jobId = jobId;
        this.output = output;
        this.toStdout = new PipedOutputStream(stdout);
        Thread t = new Thread(this::follow, "MANA Slurm job " + jobId);
        t.setDaemon(true);
        t.start();
    }

    /** The job's last state as squeue said it. */
    String state() {
        return state;
    }

    /** Copies the output file's new bytes and asks Slurm for the job's state, until the job has ended. */
    private void follow() {
        long offset = 0;
        int failures = 0;
        try (toStdout) {
            while (true) {
                String s;
                try {
                    s = commands.jobState(jobId);
                    failures = 0;
                } catch (IOException e) {
                    // a controller that does not answer for a minute: the job is given up as unknown
                    s = ++failures > 60 ? "" : state;
                }
                offset = copyNew(offset);
                if (s.isEmpty() || ENDED.contains(s)) {
                    state = s.isEmpty() ? "GONE" : s;
                    // the last lines may reach the shared file system after the state
                    Thread.sleep(POLL_MILLIS);
                    copyNew(offset);
                    exitValue = "COMPLETED".equals(s) ? 0 : 1;
                    return;
                }
                state = s;
                Thread.sleep(POLL_MILLIS);
            }
        } catch (IOException | InterruptedException e) {
            exitValue = 1;
        } finally {
            ended.countDown();
        }
    }

    private long copyNew(long offset) throws IOException {
        if (!output.isFile()) {
            return offset;
        }
        try (RandomAccessFile f = new RandomAccessFile(output, "r")) {
            long len = f.length();
            if (len <= offset) {
                return offset;
            }
            f.seek(offset);
            byte[] buf = new byte[8192];
            long left = len - offset;
            while (left > 0) {
                int n = f.read(buf, 0, (int) Math.min(buf.length, left));
                if (n < 0) {
                    break;
                }
                toStdout.write(buf, 0, n);
                left -= n;
            }
            toStdout.flush();
            return len - left;
        }
    }

    @Override
    public OutputStream getOutputStream() {
        return OutputStream.nullOutputStream();
    }

    @Override
    public InputStream getInputStream() {
        return stdout;
    }

    @Override
    public InputStream getErrorStream() {
        return InputStream.nullInputStream(); // sbatch --output takes both
    }

    @Override
    public int waitFor() throws InterruptedException {
        ended.await();
        return exitValue;
    }

    @Override
    public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
        return ended.await(timeout, unit);
    }

    @Override
    public int exitValue() {
        if (ended.getCount() > 0) {
            throw new IllegalThreadStateException("Slurm job " + jobId + " is " + state);
        }
        return exitValue;
    }

    @Override
    public boolean isAlive() {
        return ended.getCount() > 0;
    }

    /** scancel: the ranks get SIGTERM, then SIGKILL after the cluster's KillWait, as at the time limit. */
    @Override
    public void destroy() {
        if (isAlive()) {
            try {
                commands.cancel(jobId);
            } catch (IOException e) {
                // the job may just have ended; the follower sees its state either way
            }
        }
    }

    @Override
    public Process destroyForcibly() {
        destroy();
        return this;
    }

    @Override
    public boolean supportsNormalTermination() {
        return true;
    }

    @Override
    public long pid() {
        throw new UnsupportedOperationException("Slurm job " + jobId + " runs elsewhere: no local pid");
    }

    @Override
    public Stream<ProcessHandle> children() {
        return Stream.empty();
    }

    @Override
    public Stream<ProcessHandle> descendants() {
        return Stream.empty();
    }
}
