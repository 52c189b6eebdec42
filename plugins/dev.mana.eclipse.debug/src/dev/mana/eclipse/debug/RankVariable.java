package dev.mana.eclipse.debug;

import dev.mana.gdb.mi.Expressions;
import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.command.MiFrame;
import dev.mana.gdb.mi.command.MiVarCreate;
import dev.mana.gdb.mi.command.MiVarListChildren;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.model.DebugElement;
import org.eclipse.debug.core.model.IValue;
import org.eclipse.debug.core.model.IVariable;

/**
 * A local, an argument, a watch expression, or a child of a struct or array. Scalars come with their value
 * from {@code -stack-list-variables --simple-values}; aggregates are expanded through an MI variable object
 * ({@code -var-create}, {@code -var-list-children}), made when first asked for. Scalars can be changed
 * ({@code -var-assign}); a value that differs from the last stop's says so ({@link ValueHistory}), which
 * the views highlight.
 */
public final class RankVariable extends DebugElement implements IVariable {
    private final RankDebugTarget target;
    private final String threadId;
    private final int frameLevel;
    private final String name;
    private final String type;
    private final boolean argument;
    /** Where the value lives, for change highlighting: thread/function/name(.child...). */
    private final String key;
    private String value;
    private String varObject;
    private int childCount = -1;
    private boolean changed;

    RankVariable(RankDebugTarget target, String threadId, int frameLevel, String function, String name, String type,
                 String value, boolean argument) {
        this(target, threadId, frameLevel, name, type, value, argument, threadId + "/" + function + "/" + name);
    }

    private RankVariable(RankDebugTarget target, String threadId, int frameLevel, String name, String type, String value,
                         boolean argument, String key) {
        super(target);
        this.target = target;
        this.threadId = threadId;
        this.frameLevel = frameLevel;
        this.name = name;
        this.type = type;
        this.argument = argument;
        this.key = key;
        setValueString(value);
    }

    private RankVariable(RankDebugTarget target, String varObject, String name, String type, String value, int children,
                         String key) {
        this(target, null, 0, name, type, value, false, key);
        this.varObject = varObject;
        this.childCount = children;
    }

    private synchronized void setValueString(String v) {
        value = v;
        changed = target.history().record(key, v);
    }

    public boolean isArgument() { return argument; }

    @Override
    public String getModelIdentifier() { return ManaDebugModel.ID; }
    @Override
    public String getName() { return name; }
    @Override
    public String getReferenceTypeName() { return type == null ? "" : type; }
    @Override
    public synchronized boolean hasValueChanged() { return changed; }

    @Override
    public IValue getValue() throws DebugException {
        return new Value();
    }

    /** The MI variable object, made on first use. */
    private synchronized String varObject() throws MiException {
        if (varObject == null) {
            MiTuple r = target.debugger().gdb().run(new MiVarCreate(new MiFrame(threadId, frameLevel), name));
            varObject = r.getString("name");
            childCount = Integer.parseInt(r.getString("numchild", "0"));
            if (value == null) {
                setValueString(r.getString("value"));
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
        public String getReferenceTypeName() { return type == null ? "" : type; }

        @Override
        public String getValueString() throws DebugException {
            synchronized (RankVariable.this) {
                if (value == null) {
                    try {
                        varObject();
                    } catch (MiException e) {
                        throw ManaDebugModel.debugError(e);
                    }
                }
                return value == null ? "" : value;
            }
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
                List<MiTuple> children = target.debugger().gdb().run(MiVarListChildren.all(vo));
                List<IVariable> out = new ArrayList<>();
                for (MiTuple ch : children) {
                    String exp = ch.getString("exp");
                    out.add(new RankVariable(target, ch.getString("name"), exp, ch.getString("type"),
                            ch.getString("value"), Integer.parseInt(ch.getString("numchild", "0")), key + "." + exp));
                }
                return out.toArray(new IVariable[0]);
            } catch (MiException e) {
                throw ManaDebugModel.debugError(e);
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

    // --- changing a value: -var-assign on the variable object ---

    @Override
    public void setValue(String expression) throws DebugException {
        if (!target.isSuspended()) {
            throw ManaDebugModel.debugError(new MiException(null, "the rank is running: suspend it to change " + name));
        }
        try {
            String vo = varObject();
            String now = Expressions.assign(target.debugger().gdb(), vo, expression);
            synchronized (this) {
                setValueString(now);
                changed = true;
            }
        } catch (MiException e) {
            throw ManaDebugModel.debugError(e);
        }
        fireChangeEvent(DebugEvent.CONTENT);
    }

    @Override
    public void setValue(IValue v) throws DebugException {
        setValue(v.getValueString());
    }

    /** Scalars and pointers can be assigned; structs and arrays are changed member by member. */
    @Override
    public boolean supportsValueModification() {
        try {
            varObject();
        } catch (MiException e) {
            return false;
        }
        return childCount == 0 || (type != null && type.endsWith("*"));
    }

    @Override
    public boolean verifyValue(String expression) {
        return expression != null && !expression.isBlank() && supportsValueModification();
    }

    @Override
    public boolean verifyValue(IValue v) {
        try {
            return verifyValue(v.getValueString());
        } catch (DebugException e) {
            return false;
        }
    }
}
