package dev.mana.gdb.mi;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Parser of GDB/MI output records (the grammar of the GDB manual, "GDB/MI Output Syntax").
 *
 * <p>The input is one line as GDB wrote it, decoded byte for byte as ISO-8859-1, without its line
 * end. C-strings are unescaped to bytes (GDB writes non-ASCII bytes either raw or as octal escapes)
 * and decoded as UTF-8 at the end, so both forms give the same text. A line that does not start like
 * a record is {@link MiRecord.Other} (the inferior's own output); one that starts like a record and
 * then breaks the syntax is an error.
 */
public final class MiParser {
    private final String s;
    private int pos;

    private MiParser(String line) {
        this.s = line;
    }

    public static MiRecord parse(String line) throws MiParseException {
        String l = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
        return new MiParser(l).record();
    }

    /** The text of a line that is no record, decoded as UTF-8 (the input is ISO-8859-1 bytes). */
    public static String decodeOther(String latin1) {
        return new String(latin1.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    private MiRecord record() throws MiParseException {
        String trimmed = s.strip();
        if (trimmed.equals("(gdb)")) {
            return new MiRecord.Prompt();
        }
        if (s.isEmpty()) {
            return new MiRecord.Other("");
        }
        int digits = 0;
        while (digits < s.length() && Character.isDigit(s.charAt(digits))) {
            digits++;
        }
        if (digits == s.length()) {
            return new MiRecord.Other(decodeOther(s));
        }
        char c = s.charAt(digits);
        Long token = null;
        if (digits > 0) {
            if (c != '^' && c != '*' && c != '+' && c != '=') {
                return new MiRecord.Other(decodeOther(s));
            }
            if (digits > 18) {
                throw new MiParseException("token too long", s, 0);
            }
            token = Long.parseLong(s.substring(0, digits));
        }
        pos = digits + 1;
        switch (c) {
            case '^': {
                String cls = word();
                return new MiRecord.Result(token, cls, restResults());
            }
            case '*':
            case '+':
            case '=': {
                MiRecord.AsyncKind kind = c == '*' ? MiRecord.AsyncKind.EXEC
                        : c == '+' ? MiRecord.AsyncKind.STATUS : MiRecord.AsyncKind.NOTIFY;
                String cls = word();
                return new MiRecord.Async(token, kind, cls, restResults());
            }
            case '~':
            case '@':
            case '&': {
                if (pos >= s.length() || s.charAt(pos) != '"') {
                    // "~" followed by something else is not MI: keep it as the inferior's output
                    return new MiRecord.Other(decodeOther(s));
                }
                String text = cstring();
                if (pos != s.length()) {
                    throw new MiParseException("text after the stream's c-string", s, pos);
                }
                MiRecord.StreamKind kind = c == '~' ? MiRecord.StreamKind.CONSOLE
                        : c == '@' ? MiRecord.StreamKind.TARGET : MiRecord.StreamKind.LOG;
                return new MiRecord.Stream(kind, text);
            }
            default:
                return new MiRecord.Other(decodeOther(s));
        }
    }

    /** A result or async class: up to ',' or the end. */
    private String word() throws MiParseException {
        int start = pos;
        while (pos < s.length() && s.charAt(pos) != ',') {
            char c = s.charAt(pos);
            if (!(Character.isLetterOrDigit(c) || c == '-' || c == '_')) {
                throw new MiParseException("unexpected '" + c + "' in a record class", s, pos);
            }
            pos++;
        }
        if (pos == start) {
            throw new MiParseException("missing record class", s, pos);
        }
        return s.substring(start, pos);
    }

    private MiTuple restResults() throws MiParseException {
        List<String> names = new ArrayList<>();
        List<MiValue> values = new ArrayList<>();
        while (pos < s.length()) {
            expect(',');
            names.add(variable());
            values.add(value());
        }
        return new MiTuple(names, values);
    }

    private String variable() throws MiParseException {
        int start = pos;
        while (pos < s.length() && s.charAt(pos) != '=') {
            char c = s.charAt(pos);
            if (c == ',' || c == '{' || c == '}' || c == '[' || c == ']' || c == '"') {
                throw new MiParseException("expected name=value", s, pos);
            }
            pos++;
        }
        if (pos == start || pos >= s.length()) {
            throw new MiParseException("expected name=value", s, start);
        }
        String name = s.substring(start, pos);
        pos++; // '='
        return name;
    }

    private MiValue value() throws MiParseException {
        if (pos >= s.length()) {
            throw new MiParseException("value missing", s, pos);
        }
        char c = s.charAt(pos);
        if (c == '"') {
            return new MiValue.Const(cstring());
        }
        if (c == '{') {
            pos++;
            List<String> names = new ArrayList<>();
            List<MiValue> values = new ArrayList<>();
            if (peek('}')) {
                pos++;
                return new MiTuple(names, values);
            }
            while (true) {
                names.add(variable());
                values.add(value());
                if (peek(',')) {
                    pos++;
                    continue;
                }
                expect('}');
                return new MiTuple(names, values);
            }
        }
        if (c == '[') {
            pos++;
            List<MiValue> items = new ArrayList<>();
            List<String> names = new ArrayList<>();
            if (peek(']')) {
                pos++;
                return new MiValue.ListValue(items, names);
            }
            // a list holds either values or results: decide on the first item
            boolean results = startsWithVariable();
            while (true) {
                if (results) {
                    names.add(variable());
                }
                items.add(value());
                if (peek(',')) {
                    pos++;
                    continue;
                }
                expect(']');
                return new MiValue.ListValue(items, names);
            }
        }
        throw new MiParseException("expected a c-string, tuple or list", s, pos);
    }

    private boolean startsWithVariable() {
        char c = s.charAt(pos);
        return c != '"' && c != '{' && c != '[';
    }

    private boolean peek(char c) {
        return pos < s.length() && s.charAt(pos) == c;
    }

    private void expect(char c) throws MiParseException {
        if (pos >= s.length()) {
            throw new MiParseException("expected '" + c + "' but the line ended", s, pos);
        }
        if (s.charAt(pos) != c) {
            throw new MiParseException("expected '" + c + "' but found '" + s.charAt(pos) + "'", s, pos);
        }
        pos++;
    }

    /** A c-string starting at the opening quote; returns its text. */
    private String cstring() throws MiParseException {
        int start = pos;
        expect('"');
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        while (true) {
            if (pos >= s.length()) {
                throw new MiParseException("unterminated c-string", s, start);
            }
            char c = s.charAt(pos++);
            if (c == '"') {
                return bytes.toString(StandardCharsets.UTF_8);
            }
            if (c != '\\') {
                putChar(bytes, c);
                continue;
            }
            if (pos >= s.length()) {
                throw new MiParseException("backslash at the end of a c-string", s, pos - 1);
            }
            char e = s.charAt(pos++);
            switch (e) {
                case 'n' -> bytes.write('\n');
                case 't' -> bytes.write('\t');
                case 'r' -> bytes.write('\r');
                case 'a' -> bytes.write(7);
                case 'b' -> bytes.write('\b');
                case 'f' -> bytes.write('\f');
                case 'v' -> bytes.write(11);
                case 'e' -> bytes.write(27);
                case '"', '\\', '\'', '?' -> bytes.write(e);
                case 'x' -> {
                    int v = 0;
                    int n = 0;
                    while (n < 2 && pos < s.length() && Character.digit(s.charAt(pos), 16) >= 0) {
                        v = v * 16 + Character.digit(s.charAt(pos++), 16);
                        n++;
                    }
                    if (n == 0) {
                        throw new MiParseException("\\x without hex digits", s, pos - 2);
                    }
                    bytes.write(v);
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int v = e - '0';
                        int n = 1;
                        while (n < 3 && pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '7') {
                            v = v * 8 + (s.charAt(pos++) - '0');
                            n++;
                        }
                        bytes.write(v & 0xff);
                    } else {
                        throw new MiParseException("unknown escape \\" + e, s, pos - 2);
                    }
                }
            }
        }
    }

    /** Input chars are bytes (ISO-8859-1); a char beyond a byte (a caller's decoded text) goes in as UTF-8. */
    private static void putChar(ByteArrayOutputStream bytes, char c) {
        if (c < 0x100) {
            bytes.write(c);
        } else {
            byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
            bytes.write(b, 0, b.length);
        }
    }
}
