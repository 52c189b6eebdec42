package dev.mana.eclipse.internal.core;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.mana.eclipse.core.CoordinatorEndpoint;

/**
 * A coordinator the IDE hosts as a child process ({@code bin/mana_coordinator --foreground}), used when
 * the coordinator library is not installed in this IDE.
 */
public final class ExternalCoordinator extends ClientCoordinator {
    private final Process process;

    private ExternalCoordinator(CoordinatorEndpoint ep, String job, Process p) {
        super(ep, job);
        this.process = p;
    }

    public static ExternalCoordinator start(File runtimeRoot, String job, int interval, File statusFile)
            throws IOException {
        File exe = new File(runtimeRoot, "bin/mana_coordinator");
        if (!exe.canExecute()) {
            throw new IOException("cannot host a coordinator: " + exe + " is missing and the coordinator library "
                + "is not installed");
        }
        Files.deleteIfExists(statusFile.toPath());
        List<String> cmd = new ArrayList<>(List.of(exe.getPath(), "--foreground", "-q", "-p", "0",
            "--status-file", statusFile.getPath()));
        if (interval > 0) {
            cmd.add("-i");
            cmd.add(Integer.toString(interval));
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(new File(statusFile.getPath() + ".log")).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (statusFile.isFile()) {
                try {
                    CoordinatorEndpoint ep = StatusFiles.endpoint(statusFile);
                    return new ExternalCoordinator(ep, job, p);
                } catch (IOException | NumberFormatException e) {
                    // still being written
                }
            }
            if (!p.isAlive()) {
                throw new IOException("mana_coordinator exited with status " + p.exitValue() + "; see "
                    + statusFile + ".log");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        p.destroyForcibly();
        throw new IOException("mana_coordinator did not write " + statusFile + " within 15 s");
    }

    @Override
    public boolean isHosted() {
        return true;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(3, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
