package dev.mana.dap.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The copy of a rank's output: whole UTF-8 characters even when a read cuts one. */
class OutputPumpTest {
    @Test
    void completePrefixKeepsCutSequencesForTheNextRead() {
        byte[] cafe = "café".getBytes(StandardCharsets.UTF_8); // é is 2 bytes
        assertEquals(cafe.length, OutputPump.completeUtf8Prefix(cafe));
        byte[] cut = java.util.Arrays.copyOf(cafe, cafe.length - 1);
        assertEquals(3, OutputPump.completeUtf8Prefix(cut));
        byte[] euro = "€".getBytes(StandardCharsets.UTF_8); // 3 bytes
        assertEquals(0, OutputPump.completeUtf8Prefix(java.util.Arrays.copyOf(euro, 2)));
        assertEquals(0, OutputPump.completeUtf8Prefix(new byte[0]));
    }

    @Test
    void byteByByteStreamArrivesWhole() throws Exception {
        byte[] text = "tab\there \"quoted\" café ✓\nno newline".getBytes(StandardCharsets.UTF_8);
        // a stream that gives one byte per read, the worst cut there is
        InputStream slow = new ByteArrayInputStream(text) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(1, len));
            }
        };
        StringBuilder got = new StringBuilder();
        OutputPump p = new OutputPump(slow, "stdout", "test-pump", (cat, s) -> {
            assertEquals("stdout", cat);
            synchronized (got) {
                got.append(s);
            }
        });
        p.start();
        assertTrue(p.awaitEnd(Duration.ofSeconds(10)));
        assertEquals(new String(text, StandardCharsets.UTF_8), got.toString());
    }
}
