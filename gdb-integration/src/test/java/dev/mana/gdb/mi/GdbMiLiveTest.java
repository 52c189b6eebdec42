package dev.mana.gdb.mi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.gdb.testsupport.TestProgram;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client against the real gdb 13, on the test program run natively: breakpoints, stops, threads,
 * library loads, variables, an error, exit; the session's transcript is the recorded corpus that
 * the parser must read completely (target/mi-corpus/gdb-session.mi).
 */
@Timeout(120)
class GdbMiLiveTest {
    @TempDir
    static Path tmp;
    static TestProgram prog;

    @BeforeAll
    static void build() throws Exception {
        prog = TestProgram.build(tmp.resolve("prog"));
    }

    @Test
    void recordedSessionParsesAndEventsArrive() throws Exception {
        List<String> transcript = Collections.synchronizedList(new ArrayList<>());
        List<GdbEvent> events = Collections.synchronizedList(new ArrayList<>());
        StringBuffer streamed = new StringBuffer();
        GdbMi.Options opts = GdbMi.Options.defaults().withTimeout(Duration.ofSeconds(30)).withKillOnClose(true)
                .withTranscript(transcript::add);
        long gdbPid;
        try (GdbMi gdb = GdbMi.start(opts)) {
            gdbPid = gdb.gdbPid();
            gdb.addListener(events::add);
            gdb.addStreamListener(st -> streamed.append(st.text()));
            gdb.execute("-file-exec-and-symbols " + prog.app);
            gdb.execute("-exec-arguments 3 1000");
            MiResponse bp = gdb.execute("-break-insert after_step");
            assertEquals("1", bp.results().getTuple("bkpt").getString("number"));
            assertEquals("after_step", bp.results().getTuple("bkpt").getString("func"));
            gdb.execute("-break-insert -f split_step"); // pending until libsplitstep.so loads

            CompletableFuture<GdbEvent.Stopped> stop = gdb.expect(GdbEvent.Stopped.class, s -> true);
            assertEquals("running", gdb.execute("-exec-run").result().resultClass());
            GdbEvent.Stopped s1 = gdb.await(stop, Duration.ofSeconds(30), "first breakpoint");
            assertEquals("breakpoint-hit", s1.reason());
            assertEquals("split_step", s1.frame().getString("func"));
            assertTrue(s1.frame().getString("file").endsWith("splitstep.c"));

            stop = gdb.expect(GdbEvent.Stopped.class, s -> true);
            gdb.execute("-exec-continue");
            GdbEvent.Stopped s2 = gdb.await(stop, Duration.ofSeconds(30), "second breakpoint");
            assertEquals("after_step", s2.frame().getString("func"));

            MiResponse frames = gdb.execute("-stack-list-frames");
            List<MiValue> stack = frames.results().getList("stack");
            assertEquals("after_step", stack.get(0).asTuple().getString("func"));
            assertEquals("main", stack.get(1).asTuple().getString("func"));

            MiResponse vars = gdb.execute("-stack-list-variables --all-values");
            assertEquals("acc", vars.results().getList("variables").get(0).asTuple().getString("name"));
            // escapes and non-ASCII bytes in a c-string, as gdb prints them
            String motto = gdb.execute("-data-evaluate-expression motto").results().getString("value");
            assertTrue(motto.contains("tab\\there \\\"quoted\\\" back\\\\slash caf"), motto);
            MiResponse var = gdb.execute("-var-create - * iteration");
            assertEquals("0", var.results().getString("value"));
            MiResponse threads = gdb.execute("-thread-info");
            assertEquals(2, threads.results().getList("threads").size());

            MiResponse console = gdb.execute("info sharedlibrary");
            assertTrue(console.console().contains("libsplitstep.so"), console.console());
            // what a gdb console shows: stream records reach the stream listeners as they arrive
            assertTrue(streamed.toString().contains(console.console()), streamed.toString());
            MiException err = assertThrows(MiException.class, () -> gdb.execute("-data-evaluate-expression no_such_symbol"));
            assertTrue(err.getMessage().contains("No symbol \"no_such_symbol\""), err.getMessage());

            gdb.execute("-break-delete");
            CompletableFuture<GdbEvent.Stopped> exit = gdb.expect(GdbEvent.Stopped.class, GdbEvent.Stopped::isExit);
            gdb.execute("-exec-continue");
            GdbEvent.Stopped end = gdb.await(exit, Duration.ofSeconds(30), "exit");
            assertEquals("exited-normally", end.reason());
        }
        // no zombie: gdb was reaped
        assertFalse(ProcessHandle.of(gdbPid).isPresent(), "gdb " + gdbPid + " is still there");

        // the events the session must have produced
        assertTrue(events.stream().anyMatch(e -> e instanceof GdbEvent.LibraryChanged l && l.loaded()
                && l.targetName().endsWith("libsplitstep.so")), "library-loaded libsplitstep.so");
        assertTrue(events.stream().anyMatch(e -> e instanceof GdbEvent.ThreadChanged t && t.created()
                && "2".equals(t.threadId())), "thread-created 2");
        assertTrue(events.stream().anyMatch(e -> e instanceof GdbEvent.ProcessChanged p && p.started()));
        assertTrue(events.stream().anyMatch(e -> e instanceof GdbEvent.Running));

        // the corpus: every line gdb wrote parses; keep it for reading
        List<String> received = transcript.stream().filter(l -> !l.startsWith("> ")).toList();
        Path corpus = Path.of("target", "mi-corpus", "gdb-session.mi");
        Files.createDirectories(corpus.getParent());
        Files.write(corpus, received, StandardCharsets.ISO_8859_1);
        Map<MiRecord.AsyncKind, Integer> async = new EnumMap<>(MiRecord.AsyncKind.class);
        int results = 0;
        int streams = 0;
        for (String line : received) {
            MiRecord r = MiParser.parse(line); // throws on any syntax error
            if (r instanceof MiRecord.Result) {
                results++;
                // printing and parsing again gives the same record (gdb's octal escapes come back as UTF-8)
                String again = new String(r.toString().getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
                assertEquals(r, MiParser.parse(again), "round trip of " + line);
            } else if (r instanceof MiRecord.Async a) {
                async.merge(a.kind(), 1, Integer::sum);
            } else if (r instanceof MiRecord.Stream) {
                streams++;
            }
        }
        assertTrue(results >= 15, "results: " + results);
        assertTrue(streams > 0, "stream records");
        assertTrue(async.getOrDefault(MiRecord.AsyncKind.EXEC, 0) >= 4, "exec records: " + async);
        assertTrue(async.getOrDefault(MiRecord.AsyncKind.NOTIFY, 0) >= 5, "notify records: " + async);
    }

    @Test
    void timeoutAndGdbExitFailPendingCommands() throws Exception {
        try (GdbMi gdb = GdbMi.start(GdbMi.Options.defaults())) {
            // a shell command that outlives a short time-out
            MiException t = assertThrows(MiException.Timeout.class,
                    () -> gdb.execute("shell sleep 2", Duration.ofMillis(200)));
            assertTrue(t.getMessage().contains("did not answer"), t.getMessage());
            CompletableFuture<MiResponse> late = gdb.send("-gdb-exit");
            Integer status = gdb.exitFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(0, status);
            MiException gone = assertThrows(MiException.class, () -> gdb.execute("-gdb-version"));
            assertTrue(gone.getMessage().contains("exited"), gone.getMessage());
            assertInstanceOf(CompletableFuture.class, late);
        }
    }

    @Test
    void missingGdbIsOneClearError() {
        var e = assertThrows(java.io.IOException.class,
                () -> GdbMi.start(GdbMi.Options.defaults().withGdb("/nonexistent/gdb")));
        assertTrue(e.getMessage().contains("cannot start /nonexistent/gdb"), e.getMessage());
    }
}
