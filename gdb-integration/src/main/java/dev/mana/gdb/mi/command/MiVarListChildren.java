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

    @Override
    public String line() {
        return new MiLine("-var-list-children").add("--all-values").quoted(varobj).add(from).add(to).toString();
    }

    @Override
    public List<MiTuple> result(MiResponse response) {
        return MiAnswers.tuples(response, "children");
    }
}
