package dev.mana.coordinator.protocol;

import java.io.IOException;

/**
 * One MNCP message: the body of a frame. The classes are in {@link Messages}; {@link MessageCodec}
 * turns them into bytes and back; {@link MessageDispatcher} hands them to a {@link MessageHandler}.
 */
public interface Message {
    MessageType type();

    /** Calls the handler method for this message type (double dispatch). */
    void dispatch(MessageHandler handler, int requestId) throws IOException;
}
