package dev.mana.gdb.mi;

import java.util.Set;

/**
 * gdb's CLI commands that resume the inferior, as a user types them into a debugger's console (the Eclipse
 * rank's gdb console, the DAP debug console's {@code -exec CMD}). Typed as they are, gdb runs them in the
 * foreground and answers no other command, not even an interrupt, until the inferior stops again: a front end
 * runs them in the background ({@link #inBackground}; gdb's {@code mi-async}) so that a Suspend still works.
 */
public final class CliExecution {
    private static final Set<String> COMMANDS = Set.of("c", "cont", "continue", "fg", "n", "next", "s", "step", "si",
            "stepi", "ni", "nexti", "fin", "finish", "u", "until", "adv", "advance", "j", "jump");
    private static final Set<String> CONTINUE = Set.of("c", "cont", "continue", "fg");

    private CliExecution() {
    }

    /** Whether the CLI command {@code cli} resumes the inferior ({@code continue 3}, {@code next}, {@code until 40}...). */
    public static boolean isExecution(String cli) {
        return COMMANDS.contains(word(cli));
    }

    /** Whether it is a plain {@code continue} (or an abbreviation, with or without a count). */
    public static boolean isContinue(String cli) {
        return CONTINUE.contains(word(cli));
    }

    /** The command with {@code &} appended when it resumes and has none: gdb runs it in the background. */
    public static String inBackground(String cli) {
        String c = cli.strip();
        return isExecution(c) && !c.endsWith("&") ? c + "&" : c;
    }

    private static String word(String cli) {
        return cli.strip().split("[\\s&]", 2)[0];
    }
}
