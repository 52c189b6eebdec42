package dev.mana.coordinator.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The table of body codecs: complete, and an empty body written for any message of its type. */
class BodyCodecsTest {
    @Test
    void everyMessageTypeHasACodec() {
        for (MessageType t : MessageType.values()) {
            assertTrue(BodyCodecs.has(t), t + " has no codec in BodyCodecs");
        }
    }

    @Test
    void anEmptyBodyIsWrittenForAnyMessageOfItsType() throws Exception {
        // a Message of another class than Messages.Ok, as an embedder may send: its type() decides
        Message ok = new Message() {
            @Override public MessageType type() { return MessageType.OK; }
            @Override public void dispatch(MessageHandler h, int id) throws IOException {}
        };
        byte[] frame = MessageCodec.encodeBytes(7, ok);
        assertEquals(Protocol.HEADER_SIZE, frame.length);
        assertArrayEquals(MessageCodec.encodeBytes(7, new Messages.Ok()), frame);
    }

    @Test
    void aCodecReadsItsFieldsAndLeavesTheRest() throws Exception {
        WireWriter w = new WireWriter(16);
        new ByeCodec().encode(new Messages.Bye(2, -1), w);
        ByteBuffer b = w.finish();
        byte[] body = new byte[b.remaining() + 3];
        b.get(body, 0, b.remaining());
        WireReader r = new WireReader(ByteBuffer.wrap(body));
        assertEquals(new Messages.Bye(2, -1), new ByeCodec().decode(r));
        assertEquals(3, r.remaining());
    }
}
