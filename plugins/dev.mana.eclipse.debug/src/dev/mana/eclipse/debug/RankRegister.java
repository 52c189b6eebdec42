package dev.mana.eclipse.debug;

import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.Registers;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.model.DebugElement;
import org.eclipse.debug.core.model.IRegister;
import org.eclipse.debug.core.model.IRegisterGroup;
import org.eclipse.debug.core.model.IValue;
import org.eclipse.debug.core.model.IVariable;

/** One register of a frame, in hex as gdb prints it; changed since the last stop when it differs; writable. */
public final class RankRegister extends DebugElement implements IRegister {
    private final RankRegisterGroup group;
    private final String name;
    private String value;
    private boolean changed;

    RankRegister(RankRegisterGroup group, String name, String value) {
        super(group.getDebugTarget());
        this.group = group;
        this.name = name;
        set(value);
    }

    private RankDebugTarget target() {
        return (RankDebugTarget) getDebugTarget();
    }

    private synchronized void set(String v) {
        value = v;
        RankStackFrame f = group.frame();
        changed = target().history().record("reg/" + ((RankThread) f.getThread()).gdbId() + "/" + f.frame().level()
                + "/" + name, v);
    }

    @Override
    public IRegisterGroup getRegisterGroup() { return group; }
    @Override
    public String getModelIdentifier() { return ManaDebugModel.ID; }
    @Override
    public String getName() { return name; }
    @Override
    public String getReferenceTypeName() { return "register"; }
    @Override
    public synchronized boolean hasValueChanged() { return changed; }

    @Override
    public IValue getValue() {
        return new Value();
    }

    private final class Value extends DebugElement implements IValue {
        Value() {
            super(RankRegister.this.getDebugTarget());
        }

        @Override
        public String getModelIdentifier() { return ManaDebugModel.ID; }
        @Override
        public String getReferenceTypeName() { return "register"; }
        @Override
        public String getValueString() {
            synchronized (RankRegister.this) {
                return value;
            }
        }
        @Override
        public boolean isAllocated() { return true; }
        @Override
        public IVariable[] getVariables() { return new IVariable[0]; }
        @Override
        public boolean hasVariables() { return false; }
    }

    @Override
    public void setValue(String expression) throws DebugException {
        if (!target().isSuspended()) {
            throw ManaDebugModel.debugError(new MiException(null, "the rank is running: suspend it to change $" + name));
        }
        RankStackFrame f = group.frame();
        try {
            Registers.write(target().debugger().gdb(), ((RankThread) f.getThread()).gdbId(), f.frame().level(), name,
                    expression);
            // read back as the group shows it (hex)
            int n = target().registerNames().indexOf(name);
            String now = Registers.values(target().debugger().gdb(), ((RankThread) f.getThread()).gdbId(),
                    f.frame().level(), java.util.List.of(n)).getOrDefault(n, "");
            synchronized (this) {
                set(now);
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

    /** Scalar registers; vector registers print as unions of lanes, changed lane by lane in the gdb console. */
    @Override
    public boolean supportsValueModification() {
        synchronized (this) {
            return value != null && !value.startsWith("{");
        }
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
