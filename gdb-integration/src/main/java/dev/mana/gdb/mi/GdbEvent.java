package dev.mana.gdb.mi;

/** Asynchronous events of a GDB/MI session, typed from the async records GDB sends. */
public sealed interface GdbEvent {

    /** The async record this event comes from (null for {@link GdbExited}). */
    MiRecord.Async record();

    /** {@code *stopped}: a breakpoint, a signal, the end of a step, an exit... */
    record Stopped(String reason, String threadId, MiTuple frame, MiRecord.Async record) implements GdbEvent {
        /** "exited", "exited-normally", "exited-signalled": the inferior is gone. */
        public boolean isExit() {
            return reason != null && reason.startsWith("exited");
        }
    }

    /** {@code *running}: thread {@code threadId} (or "all") resumed. */
    record Running(String threadId, MiRecord.Async record) implements GdbEvent {
    }

    /** {@code =thread-created} / {@code =thread-exited}. */
    record ThreadChanged(String threadId, String groupId, boolean created, MiRecord.Async record) implements GdbEvent {
    }

    /** {@code =thread-selected}: the user (or a command) switched threads. */
    record ThreadSelected(String threadId, MiTuple frame, MiRecord.Async record) implements GdbEvent {
    }

    /** {@code =library-loaded} / {@code =library-unloaded}. */
    record LibraryChanged(String id, String targetName, String hostName, boolean symbolsLoaded, boolean loaded,
                          MiRecord.Async record) implements GdbEvent {
    }

    /** {@code =thread-group-started} (attach or run: {@code pid}) / {@code =thread-group-exited} ({@code exitCode}). */
    record ProcessChanged(String groupId, String pid, String exitCode, boolean started, MiRecord.Async record)
            implements GdbEvent {
    }

    /** Any other async record (breakpoint-modified, cmd-param-changed, download progress...). */
    record Other(MiRecord.Async record) implements GdbEvent {
    }

    /** The gdb process itself ended; no more events follow. */
    record GdbExited(int status) implements GdbEvent {
        @Override
        public MiRecord.Async record() {
            return null;
        }
    }

    /** The typed event of an async record. */
    static GdbEvent of(MiRecord.Async a) {
        MiTuple r = a.results();
        String cls = a.asyncClass();
        if (a.kind() == MiRecord.AsyncKind.EXEC) {
            if (cls.equals("stopped")) {
                return new Stopped(r.getString("reason"), r.getString("thread-id"), r.getTuple("frame"), a);
            }
            if (cls.equals("running")) {
                return new Running(r.getString("thread-id"), a);
            }
        } else if (a.kind() == MiRecord.AsyncKind.NOTIFY) {
            switch (cls) {
                case "thread-created", "thread-exited" -> {
                    return new ThreadChanged(r.getString("id"), r.getString("group-id"), cls.equals("thread-created"), a);
                }
                case "thread-selected" -> {
                    return new ThreadSelected(r.getString("id"), r.getTuple("frame"), a);
                }
                case "library-loaded", "library-unloaded" -> {
                    return new LibraryChanged(r.getString("id"), r.getString("target-name"), r.getString("host-name"),
                            "1".equals(r.getString("symbols-loaded")), cls.equals("library-loaded"), a);
                }
                case "thread-group-started", "thread-group-exited" -> {
                    return new ProcessChanged(r.getString("id"), r.getString("pid"), r.getString("exit-code"),
                            cls.equals("thread-group-started"), a);
                }
                default -> {
                    return new Other(a);
                }
            }
        }
        return new Other(a);
    }
}
