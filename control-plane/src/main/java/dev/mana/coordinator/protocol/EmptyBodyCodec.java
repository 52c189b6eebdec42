package dev.mana.coordinator.protocol;

import java.util.function.Supplier;

/** The codec of a message type whose body is empty (OK, KILL, LIST, STATUS, KILL_JOB, QUIT). */
final class EmptyBodyCodec<M extends Message> implements BodyCodec<M> {
    private final Supplier<M> create;

    EmptyBodyCodec(Supplier<M> create) {
        this.create = create;
    }

    @Override
    public void encode(M message, WireWriter w) {
    }

    @Override
    public M decode(WireReader r) {
        return create.get();
    }
}
