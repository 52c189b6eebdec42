package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import java.util.List;

/** {@code -thread-info}: every thread, each with its id, name, state and current frame. */
public final class MiThreadInfo extends MiCommand<List<MiTuple>> {
    @Override
    public String line() {
        return "-thread-info";
    }

    @Override
    public List<MiTuple> result(MiResponse response) {
        return MiAnswers.tuples(response, "threads");
    }
}
