package dev.mana.gdb.mi.command;

/**
 * {@code -break-condition N "EXPR"}, or with no expression {@code -break-condition N}: the condition
 * removed. The expression goes as one c-string: unquoted, gdb splits it at spaces and joins the words
 * with one space each, so {@code sizeof("a  b")} became {@code sizeof("a b")}, and reads a word that
 * starts with a quote as a c-string, dropping its quotes.
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
