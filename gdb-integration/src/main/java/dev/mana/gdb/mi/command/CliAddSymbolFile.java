package dev.mana.gdb.mi.command;

import java.nio.file.Path;

/**
 * {@code add-symbol-file PATH -o 0xBIAS}: the symbols of an object gdb does not find by itself (the upper
 * half's, whose loader gdb never hears of). The path is quoted as gdb's CLI reads arguments
 * (buildargv: double quotes, backslash escapes) where it holds a space, a quote or a backslash.
 */
public final class CliAddSymbolFile extends CliCommand.Plain {
    private final Path path;
    private final long bias;

    public CliAddSymbolFile(Path path, long bias) {
        this.path = path;
        this.bias = bias;
    }

    @Override
    public String text() {
        String p = path.toString();
        String quoted = p.matches(".*[\\s\"'\\\\].*") ? "\"" + p.replace("\\", "\\\\").replace("\"", "\\\"") + "\"" : p;
        return "add-symbol-file " + quoted + " -o 0x" + Long.toHexString(bias);
    }
}
