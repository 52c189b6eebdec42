package dev.mana.eclipse.ui.tests;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The namespace cluster of the multi-node tests ({@code core-native/tests/cluster/cluster.sh --slurm}) kept up
 * for one test: its command on the head prints where the cluster is, then reads its standard input, so the
 * cluster stays until {@link #close()} closes that input (or this JVM dies: the pipe closes too), and
 * cluster.sh then removes everything (namespaces, Slurm daemons, folder). Needs root; a machine that cannot is
 * cluster.sh's to say: it fails, or exits 77 (skipped here) where MANA_TEST_CANNOT names {@code cluster} or
 * {@code slurm} (docs/testing.md).
 */
final class NamespaceCluster implements AutoCloseable {
    /** The line the head's command prints once the cluster (and Slurm) is up. */
    static final String READY = "MANA-CLUSTER-UP";

    final File dir;
    final File slurmConf;
    private final Process process;
    private final StringBuffer log;

    private NamespaceCluster(Process process, File dir, File slurmConf, StringBuffer log) {
        this.process = process;
        this.dir = dir;
        this.slurmConf = slurmConf;
        this.log = log;
    }

    /** Starts {@code nodes} nodes with Slurm; returns when every slurmd is idle (bounded). */
    static NamespaceCluster start(File root, int nodes) throws Exception {
        File script = new File(root, "core-native/tests/cluster/cluster.sh");
        // root, namespaces, Slurm's programs: cluster.sh checks them and applies the skip policy itself
        // (exit 77 only where MANA_TEST_CANNOT names cluster or slurm; otherwise it fails saying which)
        ProcessBuilder pb = new ProcessBuilder(script.getPath(), "--nodes", Integer.toString(nodes), "--slurm", "--",
            "sh", "-c", "echo " + READY + " \"$CLUSTER_DIR\" \"$SLURM_CONF\"; read stop");
        Process p = pb.start();
        StringBuffer log = new StringBuffer();
        drain(p.getErrorStream(), log);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try {
                for (String l; (l = out.readLine()) != null;) {
                    if (l.startsWith(READY + " ")) {
                        return l;
                    }
                    log.append(l).append('\n');
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        });
        String line;
        try {
            line = ready.get(90, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            p.destroy();
            throw new AssertionError("the namespace cluster was not up in 90 s:\n" + log);
        }
        if (line == null) {
            int rc = p.waitFor();
            if (rc == 77) {
                org.junit.jupiter.api.Assumptions.abort("cluster.sh cannot make the cluster here: " + log);
            }
            throw new AssertionError("cluster.sh ended (exit " + rc + ") before the cluster was up:\n" + log);
        }
        drain(p.getInputStream(), log);
        String[] w = line.split(" ");
        return new NamespaceCluster(p, new File(w[1]), new File(w[2]), log);
    }

    private static void drain(java.io.InputStream in, StringBuffer to) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null;) {
                    to.append(l).append('\n');
                }
            } catch (IOException e) {
                // ended
            }
        }, "cluster.sh output");
        t.setDaemon(true);
        t.start();
    }

    /** The command that runs a command on the head (the login node): the Slurm group's command prefix. */
    List<String> onHead() {
        return List.of(new File(dir, "bin/on").getPath(), "head");
    }

    /** The cluster's HOME (every node's): the coordinators' status files. */
    File home() {
        return new File(dir, "home");
    }

    /** A folder on the cluster's shared file system. */
    File shared(String name) throws IOException {
        File f = new File(dir, "shared/" + name);
        Files.createDirectories(f.toPath());
        return f;
    }

    /** Runs a command on the head, bounded; its output (stdout and stderr). */
    String onHead(long seconds, String... cmd) throws Exception {
        List<String> c = new java.util.ArrayList<>(onHead());
        c.addAll(List.of(cmd));
        ProcessBuilder pb = new ProcessBuilder(c).redirectErrorStream(true);
        pb.environment().put("SLURM_CONF", slurmConf.getPath());
        pb.environment().put("HOME", home().getPath());
        Process p = pb.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", cmd) + " did not end in " + seconds + " s");
        }
        String o = out.get(10, TimeUnit.SECONDS);
        if (p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "):\n" + o);
        }
        return o;
    }

    /** What cluster.sh said (for failure messages). */
    String log() {
        return log.toString();
    }

    /** Ends the head's command (its input closes); cluster.sh removes the cluster. Bounded; SIGTERM after. */
    @Override
    public void close() throws Exception {
        process.getOutputStream().close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroy(); // cluster.sh's trap tears down on SIGTERM too
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
