package dev.mana.inspector;

import java.util.List;

/** One record of the THREADS section of our format. */
public record ThreadInfo(
        int tid, int flags, long fsBase, long gsBase, long ctidAddr, long stackStart, long stackEnd,
        long ucontextAddr, long ctxAddr, long sigmask, long robustList, long robustListLen,
        long altstackSp, long altstackSize, int altstackFlags, List<Long> gregs) {

    public static final int MAIN = ImageLayout.THR_MAIN;
    public static final int CKPT = ImageLayout.THR_CKPT;

    /** Names of {@link #gregs()}, in the order of the kernel's mcontext gregs. */
    public static final List<String> GREG_NAMES = List.of(
            "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rdi", "rsi", "rbp", "rbx",
            "rdx", "rax", "rcx", "rsp", "rip", "eflags", "csgsfs", "err", "trapno", "oldmask", "cr2");

    public ThreadInfo {
        gregs = List.copyOf(gregs);
    }

    public boolean main() {
        return (flags & MAIN) != 0;
    }

    public boolean checkpointThread() {
        return (flags & CKPT) != 0;
    }

    public long register(String name) {
        int i = GREG_NAMES.indexOf(name);
        return i < 0 || i >= gregs.size() ? 0 : gregs.get(i);
    }
}
