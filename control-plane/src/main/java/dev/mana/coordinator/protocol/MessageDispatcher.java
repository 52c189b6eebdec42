package dev.mana.coordinator.protocol;

import java.io.IOException;

/** Routes decoded frames to a {@link MessageHandler}. */
public final class MessageDispatcher {
    private final MessageHandler handler;

    public MessageDispatcher(MessageHandler handler) { this.handler = handler; }

    public void dispatch(Frame frame) throws IOException {
        frame.message().dispatch(handler, frame.requestId());
    }

    public static void dispatch(Frame frame, MessageHandler handler) throws IOException {
        frame.message().dispatch(handler, frame.requestId());
    }
}
