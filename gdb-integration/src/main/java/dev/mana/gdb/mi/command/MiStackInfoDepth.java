package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;

/** {@code -stack-info-depth --thread T}: how many frames the thread has; null if the answer says none. */
public final class MiStackInfoDepth extends MiCommand<Integer> {
    private final String thread;

    public MiStackInfoDepth(String thread) {
        this.thread = thread;
    }

    @Override
    public String line() {
        return new MiLine("-stack-info-depth").thread(thread).toString();
    }

    @Override
    public Integer result(MiResponse response) {
        String depth = response.results().getString("depth");
        return depth == null ? null : Integer.parseInt(depth);
    }
}
