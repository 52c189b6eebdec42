package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import java.util.List;

/** {@code -var-list-children --all-values "VAROBJ" FROM TO}: children [FROM, TO) with their values. */
public final class MiVarListChildren extends MiCommand<List<MiTuple>> {
    private final String varobj;
    private final int from;
    private final int to;

    public MiVarListChildren(String varobj, int from, int to) {
        this.varobj = varobj;
        this.from = from;
        this.to = to;
    }

    /** Every child of {@code varobj}, with its value. */
    public static MiVarListChildren all(String varobj) {
        return new MiVarListChildren(varobj, -1, -1);
    }

    @Override
    public String line() {
        MiLine l = new MiLine("-var-list-children").add("--all-values").quoted(varobj);
        return from < 0 ? l.toString() : l.add(from).add(to).toString();
    }

    @Override
    public List<MiTuple> result(MiResponse response) {
        return MiAnswers.tuples(response, "children");
    }
}
