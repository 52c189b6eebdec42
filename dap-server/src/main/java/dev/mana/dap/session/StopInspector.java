package dev.mana.dap.session;

import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.command.MiDataEvaluateExpression;
import dev.mana.gdb.mi.command.MiFrame;
import dev.mana.gdb.mi.command.MiInterpreterExec;
import dev.mana.gdb.mi.command.MiStackInfoDepth;
import dev.mana.gdb.mi.command.MiStackListFrames;
import dev.mana.gdb.mi.command.MiStackListVariables;
import dev.mana.gdb.mi.command.MiVarAssign;
import dev.mana.gdb.mi.command.MiVarCreate;
import dev.mana.gdb.mi.command.MiVarDelete;
import dev.mana.gdb.mi.command.MiVarListChildren;
import dev.mana.gdb.split.SplitProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.lsp4j.debug.EvaluateResponse;
import org.eclipse.lsp4j.debug.Scope;
import org.eclipse.lsp4j.debug.ScopePresentationHint;
import org.eclipse.lsp4j.debug.SetVariableResponse;
import org.eclipse.lsp4j.debug.StackFrame;
import org.eclipse.lsp4j.debug.StackTraceResponse;
import org.eclipse.lsp4j.debug.Variable;

/**
 * What the client looks at while the rank is stopped: frames, scopes, variables, expressions. The ids it
 * hands out ({@code frameId}, {@code variablesReference}) and the gdb variable objects behind them live
 * until the next resume ({@link #clear}). The caller makes sure the rank is stopped; gdb answers
 * inspection commands on a running all-stop target with an error anyway.
 */
final class StopInspector {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** Children listed at most per request when the client gives no range (an array of a million). */
    private static final int MAX_CHILDREN = 1000;

    /** A frame the client got an id for. */
    private record FrameRef(int thread, int level) {
    }

    /** What a {@code variablesReference} stands for. */
    private sealed interface VarRef {
    }

    /** The locals or the arguments of a frame. */
    private record ScopeRef(FrameRef frame, boolean arguments) implements VarRef {
    }

    /** A gdb variable object with children. */
    private record VarobjRef(String varobj) implements VarRef {
    }

    private final GdbMi gdb;
    private final SplitProcess process;
    private final int lineBase;
    private final Handles<FrameRef> frames = new Handles<>();
    private final Handles<VarRef> vars = new Handles<>();
    /** Root variable objects made while stopped; deleted at the next resume (their children with them). */
    private final List<String> varobjs = new ArrayList<>();
    /** The variable object behind each variable the client was shown, by container reference and name. */
    private final Map<Integer, Map<String, String>> listed = new HashMap<>();

    StopInspector(GdbMi gdb, SplitProcess process, int lineBase) {
        this.gdb = gdb;
        this.process = process;
        this.lineBase = lineBase;
    }

    /**
     * Forgets every id; with {@code deleteVarobjs}, also deletes the variable objects in gdb (not when
     * the rank is gone or already running again: gdb dropped them, or would refuse).
     */
    void clear(boolean deleteVarobjs) {
        frames.clear();
        vars.clear();
        listed.clear();
        if (deleteVarobjs) {
            for (String v : varobjs) {
                gdb.send(new MiVarDelete(v)); // no need to wait: gdb runs commands in order
            }
        }
        varobjs.clear();
    }

    StackTraceResponse stackTrace(int thread, Integer startFrame, Integer levels) throws MiException {
        int start = startFrame == null ? 0 : Math.max(0, startFrame);
        boolean ranged = levels != null && levels > 0;
        String t = Integer.toString(thread);
        MiStackListFrames cmd = ranged ? new MiStackListFrames(t, start, start + levels - 1) : new MiStackListFrames(t);
        List<StackFrame> out = new ArrayList<>();
        for (MiTuple f : gdb.run(cmd, TIMEOUT)) {
            int level = Integer.parseInt(f.getString("level", "0"));
            if (level < start) {
                continue;
            }
            int id = frames.create(new FrameRef(thread, level));
            out.add(MiToDap.frame(id, f, process, lineBase));
        }
        StackTraceResponse resp = new StackTraceResponse();
        resp.setStackFrames(out.toArray(new StackFrame[0]));
        if (ranged) {
            resp.setTotalFrames(gdb.run(new MiStackInfoDepth(t), TIMEOUT));
        } else {
            resp.setTotalFrames(start + out.size());
        }
        return resp;
    }

    List<Scope> scopes(int frameId) throws MiException {
        FrameRef f = frame(frameId);
        Scope locals = new Scope();
        locals.setName("Locals");
        locals.setPresentationHint(ScopePresentationHint.LOCALS);
        locals.setVariablesReference(vars.create(new ScopeRef(f, false)));
        Scope args = new Scope();
        args.setName("Arguments");
        args.setPresentationHint(ScopePresentationHint.ARGUMENTS);
        args.setVariablesReference(vars.create(new ScopeRef(f, true)));
        return List.of(locals, args);
    }

    /**
     * The variables of a scope or the children of a structured value. Each local becomes a gdb variable
     * object: its value, its type and whether it has children come in one answer, and children are
     * listed by the object later without evaluating the expression again.
     */
    List<Variable> variables(int reference, Integer start, Integer count) throws MiException {
        VarRef r = vars.get(reference);
        if (r == null) {
            throw new MiException(null, "variables reference " + reference + " is gone (the rank ran since)");
        }
        List<Variable> out = new ArrayList<>();
        Map<String, String> shown = listed.computeIfAbsent(reference, k -> new HashMap<>());
        if (r instanceof ScopeRef s) {
            MiFrame where = MiFrame.of(s.frame().thread(), s.frame().level());
            for (MiTuple t : gdb.run(new MiStackListVariables(where), TIMEOUT)) {
                if ("1".equals(t.getString("arg")) != s.arguments()) {
                    continue;
                }
                String name = t.getString("name");
                out.add(newVarobj(where, name, shown));
            }
        } else if (r instanceof VarobjRef v) {
            int from = start == null ? 0 : start;
            int to = from + (count == null || count <= 0 ? MAX_CHILDREN : count);
            for (MiTuple t : gdb.run(new MiVarListChildren(v.varobj(), from, to), TIMEOUT)) {
                int ref = MiToDap.numChildren(t) > 0 ? vars.create(new VarobjRef(t.getString("name"))) : 0;
                out.add(MiToDap.variable(t.getString("exp"), t, ref, null));
                shown.put(t.getString("exp"), t.getString("name"));
            }
        }
        return out;
    }

    /** A root variable object for local {@code name} in frame {@code where}. */
    private Variable newVarobj(MiFrame where, String name, Map<String, String> shown) throws MiException {
        MiResponse c = gdb.executeAllowError(new MiVarCreate(where, name), TIMEOUT);
        if (c.isError()) {
            Variable v = new Variable();
            v.setName(name);
            v.setValue("<" + c.errorMessage() + ">");
            return v;
        }
        MiTuple t = c.results();
        varobjs.add(t.getString("name"));
        shown.put(name, t.getString("name"));
        int ref = MiToDap.numChildren(t) > 0 ? vars.create(new VarobjRef(t.getString("name"))) : 0;
        return MiToDap.variable(name, t, ref, name);
    }

    /**
     * Assigns a variable the client was shown (a local, an argument, a member or an element): gdb's
     * {@code -var-assign} on its variable object, which parses {@code value} as an expression of the
     * program's language. Returns the value as gdb now prints it.
     */
    SetVariableResponse setVariable(int reference, String name, String value) throws MiException {
        String varobj = listed.getOrDefault(reference, Map.of()).get(name);
        if (varobj == null) {
            throw new MiException(null, "no variable " + name + " under reference " + reference
                    + " (the rank ran since, or it was not listed)");
        }
        SetVariableResponse resp = new SetVariableResponse();
        resp.setValue(gdb.run(new MiVarAssign(varobj, value), TIMEOUT));
        return resp;
    }

    /**
     * The debug console's expression: {@code -data-evaluate-expression}, evaluated once (side effects
     * happen once) and printed as gdb prints it.
     */
    EvaluateResponse value(String expression, Integer frameId) throws MiException {
        EvaluateResponse resp = new EvaluateResponse();
        resp.setResult(gdb.run(new MiDataEvaluateExpression(where(frameId), expression), TIMEOUT));
        resp.setVariablesReference(0);
        return resp;
    }

    /** A gdb command typed in the debug console ({@code -exec CMD}), run in the frame; its printed text. */
    EvaluateResponse console(String command, Integer frameId) throws MiException {
        MiResponse r = gdb.execute(MiInterpreterExec.console(where(frameId), command), TIMEOUT);
        EvaluateResponse resp = new EvaluateResponse();
        resp.setResult(r.console().stripTrailing());
        resp.setVariablesReference(0);
        return resp;
    }

    /** A watch or hover: a variable object, so a structure expands like a local. */
    EvaluateResponse watch(String expression, Integer frameId) throws MiException {
        MiTuple t = gdb.run(new MiVarCreate(where(frameId), expression), TIMEOUT);
        varobjs.add(t.getString("name"));
        EvaluateResponse resp = new EvaluateResponse();
        resp.setResult(t.getString("value", ""));
        resp.setType(t.getString("type"));
        int n = MiToDap.numChildren(t);
        resp.setVariablesReference(n > 0 ? vars.create(new VarobjRef(t.getString("name"))) : 0);
        if (n > 0) {
            resp.setNamedVariables(n);
        }
        return resp;
    }

    /** The frame of a frame id, or null (gdb's selected frame) without one. */
    private MiFrame where(Integer frameId) throws MiException {
        if (frameId == null) {
            return null;
        }
        FrameRef f = frame(frameId);
        return MiFrame.of(f.thread(), f.level());
    }

    private FrameRef frame(int frameId) throws MiException {
        FrameRef f = frames.get(frameId);
        if (f == null) {
            throw new MiException(null, "frame " + frameId + " is gone (the rank ran since)");
        }
        return f;
    }

}
