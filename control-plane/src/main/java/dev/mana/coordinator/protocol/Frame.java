package dev.mana.coordinator.protocol;

/** A decoded frame: the request id of its header and its message. */
public record Frame(int requestId, Message message) {
    public MessageType type() { return message.type(); }
}
