package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import java.util.List;

/**
 * {@code -stack-list-variables --thread T --frame L --no-values}: the names of a frame's locals and
 * arguments (an argument's tuple has {@code arg="1"}).
 */
public final class MiStackListVariables extends MiCommand<List<MiTuple>> {
    private final MiFrame frame;

    public MiStackListVariables(MiFrame frame) {
        this.frame = frame;
    }

    @Override
    public String line() {
        return new MiLine("-stack-list-variables").frame(frame).add("--no-values").toString();
    }

    @Override
    public List<MiTuple> result(MiResponse response) {
        return MiAnswers.tuples(response, "variables");
    }
}
