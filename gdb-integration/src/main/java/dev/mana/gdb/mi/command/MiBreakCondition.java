package dev.mana.gdb.mi.command;

/**
 * {@code -break-condition N "EXPR"}, or with no expression {@code -break-condition N}: the condition
 * removed. The expression goes as one c-string: unquoted, gdb would split it into words and read a word
 * such as {@code "a b"} as a c-string, losing the string literal's quotes.
 */
public final class MiBreakCondition extends MiPlainCommand {
    private final String number;
    private final String condition;

    public MiBreakCondition(String number, String condition) {
        this.number = number;
        this.condition = condition == null || condition.isBlank() ? null : condition.strip();
    }

    @Override
    public String line() {
        MiLine l = new MiLine("-break-condition").add(number);
        return (condition == null ? l : l.quoted(condition)).toString();
    }
}
