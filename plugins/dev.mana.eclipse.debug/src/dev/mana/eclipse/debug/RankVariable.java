package dev.mana.eclipse.debug;

import dev.mana.gdb.mi.MiEscapes;
import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.MiValue;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.model.DebugElement;
import org.eclipse.debug.core.model.IValue;
import org.eclipse.debug.core.model.IVariable;

/**
 * A local, an argument, or a child of a struct or array. Scalars come with their value from
 * {@code -stack-list-variables --simple-values}; aggregates are expanded through an MI variable object
 * ({@code -var-create}, {@code -var-list-children}), made when first asked for.
 */
public final class RankVariable extends DebugElement implements IVariable {
    private final RankDebugTarget target;
    private final String threadId;
    private final int frameLevel;
    private final String name;
    private final String type;
    private final boolean argument;
    private String value;
    private String varObject;
    private int childCount = -1;

    RankVariable(RankDebugTarget target, String threadId, int frameLevel, String name, String type, String value,
                 boolean argument) {
        super(target);
        this.target = target;
        this.threadId = threadId;
        this.frameLevel = frameLevel;
        this.name = name;
        this.type = type;
        this.value = value;
        this.argument = argument;
    }

    private RankVariable(RankDebugTarget target, String varObject, String name, String type, String value, int children) {
        this(target, null, 0, name, type, value, false);
        this.varObject = varObject;
        this.childCount = children;
    }

    public boolean isArgument() { return argument; }

    @Override
    public String getModelIdentifier() { return ManaDebugModel.ID; }
    @Override
    public String getName() { return name; }
    @Override
    public String getReferenceTypeName() { return type == null ? "" : type; }
    @Override
    public boolean hasValueChanged() { return false; }

    @Override
    public IValue getValue() throws DebugException {
        return new Value();
    }

    /** The MI variable object, made on first use. */
    private synchronized String varObject() throws MiException {
        if (varObject == null) {
            MiTuple r = target.debugger().gdb().execute("-var-create --thread " + threadId + " --frame " + frameLevel
                    + " - * " + MiEscapes.quote(name)).results();
            varObject = r.getString("name");
            childCount = Integer.parseInt(r.getString("numchild", "0"));
            if (value == null) {
                value = r.getString("value");
            }
            synchronized (target.varObjects) {
                target.varObjects.add(varObject);
            }
        }
        return varObject;
    }

    private final class Value extends DebugElement implements IValue {
        Value() {
            super(target);
        }

        @Override
        public String getModelIdentifier() { return ManaDebugModel.ID; }
        @Override
        public String getReferenceTypeName() { return getReferenceTypeName0(); }

        @Override
        public String getValueString() throws DebugException {
            if (value == null) {
                try {
                    varObject();
                } catch (MiException e) {
                    throw new DebugException(ManaDebugModel.error(e.getMessage(), e).getStatus());
                }
            }
            return value == null ? "" : value;
        }

        @Override
        public boolean isAllocated() { return true; }

        @Override
        public IVariable[] getVariables() throws DebugException {
            try {
                String vo = varObject();
                if (childCount == 0) {
                    return new IVariable[0];
                }
                MiTuple r = target.debugger().gdb().execute("-var-list-children --all-values " + vo).results();
                List<IVariable> out = new ArrayList<>();
                for (MiValue c : r.getList("children")) {
                    MiTuple ch = c.asTuple();
                    out.add(new RankVariable(target, ch.getString("name"), ch.getString("exp"), ch.getString("type"),
                            ch.getString("value"), Integer.parseInt(ch.getString("numchild", "0"))));
                }
                return out.toArray(new IVariable[0]);
            } catch (MiException e) {
                throw new DebugException(ManaDebugModel.error(e.getMessage(), e).getStatus());
            }
        }

        @Override
        public boolean hasVariables() throws DebugException {
            // pointers are "simple" for --simple-values yet have a child: ask gdb (one variable object)
            try {
                varObject();
            } catch (MiException e) {
                return false;
            }
            return childCount > 0;
        }
    }

    private String getReferenceTypeName0() {
        return type == null ? "" : type;
    }

    // values are read-only in this model
    @Override
    public void setValue(String expression) throws DebugException {
        throw new DebugException(ManaDebugModel.error("values cannot be changed here", null).getStatus());
    }
    @Override
    public void setValue(IValue v) throws DebugException {
        setValue("");
    }
    @Override
    public boolean supportsValueModification() { return false; }
    @Override
    public boolean verifyValue(String expression) { return false; }
    @Override
    public boolean verifyValue(IValue v) { return false; }
}
