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
    private final String values;

    /** Names only ({@code --no-values}). */
    public MiStackListVariables(MiFrame frame) {
        this(frame, "--no-values");
    }

    private MiStackListVariables(MiFrame frame, String values) {
        this.frame = frame;
        this.values = values;
    }

    /** With the values of simple types and the type of the others ({@code --simple-values}). */
    public static MiStackListVariables simpleValues(MiFrame frame) {
        return new MiStackListVariables(frame, "--simple-values");
    }

    @Override
    public String line() {
        return new MiLine("-stack-list-variables").frame(frame).add(values).toString();
    }

    @Override
    public List<MiTuple> result(MiResponse response) {
        return MiAnswers.tuples(response, "variables");
    }
}
