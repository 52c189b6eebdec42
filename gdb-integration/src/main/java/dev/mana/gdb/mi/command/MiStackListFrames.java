package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import java.util.List;

/** {@code -stack-list-frames --thread T [LOW HIGH]}: the frames of one thread (levels LOW to HIGH). */
public final class MiStackListFrames extends MiCommand<List<MiTuple>> {
    private final String thread;
    private final int[] levels;

    public MiStackListFrames(String thread) {
        this.thread = thread;
        this.levels = null;
    }

    /** Frames {@code low} to {@code high}, both included. */
    public MiStackListFrames(String thread, int low, int high) {
        this.thread = thread;
        this.levels = new int[] {low, high};
    }

    @Override
    public String line() {
        MiLine l = new MiLine("-stack-list-frames").thread(thread);
        return (levels == null ? l : l.add(levels[0]).add(levels[1])).toString();
    }

    @Override
    public List<MiTuple> result(MiResponse response) {
        return MiAnswers.tuples(response, "stack");
    }
}
