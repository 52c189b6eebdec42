package dev.mana.gdb.mi;

/** One line of GDB/MI output. */
public sealed interface MiRecord
        permits MiRecord.Result, MiRecord.Async, MiRecord.Stream, MiRecord.Prompt, MiRecord.Other {

    /** The three kinds of asynchronous records. */
    enum AsyncKind {
        /** {@code *}: state changes of the target (running, stopped). */
        EXEC('*'),
        /** {@code +}: progress of a slow operation. */
        STATUS('+'),
        /** {@code =}: information (threads, libraries, breakpoints changed). */
        NOTIFY('=');

        public final char prefix;

        AsyncKind(char prefix) {
            this.prefix = prefix;
        }
    }

    /** The three output streams. */
    enum StreamKind {
        /** {@code ~}: what the CLI would print. */
        CONSOLE('~'),
        /** {@code @}: output of the target (remote targets only). */
        TARGET('@'),
        /** {@code &}: gdb's own log: errors, warnings, echoed commands. */
        LOG('&');

        public final char prefix;

        StreamKind(char prefix) {
            this.prefix = prefix;
        }
    }

    /** {@code [token]^class[,results]}: the answer to a command. {@code token} is null when none was given. */
    record Result(Long token, String resultClass, MiTuple results) implements MiRecord {
        public boolean isError() {
            return "error".equals(resultClass);
        }

        @Override
        public String toString() {
            return (token == null ? "" : token.toString()) + "^" + resultClass
                    + (results.isEmpty() ? "" : "," + results.toBodyString());
        }
    }

    /** {@code [token]*class,...}, {@code +class,...} or {@code =class,...}. */
    record Async(Long token, AsyncKind kind, String asyncClass, MiTuple results) implements MiRecord {
        @Override
        public String toString() {
            return (token == null ? "" : token.toString()) + kind.prefix + asyncClass
                    + (results.isEmpty() ? "" : "," + results.toBodyString());
        }
    }

    /** {@code ~"text"}, {@code @"text"} or {@code &"text"} with the text unescaped. */
    record Stream(StreamKind kind, String text) implements MiRecord {
        @Override
        public String toString() {
            return kind.prefix + MiEscapes.quote(text);
        }
    }

    /** {@code (gdb)}: the end of a batch of output. */
    record Prompt() implements MiRecord {
        @Override
        public String toString() {
            return "(gdb)";
        }
    }

    /** A line that is no MI record: output of the inferior when it shares gdb's terminal. */
    record Other(String text) implements MiRecord {
        @Override
        public String toString() {
            return text;
        }
    }
}
