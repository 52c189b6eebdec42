package dev.mana.coordinator.protocol;

/** Message types (the {@code type} field of the frame header). */
public enum MessageType {
    HELLO(0x01), WELCOME(0x02), CHALLENGE(0x03), AUTH(0x04), AUTH_OK(0x05),
    COLLECTIVE(0x10), COLLECTIVE_DONE(0x11), GROUP_COLLECTIVE(0x12),
    CKPT_WRITTEN(0x13), CKPT_FAILED(0x14), GROUP_CKPT_WRITTEN(0x15), GROUP_CKPT_FAILED(0x16),
    KV_PUT(0x20), OK(0x21), KV_GET(0x22), KV_VALUE(0x23),
    BYE(0x30), GROUP_BYE(0x31),
    CKPT_REQUEST(0x40), CKPT_ABORT(0x41), KILL(0x42),
    LIST(0x50), LIST_REPLY(0x51), STATUS(0x52), STATUS_REPLY(0x53),
    CHECKPOINT(0x54), CKPT_RESULT(0x55), CKPT_PROGRESS(0x56),
    SET_INTERVAL(0x57), KILL_JOB(0x58), QUIT(0x59),
    ERROR(0x7F);

    private static final MessageType[] BY_CODE = new MessageType[0x80];
    static {
        for (MessageType t : values()) BY_CODE[t.code] = t;
    }

    public final int code;

    MessageType(int code) { this.code = code; }

    /** The type with this code, or null. */
    public static MessageType of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
