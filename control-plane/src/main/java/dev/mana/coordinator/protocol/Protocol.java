package dev.mana.coordinator.protocol;

/** Constants of the MNCP wire protocol, version 2 (docs/coordinator-protocol.md). */
public final class Protocol {
    private Protocol() {}

    /** The bytes {@code M N C P} read as a little-endian u32. */
    public static final int MAGIC = 'M' | ('N' << 8) | ('C' << 16) | ('P' << 24);
    public static final int VERSION = 2;
    public static final int HEADER_SIZE = 16;
    /** Largest body a frame may carry. */
    public static final int MAX_BODY = 1 << 20;
    /**
     * Largest body a frame may carry before the peer has authenticated (AUTH is 64 bytes): a
     * stranger never makes the coordinator hold more than this per connection.
     */
    public static final int PRE_AUTH_MAX_BODY = 256;
    /** Bytes of each side's nonce and of an HMAC-SHA256 proof. */
    public static final int NONCE_SIZE = 32;
    public static final int MAC_SIZE = 32;
    /** Largest UTF-8 byte count of a {@code str}. */
    public static final int MAX_STRING = 4096;
    /** Largest byte count of a {@code blob}. */
    public static final int MAX_BLOB = 1_000_000;
    /** Largest number of values in a COLLECTIVE. */
    public static final int MAX_VALUES = 4096;
    public static final int DEFAULT_PORT = 7779;
    /** Seconds a new connection has to send HELLO. */
    public static final int HELLO_TIMEOUT_SECONDS = 10;
    /** Bytes queued for one client before the coordinator drops it. */
    public static final int MAX_QUEUED_BYTES = 4 << 20;

    public static final int ROLE_RANK = 1;
    public static final int ROLE_CONTROL = 2;
    /** A rank group: one connection carrying several ranks of one job (a node agent, a launcher). */
    public static final int ROLE_GROUP = 3;
    /** Largest number of member ranks in one group HELLO (the 1 MiB frame limit may allow fewer). */
    public static final int MAX_GROUP_MEMBERS = 65536;

    public static final int OP_BARRIER = 0;
    public static final int OP_SUM = 1;
    public static final int OP_MAX = 2;
    public static final int OP_OR = 3;
    public static final int OP_MIN = 4;

    // COLLECTIVE phase numbers (protocol §6): the table is the `phase` lines of docs/wire-corpus/frames.in;
    // WireCorpusTest wants exactly these PHASE_* constants with its numbers (the C side's test_codec the same
    // of MANA_PHASE_* in core-native/include/mana/phases.h).
    public static final int PHASE_SUSPENDED = 1;
    public static final int PHASE_DRAINED = 2;
    public static final int PHASE_CHECKPOINTED = 3;
    public static final int PHASE_COMMITTED = 4;
    public static final int PHASE_DRAIN_FIRST = 16;
    /** The MPI runtime's point-to-point drain rounds: from here to {@link #PHASE_DRAIN_LAST}. */
    public static final int PHASE_P2P_DRAIN_FIRST = 18;
    public static final int PHASE_DRAIN_LAST = 31;
    public static final int PHASE_RESTARTED = 32;
    public static final int PHASE_REFILLED = 33;
    public static final int PHASE_RESUMED = 34;
    /** Phases from here up are free for the runtime and tools: they change no state. */
    public static final int PHASE_FREE_FIRST = 64;
    /** The MPI runtime's collective drain cycles through the free phases up to this one. */
    public static final int PHASE_COLL_DRAIN_LAST = 16447;
    /** The collective drain's settle rounds: this + round. */
    public static final int PHASE_SETTLE_FIRST = 16448;

    /** CKPT_REQUEST / CHECKPOINT flag: the ranks exit after the commit. */
    public static final int FLAG_EXIT_AFTER = 1;
    /** CHECKPOINT flag: answer when the checkpoint ended, with progress on the way. */
    public static final int FLAG_WAIT = 2;
    /** CKPT_REQUEST / CHECKPOINT flag: every rank writes a full image, even where incremental images are on. */
    public static final int FLAG_FULL = 4;
    /** CKPT_REQUEST / CHECKPOINT flag: this checkpoint is written forked (a writer process; the program runs on). */
    public static final int FLAG_FORKED = 8;
    /** CKPT_REQUEST / CHECKPOINT flag: this checkpoint is written with the program stopped, even where forked is on. */
    public static final int FLAG_UNFORKED = 16;
    /** CKPT_REQUEST / CHECKPOINT bits 5-6: this image's compression (0 = as launched; then these three). */
    public static final int COMPRESS_SHIFT = 5;
    public static final int FLAG_COMPRESS_OFF = 1 << COMPRESS_SHIFT;
    public static final int FLAG_COMPRESS_FAST = 2 << COMPRESS_SHIFT;
    public static final int FLAG_COMPRESS_STRONG = 3 << COMPRESS_SHIFT;
    public static final int COMPRESS_MASK = 3 << COMPRESS_SHIFT;
    /** The flags a CHECKPOINT passes on to the ranks' CKPT_REQUEST as they are: how this one image is written. */
    public static final int IMAGE_FLAGS = FLAG_FULL | FLAG_FORKED | FLAG_UNFORKED | COMPRESS_MASK;

    public static final int BYE_EXIT = 0;
    public static final int BYE_AFTER_CHECKPOINT = 1;

    /** True for the phases of a checkpoint (1-31): they belong to a CKPT_REQUEST generation. */
    public static boolean isCheckpointPhase(int phase) {
        return phase >= 1 && phase < PHASE_RESTARTED;
    }

    public static String opName(int op) {
        switch (op) {
            case OP_BARRIER: return "barrier";
            case OP_SUM: return "sum";
            case OP_MAX: return "max";
            case OP_OR: return "or";
            case OP_MIN: return "min";
            default: return "op" + op;
        }
    }
}
