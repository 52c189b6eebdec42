package dev.mana.inspector;

import java.util.List;
import java.util.Locale;

/** The MPI state of an image as text: what {@code mana_inspect mpi} prints and the Eclipse image editor shows. */
public final class MpiText {
    private static final String[] MODES = {"CREATE", "RDONLY", "WRONLY", "RDWR", "DELETE_ON_CLOSE", "UNIQUE_OPEN", "EXCL",
        "APPEND", "SEQUENTIAL"};

    private MpiText() {
    }

    /** MPI_MODE_* bits by name ("CREATE|RDWR"): the values are the same in Open MPI 4.1 and MPICH 4.0. */
    public static String amode(int a) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < MODES.length; i++) {
            if ((a & (1 << i)) != 0) {
                b.append(b.length() == 0 ? "" : "|").append(MODES[i]);
            }
        }
        int rest = a & ~((1 << MODES.length) - 1);
        if (rest != 0) {
            b.append(b.length() == 0 ? "" : "|").append(String.format(Locale.ROOT, "0x%x", rest));
        }
        return b.length() == 0 ? "0" : b.toString();
    }

    /** The summary's lines and the table of open files, each line ending in a newline. */
    public static String describe(MpiSummary s, List<MpiObject> objects) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "MPI %s, thread level %d%s%n", s.kindName(), s.threadLevel(),
                s.finalized() ? ", finalized" : ""));
        b.append(String.format(Locale.ROOT, "  communicators %d, groups %d, derived datatypes %d, user ops %d, pending requests %d%n",
                s.comms(), s.groups(), s.datatypes(), s.ops(), s.requests()));
        b.append(String.format(Locale.ROOT, "  point-to-point: %d sent, %d received; %d drained message(s) waiting (%d bytes)%n",
                s.sent(), s.received(), s.bufferedMsgs(), s.bufferedBytes()));
        b.append(String.format(Locale.ROOT, "  object recipes replayed at restart: %d%n", s.replayEntries()));
        List<MpiObject> files = objects.stream().filter(o -> o.kind() == MpiObject.FILE).toList();
        b.append(String.format(Locale.ROOT, "open MPI-IO files: %d%n", files.size()));
        if (!files.isEmpty()) {
            b.append(String.format(Locale.ROOT, "  %-28s %5s %12s %12s %10s %-20s %s%n", "MODE", "COMM", "POSITION", "SHARED",
                    "DISP", "FLAGS", "PATH"));
            for (MpiObject o : files) {
                b.append(String.format(Locale.ROOT, "  %-28s %5d %12d %12s %10d %-20s %s%n", amode(o.amode()), o.commSize(),
                        o.position(), (o.flags() & MpiObject.SHARED_FP) != 0 ? Long.toString(o.sharedPosition()) : "-",
                        o.disp(), o.flagNames(), o.name()));
            }
        }
        List<MpiObject> wins = objects.stream().filter(o -> o.kind() == MpiObject.WINDOW).toList();
        b.append(String.format(Locale.ROOT, "windows: %d%n", wins.size()));
        if (!wins.isEmpty()) {
            b.append(String.format(Locale.ROOT, "  %-10s %5s %12s %9s %18s %-20s %s%n", "FLAVOR", "COMM", "SIZE", "DISP_UNIT",
                    "BASE", "EPOCHS", "NAME"));
            for (MpiObject o : wins) {
                b.append(String.format(Locale.ROOT, "  %-10s %5d %12d %9d %18s %-20s %s%n", flavor(o.amode()), o.commSize(),
                        o.position(), o.sharedPosition(), String.format(Locale.ROOT, "0x%x", o.disp()), o.flagNames(),
                        o.name().isEmpty() ? "-" : o.name()));
            }
        }
        return b.toString();
    }

    /** MPI_WIN_FLAVOR_* by name (1 create, 2 allocate, 3 dynamic, 4 shared in both MPIs). */
    public static String flavor(int f) {
        switch (f) {
            case 1: return "create";
            case 2: return "allocate";
            case 3: return "dynamic";
            case 4: return "shared";
            default: return Integer.toString(f);
        }
    }
}
