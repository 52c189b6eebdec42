package dev.mana.gdb.mi.command;

import java.util.List;

/** {@code -break-delete N...}: deletes breakpoints (and watchpoints) by number. */
public final class MiBreakDelete extends MiPlainCommand {
    private final List<String> numbers;

    public MiBreakDelete(List<?> numbers) {
        if (numbers.isEmpty()) {
            throw new IllegalArgumentException("no breakpoint to delete");
        }
        this.numbers = numbers.stream().map(String::valueOf).toList();
    }

    public MiBreakDelete(String number) {
        this(List.of(number));
    }

    @Override
    public String line() {
        MiLine l = new MiLine("-break-delete");
        numbers.forEach(l::add);
        return l.toString();
    }
}
