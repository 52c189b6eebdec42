package dev.mana.eclipse.debug;

import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.Registers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.model.DebugElement;
import org.eclipse.debug.core.model.IRegister;
import org.eclipse.debug.core.model.IRegisterGroup;

/**
 * One of gdb's register groups (general, float, sse, vector, system, ...) in one frame: the Registers view
 * shows one node per group; its registers' values are read in one {@code -data-list-register-values}
 * when the group is expanded.
 */
public final class RankRegisterGroup extends DebugElement implements IRegisterGroup {
    private final RankStackFrame frame;
    private final Registers.Group group;
    private IRegister[] registers;

    RankRegisterGroup(RankStackFrame frame, Registers.Group group) {
        super(frame.getDebugTarget());
        this.frame = frame;
        this.group = group;
    }

    @Override
    public String getModelIdentifier() { return ManaDebugModel.ID; }

    @Override
    public String getName() { return group.name(); }

    RankStackFrame frame() { return frame; }

    @Override
    public synchronized IRegister[] getRegisters() throws DebugException {
        if (registers != null) {
            return registers;
        }
        RankDebugTarget t = (RankDebugTarget) getDebugTarget();
        try {
            List<String> names = t.registerNames();
            List<Integer> numbers = new ArrayList<>();
            for (String r : group.registers()) {
                int n = names.indexOf(r);
                if (n >= 0) {
                    numbers.add(n);
                }
            }
            String thread = ((RankThread) frame.getThread()).gdbId();
            Map<Integer, String> values = Registers.values(t.debugger().gdb(), thread, frame.frame().level(), numbers);
            List<IRegister> out = new ArrayList<>();
            for (int n : numbers) {
                String v = values.get(n);
                if (v != null) { // --skip-unavailable: a register this frame cannot know is left out
                    out.add(new RankRegister(this, names.get(n), v));
                }
            }
            registers = out.toArray(new IRegister[0]);
            return registers;
        } catch (MiException e) {
            throw ManaDebugModel.debugError(e);
        }
    }

    @Override
    public boolean hasRegisters() { return !group.registers().isEmpty(); }
}
