package dev.mana.gdb.mi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Hand-written cases: escapes, nesting, every record kind, and malformed lines. */
class MiParserTest {

    private static MiRecord p(String s) throws MiParseException {
        return MiParser.parse(s);
    }

    @Test
    void resultRecordWithTokenAndNestedValues() throws Exception {
        MiRecord.Result r = assertInstanceOf(MiRecord.Result.class, p(
                "42^done,stack=[frame={level=\"0\",addr=\"0x1139\",func=\"f\",args=[{name=\"a\",value=\"1\"}]},"
                        + "frame={level=\"1\",addr=\"0x1150\",func=\"main\"}],empty={},nothing=[]"));
        assertEquals(42L, r.token());
        assertEquals("done", r.resultClass());
        List<MiValue> stack = r.results().getList("stack");
        assertEquals(2, stack.size());
        MiValue.ListValue lv = assertInstanceOf(MiValue.ListValue.class, r.results().get("stack"));
        assertEquals(List.of("frame", "frame"), lv.names());
        assertEquals("f", stack.get(0).asTuple().getString("func"));
        assertEquals("1", stack.get(0).asTuple().getList("args").get(0).asTuple().getString("value"));
        assertEquals("main", stack.get(1).asTuple().getString("func"));
        assertTrue(r.results().getTuple("empty").isEmpty());
        assertTrue(r.results().getList("nothing").isEmpty());
    }

    @Test
    void listOfValuesAndListOfLists() throws Exception {
        MiRecord.Result r = assertInstanceOf(MiRecord.Result.class,
                p("^done,thread-ids=[\"1\",\"2\"],m=[[\"a\",\"b\"],[]],t=[{x=\"1\"},{x=\"2\"}]"));
        assertNull(r.token());
        assertEquals("2", r.results().getList("thread-ids").get(1).asString());
        assertEquals("b", r.results().getList("m").get(0).asList().get(1).asString());
        assertEquals("2", r.results().getList("t").get(1).asTuple().getString("x"));
    }

    @Test
    void escapesInCStrings() throws Exception {
        MiRecord.Stream s = assertInstanceOf(MiRecord.Stream.class,
                p("~\"a\\\"b\\\\c\\nd\\te\\033[0m\\001\\x41\\e\""));
        assertEquals(MiRecord.StreamKind.CONSOLE, s.kind());
        assertEquals("a\"b\\c\nd\te\033[0m\001A\033", s.text());
    }

    @Test
    void nonAsciiAsOctalOrRawBytesDecodesToTheSameText() throws Exception {
        // "é" in UTF-8 is c3 a9: gdb writes it as octal escapes or raw, depending on its charset
        MiRecord.Stream octal = assertInstanceOf(MiRecord.Stream.class, p("~\"caf\\303\\251\""));
        String raw = new String("~\"café\"".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
        MiRecord.Stream rawRec = assertInstanceOf(MiRecord.Stream.class, p(raw));
        assertEquals("café", octal.text());
        assertEquals("café", rawRec.text());
    }

    @Test
    void asyncKindsAndStreams() throws Exception {
        MiRecord.Async stop = assertInstanceOf(MiRecord.Async.class, p(
                "*stopped,reason=\"breakpoint-hit\",disp=\"keep\",bkptno=\"1\",frame={addr=\"0x1\",func=\"main\","
                        + "args=[],file=\"a.c\",line=\"7\"},thread-id=\"1\",stopped-threads=\"all\""));
        assertEquals(MiRecord.AsyncKind.EXEC, stop.kind());
        GdbEvent.Stopped ev = assertInstanceOf(GdbEvent.Stopped.class, GdbEvent.of(stop));
        assertEquals("breakpoint-hit", ev.reason());
        assertEquals("7", ev.frame().getString("line"));
        assertEquals("1", ev.threadId());

        MiRecord.Async st = assertInstanceOf(MiRecord.Async.class, p("+download,{section=\".text\",section-size=\"6668\"}".replace(",{", ",x={")));
        assertEquals(MiRecord.AsyncKind.STATUS, st.kind());
        MiRecord.Async lib = assertInstanceOf(MiRecord.Async.class, p(
                "=library-loaded,id=\"/lib/x86_64-linux-gnu/libc.so.6\",target-name=\"/lib/x86_64-linux-gnu/libc.so.6\","
                        + "host-name=\"/lib/x86_64-linux-gnu/libc.so.6\",symbols-loaded=\"0\",thread-group=\"i1\","
                        + "ranges=[{from=\"0x00007ffff7dc6380\",to=\"0x00007ffff7f1b22d\"}]"));
        GdbEvent.LibraryChanged lc = assertInstanceOf(GdbEvent.LibraryChanged.class, GdbEvent.of(lib));
        assertTrue(lc.loaded());
        assertEquals("/lib/x86_64-linux-gnu/libc.so.6", lc.hostName());
        assertInstanceOf(GdbEvent.ThreadChanged.class, GdbEvent.of((MiRecord.Async) p("=thread-created,id=\"2\",group-id=\"i1\"")));
        assertInstanceOf(GdbEvent.ThreadSelected.class, GdbEvent.of((MiRecord.Async) p("=thread-selected,id=\"2\",frame={level=\"0\"}")));
        MiRecord.Async tok = assertInstanceOf(MiRecord.Async.class, p("7*running,thread-id=\"all\""));
        assertEquals(7L, tok.token());
        assertEquals(MiRecord.StreamKind.TARGET, ((MiRecord.Stream) p("@\"out\"")).kind());
        assertEquals(MiRecord.StreamKind.LOG, ((MiRecord.Stream) p("&\"warning: x\\n\"")).kind());
        assertInstanceOf(MiRecord.Prompt.class, p("(gdb) "));
        assertEquals("^error,msg=\"No symbol \\\"x\\\" in current context.\"",
                p("^error,msg=\"No symbol \\\"x\\\" in current context.\"").toString());
    }

    @Test
    void repeatedNamesInATupleAreAllKept() throws Exception {
        MiRecord.Result r = (MiRecord.Result) p("^done,bkpt={number=\"1\"},bkpt={number=\"1.1\"},bkpt={number=\"1.2\"}");
        assertEquals(3, r.results().getAll("bkpt").size());
        assertEquals("1", r.results().getTuple("bkpt").getString("number"));
    }

    @Test
    void deepNestingRoundTrips() throws Exception {
        StringBuilder v = new StringBuilder("\"x\"");
        for (int i = 0; i < 200; i++) {
            v.insert(0, i % 2 == 0 ? "{a=" : "[").append(i % 2 == 0 ? "}" : "]");
        }
        String line = "^done,v=" + v;
        assertEquals(line, p(line).toString());
    }

    @Test
    void linesThatAreNoRecordsAreOther() throws Exception {
        assertEquals("hello from the inferior", ((MiRecord.Other) p("hello from the inferior")).text());
        assertInstanceOf(MiRecord.Other.class, p("12345"));
        assertInstanceOf(MiRecord.Other.class, p("12 apples"));
        assertInstanceOf(MiRecord.Other.class, p("~ tilde but no string"));
        assertInstanceOf(MiRecord.Other.class, p(""));
    }

    @Test
    void malformedRecordsSayWhere() {
        MiParseException e = assertThrows(MiParseException.class, () -> p("^done,a=\"unterminated"));
        assertTrue(e.getMessage().contains("unterminated c-string"), e.getMessage());
        e = assertThrows(MiParseException.class, () -> p("^done,a={b=\"1\""));
        assertTrue(e.getMessage().contains("expected '}'"), e.getMessage());
        e = assertThrows(MiParseException.class, () -> p("^done,a=\"\\q\""));
        assertTrue(e.getMessage().contains("unknown escape"), e.getMessage());
        e = assertThrows(MiParseException.class, () -> p("^done,=\"1\""));
        assertTrue(e.getMessage().contains("name=value"), e.getMessage());
        assertThrows(MiParseException.class, () -> p("^"));
        assertThrows(MiParseException.class, () -> p("~\"a\" trailing"));
        assertThrows(MiParseException.class, () -> p("*stopped,x=1"));
    }

    @Test
    void quoteIsTheInverseOfTheCStringParser() throws Exception {
        String text = "tab\t nl\n quote\" bs\\ bell\007 del\177 é";
        MiRecord.Stream s = (MiRecord.Stream) p("~" + new String(MiEscapes.quote(text).getBytes(StandardCharsets.UTF_8),
                StandardCharsets.ISO_8859_1));
        assertEquals(text, s.text());
    }
}
