package dev.mana.gdb.split;

import dev.mana.elf.ElfFile;
import dev.mana.inspector.CheckpointDirectory;
import dev.mana.inspector.ImageException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Finds the process of a restarting rank and the image it restores, from {@code /proc}: a restart is
 * {@code bin/lower-half --restore DIR} (mana_restart execs it, so the pid is the one mpirun started),
 * and the rank is the first of {@code OMPI_COMM_WORLD_RANK}, {@code PMI_RANK}, {@code PMIX_RANK},
 * {@code SLURM_PROCID} in its environment (0 when none), as the lower half reads it. An MPI rank's lower
 * half is {@code bin/lower-half-openmpi} or {@code bin/lower-half-mpich} (linked against that MPI).
 */
public final class RankLocator {
    private static final List<String> RANK_VARS = List.of("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID");

    private RankLocator() {
    }

    /** A process restoring {@code restartDir}, and its rank. */
    public record Restarting(long pid, int rank, Path restartDir) {
    }

    /** Every process of this user that restores {@code restartDir}. */
    public static List<Restarting> restarting(Path restartDir) throws IOException {
        Path want = restartDir.toRealPath();
        List<Restarting> out = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    List<String> argv = nulSplit(Files.readAllBytes(p.resolve("cmdline")));
                    int i = argv.indexOf("--restore");
                    if (argv.isEmpty() || !isLowerHalf(argv.get(0)) || i < 0 || i + 1 >= argv.size()) {
                        continue;
                    }
                    Path dir = Path.of(argv.get(i + 1));
                    if (!dir.isAbsolute()) {
                        dir = Files.readSymbolicLink(p.resolve("cwd")).resolve(dir);
                    }
                    if (!dir.toRealPath().equals(want)) {
                        continue;
                    }
                    out.add(new Restarting(Long.parseLong(name), rankOf(nulSplit(Files.readAllBytes(p.resolve("environ")))), want));
                } catch (IOException | RuntimeException e) {
                    // gone meanwhile, or not ours to read
                }
            }
        }
        return out;
    }

    /** {@code bin/lower-half}, or an MPI's {@code bin/lower-half-MPI}. */
    static boolean isLowerHalf(String argv0) {
        String name = Path.of(argv0).getFileName().toString();
        return name.equals("lower-half") || name.startsWith("lower-half-");
    }

    /** A launched rank (not a restart) of the job that checkpoints into {@code ckptDir}, and its rank. */
    public record Launched(long pid, int rank) {
    }

    /**
     * Every process of this user that runs a launched lower half ({@code bin/lower-half[-MPI] PROGRAM ...},
     * not {@code --restore}) with {@code MANA_CKPT_DIR} (as {@code mana_launch} exports it) equal to
     * {@code ckptDir}: the ranks of one job.
     */
    public static List<Launched> launched(Path ckptDir) throws IOException {
        // the launcher may not have created the directory yet
        Path want = Files.exists(ckptDir) ? ckptDir.toRealPath() : ckptDir.toAbsolutePath().normalize();
        List<Launched> out = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    List<String> argv = nulSplit(Files.readAllBytes(p.resolve("cmdline")));
                    if (argv.size() < 2 || !isLowerHalf(argv.get(0)) || argv.contains("--restore")) {
                        continue;
                    }
                    List<String> env = nulSplit(Files.readAllBytes(p.resolve("environ")));
                    String dir = env.stream().filter(kv -> kv.startsWith("MANA_CKPT_DIR=")).map(kv -> kv.substring(14))
                            .findFirst().orElse(null);
                    if (dir == null) {
                        continue;
                    }
                    Path d = Path.of(dir);
                    if (!d.isAbsolute()) {
                        d = Files.readSymbolicLink(p.resolve("cwd")).resolve(d);
                    }
                    if ((Files.exists(d) ? d.toRealPath() : d.toAbsolutePath().normalize()).equals(want)) {
                        out.add(new Launched(Long.parseLong(name), rankOf(env)));
                    }
                } catch (IOException | RuntimeException e) {
                    // gone meanwhile, or not ours to read
                }
            }
        }
        return out;
    }

    static int rankOf(List<String> environ) {
        for (String var : RANK_VARS) {
            for (String kv : environ) {
                if (kv.startsWith(var + "=")) {
                    try {
                        return Integer.parseInt(kv.substring(var.length() + 1).trim());
                    } catch (NumberFormatException e) {
                        return -1;
                    }
                }
            }
        }
        return 0;
    }

    /** The image a restarted process restores: the {@code .mana} file it maps, else the newest of its rank's directory. */
    public static Path imageOf(long pid, Path restartDir, int rank) throws IOException {
        for (ProcMaps.Mapping m : ProcMaps.read(pid)) {
            if (m.path().endsWith(".mana") && Files.isRegularFile(Path.of(m.path()))) {
                return Path.of(m.path());
            }
        }
        if (restartDir == null) {
            return null;
        }
        try {
            CheckpointDirectory cd = CheckpointDirectory.scan(restartDir);
            Path best = null;
            long gen = -1;
            for (CheckpointDirectory.RankDir rd : cd.ranks()) {
                if (rd.rank() != rank) {
                    continue;
                }
                for (CheckpointDirectory.ImageFile f : rd.images()) {
                    if (f.error() == null && f.generation() > gen) {
                        gen = f.generation();
                        best = f.path();
                    }
                }
            }
            return best;
        } catch (ImageException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /**
     * Whether the process's main thread waits in the lower half's restart pause loop: it sleeps in
     * {@code nanosleep} with its instruction pointer inside {@code lh_restart_pause} of
     * {@code bin/lower-half} ({@code /proc/PID/syscall}: number, six arguments, stack pointer, pc).
     * One sample: between two sleeps of the loop the process runs and this says false, so callers
     * poll until it says true.
     */
    public static boolean inRestartPause(long pid) {
        return inPauseLoop(pid, RuntimeSymbols.LH_RESTART_PAUSE);
    }

    /** Whether a launched rank waits in the lower half's launch pause ({@code MANA_LAUNCH_PAUSE}), as above. */
    public static boolean inLaunchPause(long pid) {
        return inPauseLoop(pid, RuntimeSymbols.LH_LAUNCH_PAUSE);
    }

    private static boolean inPauseLoop(long pid, String function) {
        try {
            String[] f = Files.readString(Path.of("/proc/" + pid + "/syscall")).trim().split("\\s+");
            if (f.length < 9 || !f[0].equals("35")) {
                return false;
            }
            long pc = Long.parseUnsignedLong(f[8].replace("0x", ""), 16);
            Path exe = Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe"));
            ElfFile elf = ElfFile.read(exe);
            long[] fn = elf.symbolRange(function);
            if (fn == null) {
                return false;
            }
            for (ProcMaps.Mapping m : ProcMaps.read(pid)) {
                if (m.path().equals(exe.toString())) {
                    Long bias = elf.biasFor(m.start(), m.offset());
                    if (bias != null) {
                        long lo = bias + fn[0];
                        return Long.compareUnsigned(pc, lo) >= 0 && Long.compareUnsigned(pc, lo + fn[1]) < 0;
                    }
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The {@code --restore DIR} of a process, or null when it is no restart. */
    public static Path restoreDirOf(long pid) {
        try {
            List<String> argv = nulSplit(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")));
            int i = argv.indexOf("--restore");
            if (i < 0 || i + 1 >= argv.size()) {
                return null;
            }
            Path dir = Path.of(argv.get(i + 1));
            return dir.isAbsolute() ? dir : Files.readSymbolicLink(Path.of("/proc/" + pid + "/cwd")).resolve(dir);
        } catch (IOException e) {
            return null;
        }
    }

    private static List<String> nulSplit(byte[] b) {
        String s = new String(b, StandardCharsets.UTF_8);
        if (s.isEmpty()) {
            return List.of();
        }
        return Arrays.asList(s.split("\0"));
    }
}
