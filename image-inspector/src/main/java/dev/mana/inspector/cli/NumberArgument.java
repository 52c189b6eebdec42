package dev.mana.inspector.cli;

import picocli.CommandLine;

/** Numeric command-line arguments: an address, a length, a --range end. */
final class NumberArgument {
    private NumberArgument() {
    }

    /** Parses 0x-hex or decimal (also 0-prefixed hex without 0x when it has a-f). */
    static long number(String s, String what) {
        String t = s.trim().replace("_", "");
        try {
            if (t.startsWith("0x") || t.startsWith("0X")) {
                return Long.parseUnsignedLong(t.substring(2), 16);
            }
            return Long.parseUnsignedLong(t);
        } catch (NumberFormatException e) {
            throw new CommandLine.ParameterException(new CommandLine(new ManaInspect()),
                    what + ": '" + s + "' is not a number (use 0x... for hex)");
        }
    }
}
