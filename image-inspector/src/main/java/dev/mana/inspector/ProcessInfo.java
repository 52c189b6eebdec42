package dev.mana.inspector;

import java.util.List;

/** The PROCESS section of our format. Addresses are unsigned 64-bit values. */
public record ProcessInfo(
        int pid, int ppid, int sid, int pgid, int umask, int pthreadTidOffset,
        long lhInfoSlot, long vdsoStart, long vdsoEnd, long vvarStart, long vvarEnd,
        long upperStackStart, long upperStackEnd, long upperEntry,
        String executable, String cwd, List<String> argv) {
    public ProcessInfo {
        argv = List.copyOf(argv);
    }
}
