package dev.mana.eclipse.core;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CompletableFuture;

import org.eclipse.core.runtime.FileLocator;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.osgi.framework.Bundle;

/**
 * The MANA runtime the IDE launches jobs with: the one bundled in the platform fragment
 * {@value #RUNTIME_FRAGMENT}, or another install named in the preferences (a folder with bin/ and
 * lib/, as {@code make build} lays them out).
 */
public final class ManaRuntime {

    public static final String RUNTIME_FRAGMENT = "dev.mana.eclipse.runtime.linux.x86_64";
    /** System property that overrides the preference (tests, headless use). */
    public static final String RUNTIME_PROPERTY = "dev.mana.runtime";

    /** Executables the IDE runs itself. */
    public static final List<String> REQUIRED = List.of("bin/mana_launch", "bin/mana_restart");
    /** Files the runtime's launchers need (checked so the failure is named before the launch). */
    public static final List<String> EXPECTED = List.of("bin/lower-half", "lib/libmana.so",
        "bin/mana_coordinator", "bin/mana_status");

    private ManaRuntime() {}

    /** The runtime to use: the system property, else the preference, else the bundled one; null if none. */
    public static File locate() {
        String prop = System.getProperty(RUNTIME_PROPERTY);
        if (prop != null && !prop.isBlank()) {
            return new File(prop);
        }
        String pref = preferences().get(ManaCore.PREF_RUNTIME_LOCATION, "");
        if (!pref.isBlank()) {
            return new File(pref);
        }
        return bundled();
    }

    /** The runtime in the bundled fragment, or null when the fragment is not installed. */
    public static File bundled() {
        Bundle core = Platform.getBundle(ManaCore.PLUGIN_ID);
        if (core == null) {
            return null;
        }
        URL url = FileLocator.find(core, new org.eclipse.core.runtime.Path("runtime"), null);
        if (url == null) {
            return null;
        }
        try {
            File dir = new File(FileLocator.toFileURL(url).getPath());
            return dir.isDirectory() ? dir : null;
        } catch (IOException e) {
            return null;
        }
    }

    public static IEclipsePreferences preferences() {
        return InstanceScope.INSTANCE.getNode(ManaCore.PLUGIN_ID);
    }

    /**
     * Checks a runtime and the MPI a job needs.
     *
     * @param root the runtime (may be null)
     * @param mpi the configured implementation (AUTO is resolved here)
     * @param launcher mpirun or srun
     * @param path the PATH to search for mpirun/srun (null: the IDE's own)
     */
    public static RuntimeCheck check(File root, MpiImplementation mpi, MpiLauncher launcher, String path) {
        List<String> errors = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        if (root == null) {
            errors.add("No MANA runtime: the bundled runtime fragment (" + RUNTIME_FRAGMENT + ") is not installed "
                + "and no runtime is set in Preferences > MANA.");
        } else if (!root.isDirectory()) {
            errors.add("The MANA runtime folder " + root + " does not exist: fix it in Preferences > MANA.");
        } else {
            for (String f : REQUIRED) {
                File file = new File(root, f);
                if (!file.isFile()) {
                    errors.add("The MANA runtime at " + root + " has no " + f
                        + ": build it with 'make build' or choose another runtime in Preferences > MANA.");
                } else if (!file.canExecute() && !file.setExecutable(true)) {
                    errors.add(file + " is not executable (chmod +x it).");
                }
            }
            for (String f : EXPECTED) {
                File file = new File(root, f);
                if (!file.isFile()) {
                    warnings.add("The MANA runtime at " + root + " has no " + f + "; jobs may fail to start.");
                } else if (f.startsWith("bin/") && !file.canExecute()) {
                    file.setExecutable(true);
                }
            }
        }
        String searchPath = path != null ? path : System.getenv("PATH");
        String exe = null;
        MpiImplementation resolved = mpi;
        if (launcher == MpiLauncher.SRUN) {
            exe = which("srun", searchPath);
            if (exe == null) {
                errors.add("srun is not on the PATH: Slurm is not installed here; choose mpirun on the MPI tab.");
            }
            if (mpi == MpiImplementation.AUTO) {
                resolved = detect(which("mpirun", searchPath));
            }
        } else {
            for (String name : mpi.mpirunNames()) {
                exe = which(name, searchPath);
                if (exe != null) {
                    break;
                }
            }
            if (exe == null) {
                errors.add(switch (mpi) {
                    case OPEN_MPI -> "Open MPI is not installed (no mpirun.openmpi or mpirun on the PATH): "
                        + "install it (Debian: openmpi-bin) or choose another MPI on the MPI tab.";
                    case MPICH -> "MPICH is not installed (no mpirun.mpich or mpirun on the PATH): "
                        + "install it (Debian: mpich) or choose another MPI on the MPI tab.";
                    case AUTO -> "No MPI is installed (no mpirun on the PATH): install Open MPI or MPICH.";
                });
            } else if (mpi == MpiImplementation.AUTO) {
                resolved = detect(exe);
                if (resolved == MpiImplementation.AUTO) {
                    warnings.add("Could not tell which MPI " + exe + " belongs to; choose it on the MPI tab.");
                }
            }
        }
        return new RuntimeCheck(root, resolved, exe, errors, warnings);
    }

    /** Which implementation an mpirun belongs to (AUTO when it cannot tell). */
    public static MpiImplementation detect(String mpirun) {
        if (mpirun == null) {
            return MpiImplementation.AUTO;
        }
        String real;
        try {
            real = Path.of(mpirun).toRealPath().getFileName().toString();
        } catch (IOException e) {
            real = new File(mpirun).getName();
        }
        if (real.contains("openmpi") || real.contains("orterun") || real.contains("prterun")) {
            return MpiImplementation.OPEN_MPI;
        }
        if (real.contains("mpich") || real.contains("hydra")) {
            return MpiImplementation.MPICH;
        }
        try {
            Process p = new ProcessBuilder(mpirun, "--version").redirectErrorStream(true).start();
            // The read runs beside the wait, so a launcher that hangs costs at most 5 s (the read used to
            // come first and the time limit never applied).
            CompletableFuture<String> read = CompletableFuture.supplyAsync(() -> {
                try (InputStream in = p.getInputStream()) {
                    return new String(in.readNBytes(8192), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return "";
                }
            });
            String out;
            try {
                out = read.get(5, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException e) {
                out = "";
            } finally {
                p.destroyForcibly();
            }
            if (out.contains("Open MPI") || out.contains("OpenRTE")) {
                return MpiImplementation.OPEN_MPI;
            }
            if (out.contains("HYDRA") || out.contains("MPICH")) {
                return MpiImplementation.MPICH;
            }
        } catch (IOException e) {
            // cannot tell
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return MpiImplementation.AUTO;
    }

    /** The executable of that name on the PATH, or null. An absolute name is checked as it is. */
    public static String which(String name, String path) {
        if (name.contains("/")) {
            return Files.isExecutable(Path.of(name)) ? name : null;
        }
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    /** Whether this IDE runs as root (Open MPI then needs its consent variables). */
    public static boolean runningAsRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[1].equals("0");
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        return "root".equals(System.getProperty("user.name"));
    }

    /** The PATH a launch with this environment will see. */
    public static String pathOf(Map<String, String> env) {
        String p = env.get("PATH");
        return p != null ? p : System.getenv("PATH");
    }
}
