package dev.mana.coordinator.protocol;

import static org.junit.jupiter.api.Assertions.*;

import dev.mana.coordinator.protocol.Messages.*;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The golden frame corpus (docs/wire-corpus/frames.txt), which the C client's test_codec reads too:
 * every message type as bytes and as the fields the protocol names. Each frame's bytes must be its
 * fields written in order (checked here by a writer independent of {@link MessageCodec}); the codec
 * must decode the bytes to those fields and encode the decoded message back to the same bytes.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class WireCorpusTest {

    record Field(String kind, String name, String value) {}

    record Entry(String name, String type, int code, int requestId, byte[] bytes, List<Field> fields) {
        Field field(String n) {
            return fields.stream().filter(f -> f.name().equals(n)).findFirst().orElseThrow();
        }
    }

    static Path corpus() {
        String root = System.getProperty("mana.root", "..");
        return Path.of(root, "docs", "wire-corpus", "frames.txt");
    }

    static String secret;

    static List<Entry> read() throws Exception {
        List<Entry> out = new ArrayList<>();
        String name = null, type = null;
        int code = 0, id = 0;
        ByteArrayOutputStream hex = null;
        List<Field> fields = null;
        for (String line : Files.readAllLines(corpus(), StandardCharsets.UTF_8)) {
            if (line.startsWith("secret ")) secret = line.substring(7);
            if (line.startsWith("frame ")) {
                String[] p = line.split(" ");
                name = p[1];
                type = p[2];
                code = Integer.decode(p[3]);
                id = Integer.parseInt(p[4]);
                hex = new ByteArrayOutputStream();
                fields = new ArrayList<>();
            } else if (line.startsWith("hex ")) {
                hex.writeBytes(HexFormat.of().parseHex(line.substring(4)));
            } else if (line.equals("end")) {
                out.add(new Entry(name, type, code, id, hex.toByteArray(), fields));
                fields = null;
            } else if (fields != null && !line.isBlank()) {
                String[] p = line.split(" ", 3);
                fields.add(new Field(p[0], p[1], p.length > 2 ? p[2] : ""));
            }
        }
        return out;
    }

    /** The bytes of one field as §1 defines them: the test's own writer, not the codec's. */
    static void write(ByteBuffer b, Field f) {
        String v = f.value();
        switch (f.kind()) {
            case "u8", "bool" -> b.put((byte) Integer.parseInt(v));
            case "u16" -> b.putShort((short) Integer.parseInt(v));
            case "u32", "count" -> b.putInt((int) Long.parseLong(v));
            case "i32" -> b.putInt(Integer.parseInt(v));
            case "u64", "i64" -> b.putLong(Long.parseUnsignedLong(v.startsWith("-") ? Long.toUnsignedString(Long.parseLong(v)) : v));
            case "str" -> {
                byte[] s = v.getBytes(StandardCharsets.UTF_8);
                b.putShort((short) s.length).put(s);
            }
            case "bytes" -> b.put(HexFormat.of().parseHex(v));
            case "blob" -> {
                byte[] s = HexFormat.of().parseHex(v);
                b.putInt(s.length).put(s);
            }
            case "i64s" -> {
                long[] vs = longs(v);
                b.putInt(vs.length);
                for (long x : vs) b.putLong(x);
            }
            default -> fail("unknown field kind " + f.kind());
        }
    }

    static long[] longs(String v) {
        return v.isEmpty() ? new long[0] : java.util.Arrays.stream(v.split(",")).mapToLong(Long::parseLong).toArray();
    }

    /**
     * The corpus's {@code phase NAME NUMBER} lines are the table of COLLECTIVE phase numbers: Protocol has exactly a
     * {@code PHASE_NAME} for each, with that number (test_codec checks the C names MANA_PHASE_* the same way).
     */
    @Test
    void phaseNumbersAreTheCorpusTable() throws Exception {
        Map<String, Integer> table = new java.util.TreeMap<>();
        for (String line : Files.readAllLines(corpus(), StandardCharsets.UTF_8)) {
            if (line.startsWith("phase ")) {
                String[] p = line.split(" ");
                assertNull(table.put("PHASE_" + p[1], Integer.parseInt(p[2])), "phase " + p[1] + " twice");
            }
        }
        assertTrue(table.size() >= 10, "the corpus has " + table.size() + " phase lines");
        Map<String, Integer> ours = new java.util.TreeMap<>();
        for (java.lang.reflect.Field f : Protocol.class.getFields()) {
            if (f.getName().startsWith("PHASE_") && java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                ours.put(f.getName(), f.getInt(null));
            }
        }
        assertEquals(table, ours, "Protocol.PHASE_* against docs/wire-corpus/frames.in's phase lines");
    }

    @Test
    void everyTypeIsInTheCorpus() throws Exception {
        Set<MessageType> seen = EnumSet.noneOf(MessageType.class);
        for (Entry e : read()) seen.add(MessageType.valueOf(e.type()));
        assertEquals(EnumSet.allOf(MessageType.class), seen);
    }

    @Test
    void eachFrameIsItsFieldsInOrder() throws Exception {
        for (Entry e : read()) {
            ByteBuffer b = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
            b.put(new byte[] {'M', 'N', 'C', 'P'}).putShort((short) Protocol.VERSION).putShort((short) e.code())
                    .putInt(0).putInt(e.requestId());
            for (Field f : e.fields()) write(b, f);
            b.putInt(8, b.position() - Protocol.HEADER_SIZE);
            assertArrayEquals(java.util.Arrays.copyOf(b.array(), b.position()), e.bytes(), e.name());
        }
    }

    @Test
    void theCodecDecodesEachFrameToItsFieldsAndBack() throws Exception {
        for (Entry e : read()) {
            Frame f = new FrameDecoder().next(ByteBuffer.wrap(e.bytes()));
            assertNotNull(f, e.name());
            assertEquals(MessageType.valueOf(e.type()), f.message().type(), e.name());
            assertEquals(e.code(), f.message().type().code);
            assertEquals(e.requestId(), f.requestId(), e.name());
            for (Field fld : e.fields()) {
                if (fld.name().equals("reserved")) continue;  // written as 0, not kept
                if (fld.name().equals("role") && !(f.message() instanceof Hello)) continue; // the record type says it
                Object actual = resolve(f.message(), fld.name(), e.name());
                assertEquals(expected(fld, actual), normalize(actual), e.name() + " " + fld.name());
            }
            assertArrayEquals(e.bytes(), MessageCodec.encodeBytes(e.requestId(), f.message()), e.name() + " re-encoded");
        }
    }

    @Test
    void theHandshakeProofsAreHmacSha256OverBothNonces() throws Exception {
        List<Entry> all = read();
        Map<String, Entry> byName = new java.util.HashMap<>();
        for (Entry e : all) byName.put(e.name(), e);
        byte[] key = Handshake.secretBytes(secret);
        byte[] coordinatorNonce = HexFormat.of().parseHex(byName.get("challenge").field("nonce").value());
        byte[] clientNonce = HexFormat.of().parseHex(byName.get("auth").field("nonce").value());
        assertEquals(byName.get("auth").field("mac").value(),
                HexFormat.of().formatHex(Handshake.clientProof(key, coordinatorNonce, clientNonce)));
        assertEquals(byName.get("auth_ok").field("mac").value(),
                HexFormat.of().formatHex(Handshake.coordinatorProof(key, coordinatorNonce, clientNonce)));
    }

    /** The protocol's snake_case field names, as record components. */
    private static final Map<String, String> ALIASES = Map.of("wait", "waitForIt");

    private static Object resolve(Object o, String path, String where) throws Exception {
        for (String part : path.split("\\.")) {
            if (o instanceof List<?> l) {
                o = l.get(Integer.parseInt(part));
                continue;
            }
            String camel = ALIASES.getOrDefault(part, toCamel(part));
            RecordComponent rc = null;
            for (RecordComponent c : o.getClass().getRecordComponents()) if (c.getName().equals(camel)) rc = c;
            assertNotNull(rc, where + ": " + o.getClass().getSimpleName() + " has no field " + camel);
            o = rc.getAccessor().invoke(o);
        }
        return o;
    }

    private static String toCamel(String s) {
        StringBuilder b = new StringBuilder();
        boolean up = false;
        for (char c : s.toCharArray()) {
            if (c == '_') {
                up = true;
            } else {
                b.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return b.toString();
    }

    private static Object expected(Field f, Object actual) {
        String v = f.value();
        return switch (f.kind()) {
            case "u8", "u16", "i32" -> actual instanceof Boolean ? Integer.parseInt(v) != 0 : (Object) Integer.parseInt(v);
            case "bool" -> Integer.parseInt(v) != 0;
            case "u32" -> (int) Long.parseLong(v);
            case "count" -> Integer.parseInt(v);
            case "u64", "i64" -> v.startsWith("-") ? Long.parseLong(v) : Long.parseUnsignedLong(v);
            case "str" -> v;
            case "bytes", "blob" -> v;
            case "i64s" -> java.util.Arrays.toString(longs(v));
            default -> fail("unknown kind " + f.kind());
        };
    }

    private static Object normalize(Object actual) {
        if (actual instanceof byte[] b) return HexFormat.of().formatHex(b);
        if (actual instanceof long[] l) return java.util.Arrays.toString(l);
        if (actual instanceof List<?> l) return l.size();
        return actual;
    }
}
