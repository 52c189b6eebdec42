package dev.mana.mpidiag.internal;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The {@code #if} stack of a preprocessed file, as far as the file alone can decide it: a branch is
 * dead only when its condition is a literal false ({@code #if 0}) or an earlier branch was a literal
 * true; every condition the file cannot decide ({@code #ifdef X}, {@code #if N > 2}) keeps all its
 * branches live, so no real call is ever hidden.
 */
public final class Conditionals {
    /** Tri-state value of a condition. */
    public enum Value { TRUE, FALSE, UNKNOWN }

    private static final class Frame {
        final boolean parentLive;
        boolean live;
        /** an earlier branch was certainly taken */
        boolean taken;

        Frame(boolean parentLive) {
            this.parentLive = parentLive;
        }
    }

    private final Deque<Frame> stack = new ArrayDeque<>();

    public boolean live() {
        Frame f = stack.peek();
        return f == null || f.live;
    }

    public void onIf(Value v) {
        Frame f = new Frame(live());
        f.live = f.parentLive && v != Value.FALSE;
        f.taken = v == Value.TRUE;
        stack.push(f);
    }

    public void onElif(Value v) {
        Frame f = stack.peek();
        if (f == null) {
            return; // stray #elif: the compiler reports it
        }
        f.live = f.parentLive && !f.taken && v != Value.FALSE;
        f.taken |= v == Value.TRUE;
    }

    public void onElse() {
        Frame f = stack.peek();
        if (f == null) {
            return;
        }
        f.live = f.parentLive && !f.taken;
        f.taken = true;
    }

    public void onEndif() {
        if (!stack.isEmpty()) {
            stack.pop();
        }
    }

    /** The value of a condition text: a literal integer or true/false, else unknown. */
    public static Value evaluate(String condition) {
        String c = condition.strip();
        while (c.startsWith("(") && c.endsWith(")")) {
            c = c.substring(1, c.length() - 1).strip();
        }
        if (c.equals("false")) {
            return Value.FALSE;
        }
        if (c.equals("true")) {
            return Value.TRUE;
        }
        String digits = c.replaceAll("[uUlL]+$", "");
        if (!digits.isEmpty() && digits.chars().allMatch(Character::isDigit)) {
            return digits.chars().allMatch(ch -> ch == '0') ? Value.FALSE : Value.TRUE;
        }
        return Value.UNKNOWN;
    }
}
