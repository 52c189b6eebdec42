package dev.mana.coordinator;

/** The state of a rank as the coordinator sees it (§3 of the protocol). */
public enum RankState {
    RUNNING(1), SUSPENDED(2), DRAINED(3), CHECKPOINTED(4), COMMITTED(5), RESTARTING(6), EXITED(7),
    /** Not on the wire: a code this implementation does not know. */
    UNKNOWN(0),
    /**
     * Not on the wire: a rank of the job that is not connected to this coordinator (not registered yet,
     * or lost): it runs without checkpoints.
     */
    UNPROTECTED(-1);

    public final int code;

    RankState(int code) { this.code = code; }

    public static RankState of(int code) {
        for (RankState s : values()) if (s.code == code) return s;
        return UNKNOWN;
    }
}
