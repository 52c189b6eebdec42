package dev.mana.gdb.mi.command;

/** Builds one command line, a space before each word; the commands' {@link MiCommand#line()} use it. */
final class MiLine {
    private final StringBuilder b;

    MiLine(String operation) {
        b = new StringBuilder(operation);
    }

    /** A word taken as it is: an option, a number, a word already quoted. */
    MiLine add(Object word) {
        b.append(' ').append(word);
        return this;
    }

    MiLine addIf(boolean when, String word) {
        return when ? add(word) : this;
    }

    /** {@code --thread T --frame L}, or nothing for gdb's selected frame. */
    MiLine frame(MiFrame f) {
        return f == null ? this : add("--thread").add(f.thread()).add("--frame").add(f.level());
    }

    /** {@code --thread T}. */
    MiLine thread(String thread) {
        return add("--thread").add(thread);
    }

    MiLine quoted(String text) {
        return add(MiArgs.quote(text));
    }

    @Override
    public String toString() {
        return b.toString();
    }
}
