package dev.mana.dap.session;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The attributes of a {@code launch} or {@code attach} request, typed and checked. DAP hands them over
 * as free JSON (whatever the client's {@code launch.json} holds), so every attribute is read here once
 * and a wrong one is reported by name instead of failing somewhere later.
 *
 * <p>What the request does follows from the attributes present:
 * <ul>
 *   <li>launch with {@code restartdir}: {@code mana_restart --debug-rank R --debug-level N}, the rank is
 *       attached at its restart pause;</li>
 *   <li>launch with {@code program}: {@code mana_launch} with {@code MANA_LAUNCH_PAUSE=1}, the rank is run
 *       to the program's {@code main};</li>
 *   <li>attach with {@code pid}, or with {@code rank} and {@code restartdir}: the running or paused rank.</li>
 * </ul>
 */
public record LaunchSpec(
        Kind kind,
        Path restartDir,
        String program,
        List<String> args,
        Path ckptDir,
        Integer rank,
        int ranks,
        Integer pauseLevel,
        Long pid,
        List<String> mpirun,
        List<String> manaArgs,
        String job,
        Map<String, String> env,
        Path cwd,
        Path manaRoot,
        String gdb,
        boolean gdbTrace,
        boolean stopOnEntry,
        Duration timeout) {

    /** What the request asks for. */
    public enum Kind {
        /** launch: restart a rank from its checkpoint, paused. */
        RESTART,
        /** launch: start the program under the runtime, paused before it is loaded. */
        LAUNCH_PROGRAM,
        /** attach: a rank that runs or waits in its restart pause. */
        ATTACH
    }

    /** A launch or attach attribute that is missing, of the wrong type, or out of range. */
    public static final class BadAttribute extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        BadAttribute(String message) {
            super(message);
        }
    }

    public LaunchSpec {
        args = List.copyOf(args);
        mpirun = List.copyOf(mpirun);
        manaArgs = List.copyOf(manaArgs);
        env = Map.copyOf(env);
    }

    /** The rank to debug: the one given, else 0. */
    public int rankOr0() {
        return rankOr0(rank);
    }

    private static int rankOr0(Integer rank) {
        return rank == null ? 0 : rank;
    }

    /** The attributes of a {@code launch} request. */
    public static LaunchSpec forLaunch(Map<String, Object> a, Path defaultRoot) {
        Attrs at = new Attrs(a);
        Path restartDir = at.path("restartdir");
        String program = at.string("program");
        if ((restartDir == null) == (program == null)) {
            throw new BadAttribute("launch needs either \"restartdir\" (restart a rank from its checkpoint) or "
                    + "\"program\" (start it under the runtime), not " + (restartDir == null ? "neither" : "both"));
        }
        Kind kind = restartDir != null ? Kind.RESTART : Kind.LAUNCH_PROGRAM;
        Integer level = at.integer("pauseLevel");
        if (kind == Kind.RESTART) {
            level = level == null ? 2 : level;
            // level 1: the upper half is not in memory yet, so no breakpoint could be inserted before release
            if (level < 2 || level > 4) {
                throw new BadAttribute("\"pauseLevel\" must be 2, 3 or 4 (breakpoints need the upper half back), not "
                        + level);
            }
        } else if (level != null) {
            throw new BadAttribute("\"pauseLevel\" is for a restart (\"restartdir\"); a launched program waits in "
                    + "its launch pause");
        }
        Path ckpt = at.path("ckptdir");
        if (kind == Kind.LAUNCH_PROGRAM && ckpt == null) {
            throw new BadAttribute("launching \"program\" needs \"ckptdir\" (where its checkpoints go; its ranks are "
                    + "found by it)");
        }
        return build(at, kind, restartDir, program, ckpt, level, null, defaultRoot);
    }

    /** The attributes of an {@code attach} request. */
    public static LaunchSpec forAttach(Map<String, Object> a, Path defaultRoot) {
        Attrs at = new Attrs(a);
        Long pid = at.longValue("pid");
        Path restartDir = at.path("restartdir");
        if (pid == null && restartDir == null) {
            throw new BadAttribute("attach needs \"pid\", or \"rank\" and \"restartdir\" (the directory the rank restores)");
        }
        Integer level = at.integer("pauseLevel");
        if (level != null && (level < 1 || level > 4)) {
            throw new BadAttribute("\"pauseLevel\" must be 1-4, not " + level);
        }
        for (String launchOnly : List.of("program", "mpirun", "manaArgs")) {
            if (a.containsKey(launchOnly)) {
                throw new BadAttribute("\"" + launchOnly + "\" is for launch, not attach");
            }
        }
        return build(at, Kind.ATTACH, restartDir, null, null, level, pid, defaultRoot);
    }

    private static LaunchSpec build(Attrs at, Kind kind, Path restartDir, String program, Path ckpt, Integer level,
                                    Long pid, Path defaultRoot) {
        // absent: rank 0 for a launch; for an attach by pid, whatever rank the process says it is
        Integer rank = at.integer("rank");
        if (rank != null && rank < 0) {
            throw new BadAttribute("\"rank\" must be 0 or more, not " + rank);
        }
        if (kind == Kind.ATTACH && pid == null && rank == null) {
            throw new BadAttribute("attach with \"restartdir\" needs \"rank\" (or give \"pid\")");
        }
        int ranks = at.integer("ranks", 1);
        if (ranks < 1 || rankOr0(rank) >= ranks) {
            throw new BadAttribute("\"ranks\" (the job's size, " + ranks + ") must be more than \"rank\" ("
                    + rankOr0(rank) + ")");
        }
        int timeoutSec = at.integer("timeout", 60);
        if (timeoutSec < 1) {
            throw new BadAttribute("\"timeout\" is in seconds and at least 1, not " + timeoutSec);
        }
        Path root = at.path("manaRoot");
        return new LaunchSpec(kind, restartDir, program, at.strings("args"), ckpt, rank, ranks, level, pid,
                at.strings("mpirun"), at.strings("manaArgs"), at.string("job"), at.stringMap("env"), at.path("cwd"),
                root != null ? root : defaultRoot, at.string("gdb", "gdb"), at.bool("gdbTrace"), at.bool("stopOnEntry"),
                Duration.ofSeconds(timeoutSec));
    }

    /** Typed reads of the JSON attributes (Gson gives numbers as doubles, lists as lists, objects as maps). */
    private record Attrs(Map<String, Object> a) {
        Object raw(String name) {
            return a == null ? null : a.get(name);
        }

        String string(String name) {
            Object v = raw(name);
            if (v == null) {
                return null;
            }
            if (!(v instanceof String s)) {
                throw new BadAttribute("\"" + name + "\" must be a string, not " + v);
            }
            return s.isEmpty() ? null : s;
        }

        String string(String name, String dflt) {
            String s = string(name);
            return s == null ? dflt : s;
        }

        Path path(String name) {
            String s = string(name);
            return s == null ? null : Path.of(s).toAbsolutePath().normalize();
        }

        Long longValue(String name) {
            Object v = raw(name);
            if (v == null) {
                return null;
            }
            if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
                return n.longValue();
            }
            if (v instanceof String s && s.matches("\\d+")) {
                return Long.parseLong(s); // ${command:pickProcess} in VS Code gives a string
            }
            throw new BadAttribute("\"" + name + "\" must be a whole number, not " + v);
        }

        Integer integer(String name) {
            Long l = longValue(name);
            if (l == null) {
                return null;
            }
            if (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
                throw new BadAttribute("\"" + name + "\" is out of range: " + l);
            }
            return l.intValue();
        }

        int integer(String name, int dflt) {
            Integer i = integer(name);
            return i == null ? dflt : i;
        }

        boolean bool(String name) {
            Object v = raw(name);
            if (v == null) {
                return false;
            }
            if (!(v instanceof Boolean b)) {
                throw new BadAttribute("\"" + name + "\" must be true or false, not " + v);
            }
            return b;
        }

        List<String> strings(String name) {
            Object v = raw(name);
            if (v == null) {
                return List.of();
            }
            if (v instanceof String s) {
                return List.of(s.trim().split("\\s+")); // "mpirun -n 4" written as one string
            }
            if (!(v instanceof List<?> l)) {
                throw new BadAttribute("\"" + name + "\" must be a list of strings, not " + v);
            }
            List<String> out = new ArrayList<>();
            for (Object o : l) {
                if (o instanceof String s) {
                    out.add(s);
                } else if (o instanceof Number n) {
                    out.add(n.doubleValue() == Math.rint(n.doubleValue()) ? Long.toString(n.longValue()) : n.toString());
                } else {
                    throw new BadAttribute("\"" + name + "\" must be a list of strings; item " + o + " is not");
                }
            }
            return out;
        }

        Map<String, String> stringMap(String name) {
            Object v = raw(name);
            if (v == null) {
                return Map.of();
            }
            if (!(v instanceof Map<?, ?> m)) {
                throw new BadAttribute("\"" + name + "\" must be an object of NAME: \"value\", not " + v);
            }
            Map<String, String> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                Object val = e.getValue();
                if (val instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
                    val = Long.toString(n.longValue());
                }
                if (!(val instanceof String) && !(val instanceof Boolean)) {
                    throw new BadAttribute("\"" + name + "\"." + e.getKey() + " must be a string, not " + val);
                }
                out.put(String.valueOf(e.getKey()), String.valueOf(val));
            }
            return out;
        }
    }
}
