package dev.mana.coordinator.protocol;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The message classes of MNCP v2, one per message type (§4 of docs/coordinator-protocol.md).
 * Unsigned wire integers ({@code u32}) are carried in {@code int} and {@code u64} in {@code long};
 * {@code u8} flags are booleans where the protocol gives them a yes/no meaning.
 */
public final class Messages {
    private Messages() {}

    private static String nz(String s) { return s == null ? "" : s; }

    /** 0x03 CHALLENGE (coordinator to client, at connect): the coordinator's nonce. */
    public record Challenge(byte[] nonce) implements Message {
        public Challenge { nonce = nonce.clone(); }
        @Override public MessageType type() { return MessageType.CHALLENGE; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onChallenge(id, this); }
        @Override public boolean equals(Object o) { return o instanceof Challenge c && Arrays.equals(nonce, c.nonce); }
        @Override public int hashCode() { return Arrays.hashCode(nonce); }
        @Override public String toString() { return "Challenge[" + Auth.hex(nonce) + "]"; }
    }

    /** 0x04 AUTH (client to coordinator): the client's nonce and its proof of the secret. */
    public record Auth(byte[] nonce, byte[] mac) implements Message {
        public Auth { nonce = nonce.clone(); mac = mac.clone(); }
        @Override public MessageType type() { return MessageType.AUTH; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onAuth(id, this); }
        @Override public boolean equals(Object o) {
            return o instanceof Auth a && Arrays.equals(nonce, a.nonce) && Arrays.equals(mac, a.mac);
        }
        @Override public int hashCode() { return 31 * Arrays.hashCode(nonce) + Arrays.hashCode(mac); }
        @Override public String toString() { return "Auth[nonce=" + Auth.hex(nonce) + "]"; }

        static String hex(byte[] b) {
            StringBuilder sb = new StringBuilder(b.length * 2);
            for (byte x : b) sb.append(String.format("%02x", x & 0xff));
            return sb.toString();
        }
    }

    /** 0x05 AUTH_OK (coordinator to client): the coordinator's proof of the secret. */
    public record AuthOk(byte[] mac) implements Message {
        public AuthOk { mac = mac.clone(); }
        @Override public MessageType type() { return MessageType.AUTH_OK; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onAuthOk(id, this); }
        @Override public boolean equals(Object o) { return o instanceof AuthOk a && Arrays.equals(mac, a.mac); }
        @Override public int hashCode() { return Arrays.hashCode(mac); }
        @Override public String toString() { return "AuthOk"; }
    }

    /**
     * 0x01 HELLO: the first frame after authentication (§2). Rank fields are meaningful for role =
     * rank only. It carries no secret: the AUTH exchange before it proved the secret.
     */
    public record Hello(int role, String job, int rank, int nranks, String host, int pid,
                        String mpi, int generation, boolean restarting, String ckptdir, String program)
            implements Message {
        public Hello {
            job = nz(job); host = nz(host); mpi = nz(mpi); ckptdir = nz(ckptdir);
            program = nz(program);
        }
        public static Hello control(String job) {
            return new Hello(Protocol.ROLE_CONTROL, job, 0, 0, "", 0, "", 0, false, "", "");
        }
        public static Hello rank(String job, int rank, int nranks, String host, int pid, String mpi,
                                 int generation, boolean restarting, String ckptdir, String program) {
            return new Hello(Protocol.ROLE_RANK, job, rank, nranks, host, pid, mpi, generation, restarting,
                    ckptdir, program);
        }
        public boolean isRank() { return role == Protocol.ROLE_RANK; }
        @Override public MessageType type() { return MessageType.HELLO; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onHello(id, this); }
        @Override public String toString() {
            return "Hello[role=" + role + ", job=" + job + ", rank=" + rank + "/" + nranks + ", host=" + host
                    + ", pid=" + pid + ", generation=" + generation + ", restarting=" + restarting + "]";
        }
    }

    /** One member rank of a {@link GroupHello}: the fields of a rank HELLO but nranks. */
    public record GroupMember(int rank, String host, int pid, String mpi, int generation, boolean restarting,
                              String ckptdir, String program) {
        public GroupMember {
            host = nz(host); mpi = nz(mpi); ckptdir = nz(ckptdir); program = nz(program);
        }
    }

    /**
     * 0x01 HELLO with role 3 (group): one connection registers several ranks of one job. Decoded from
     * the same message type as {@link Hello}; the role byte selects the layout.
     */
    public record GroupHello(String job, int nranks, List<GroupMember> members) implements Message {
        public GroupHello {
            job = nz(job); members = List.copyOf(members);
        }
        @Override public MessageType type() { return MessageType.HELLO; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onGroupHello(id, this); }
        @Override public String toString() {
            return "GroupHello[job=" + job + ", nranks=" + nranks + ", members=" + members.size() + "]";
        }
    }

    /** 0x02 WELCOME. */
    public record Welcome(int clientId, int generation, int interval, String job) implements Message {
        public Welcome { job = nz(job); }
        @Override public MessageType type() { return MessageType.WELCOME; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onWelcome(id, this); }
    }

    /** 0x10 COLLECTIVE: a barrier ({@code op} = 0, no values) or an element-wise reduction. */
    public record Collective(int generation, int phase, int op, long[] values) implements Message {
        public Collective { values = values == null ? new long[0] : values; }
        public static Collective barrier(int generation, int phase) {
            return new Collective(generation, phase, Protocol.OP_BARRIER, new long[0]);
        }
        @Override public MessageType type() { return MessageType.COLLECTIVE; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onCollective(id, this); }
        @Override public boolean equals(Object o) {
            return o instanceof Collective c && c.generation == generation && c.phase == phase && c.op == op
                    && Arrays.equals(c.values, values);
        }
        @Override public int hashCode() { return Objects.hash(generation, phase, op, Arrays.hashCode(values)); }
        @Override public String toString() {
            return "Collective[g=" + generation + ", phase=" + phase + ", op=" + op + ", values=" + values.length + "]";
        }
    }

    /** 0x11 COLLECTIVE_DONE. */
    public record CollectiveDone(int generation, int phase, int op, long[] result) implements Message {
        public CollectiveDone { result = result == null ? new long[0] : result; }
        @Override public MessageType type() { return MessageType.COLLECTIVE_DONE; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onCollectiveDone(id, this); }
        @Override public boolean equals(Object o) {
            return o instanceof CollectiveDone c && c.generation == generation && c.phase == phase && c.op == op
                    && Arrays.equals(c.result, result);
        }
        @Override public int hashCode() { return Objects.hash(generation, phase, op, Arrays.hashCode(result)); }
        @Override public String toString() {
            return "CollectiveDone[g=" + generation + ", phase=" + phase + ", result=" + Arrays.toString(result) + "]";
        }
    }

    /**
     * 0x12 GROUP_COLLECTIVE: a group connection's contribution to a collective, already reduced over
     * {@code members} member ranks by the client (for a barrier just the count).
     */
    public record GroupCollective(int generation, int phase, int op, int members, long[] values) implements Message {
        public GroupCollective { values = values == null ? new long[0] : values; }
        @Override public MessageType type() { return MessageType.GROUP_COLLECTIVE; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onGroupCollective(id, this); }
        @Override public boolean equals(Object o) {
            return o instanceof GroupCollective c && c.generation == generation && c.phase == phase && c.op == op
                    && c.members == members && Arrays.equals(c.values, values);
        }
        @Override public int hashCode() {
            return Objects.hash(generation, phase, op, members, Arrays.hashCode(values));
        }
        @Override public String toString() {
            return "GroupCollective[g=" + generation + ", phase=" + phase + ", op=" + op + ", members=" + members
                    + ", values=" + values.length + "]";
        }
    }

    /** 0x13 CKPT_WRITTEN. */
    public record CkptWritten(int generation, long imageBytes, long writeNs, String path) implements Message {
        public CkptWritten { path = nz(path); }
        @Override public MessageType type() { return MessageType.CKPT_WRITTEN; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onCkptWritten(id, this); }
    }

    /** 0x14 CKPT_FAILED. */
    public record CkptFailed(int generation, String reason) implements Message {
        public CkptFailed { reason = nz(reason); }
        @Override public MessageType type() { return MessageType.CKPT_FAILED; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onCkptFailed(id, this); }
    }

    /** 0x15 GROUP_CKPT_WRITTEN: CKPT_WRITTEN of one member rank of a group connection. */
    public record GroupCkptWritten(int rank, int generation, long imageBytes, long writeNs, String path)
            implements Message {
        public GroupCkptWritten { path = nz(path); }
        @Override public MessageType type() { return MessageType.GROUP_CKPT_WRITTEN; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onGroupCkptWritten(id, this); }
    }

    /** 0x16 GROUP_CKPT_FAILED: CKPT_FAILED of one member rank of a group connection. */
    public record GroupCkptFailed(int rank, int generation, String reason) implements Message {
        public GroupCkptFailed { reason = nz(reason); }
        @Override public MessageType type() { return MessageType.GROUP_CKPT_FAILED; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onGroupCkptFailed(id, this); }
    }

    /** 0x20 KV_PUT. */
    public record KvPut(String key, byte[] value) implements Message {
        public KvPut { key = nz(key); value = value == null ? new byte[0] : value; }
        @Override public MessageType type() { return MessageType.KV_PUT; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onKvPut(id, this); }
        @Override public boolean equals(Object o) {
            return o instanceof KvPut k && k.key.equals(key) && Arrays.equals(k.value, value);
        }
        @Override public int hashCode() { return key.hashCode() * 31 + Arrays.hashCode(value); }
    }

    /** 0x21 OK (empty body). */
    public record Ok() implements Message {
        @Override public MessageType type() { return MessageType.OK; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onOk(id, this); }
    }

    /** 0x22 KV_GET. */
    public record KvGet(String key, boolean waitForIt) implements Message {
        public KvGet { key = nz(key); }
        @Override public MessageType type() { return MessageType.KV_GET; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onKvGet(id, this); }
    }

    /** 0x23 KV_VALUE. */
    public record KvValue(boolean found, byte[] value) implements Message {
        public KvValue { value = value == null ? new byte[0] : value; }
        @Override public MessageType type() { return MessageType.KV_VALUE; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onKvValue(id, this); }
        @Override public boolean equals(Object o) {
            return o instanceof KvValue k && k.found == found && Arrays.equals(k.value, value);
        }
        @Override public int hashCode() { return Boolean.hashCode(found) * 31 + Arrays.hashCode(value); }
    }

    /** 0x30 BYE. */
    public record Bye(int reason, int status) implements Message {
        @Override public MessageType type() { return MessageType.BYE; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onBye(id, this); }
    }

    /** 0x31 GROUP_BYE: one member rank of a group connection leaves (the connection stays). */
    public record GroupBye(int rank, int reason, int status) implements Message {
        @Override public MessageType type() { return MessageType.GROUP_BYE; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onGroupBye(id, this); }
    }

    /** 0x40 CKPT_REQUEST. */
    public record CkptRequest(int generation, int flags, String ckptdir) implements Message {
        public CkptRequest { ckptdir = nz(ckptdir); }
        public boolean exitAfter() { return (flags & Protocol.FLAG_EXIT_AFTER) != 0; }
        @Override public MessageType type() { return MessageType.CKPT_REQUEST; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onCkptRequest(id, this); }
    }

    /** 0x41 CKPT_ABORT. */
    public record CkptAbort(int generation, String reason) implements Message {
        public CkptAbort { reason = nz(reason); }
        @Override public MessageType type() { return MessageType.CKPT_ABORT; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onCkptAbort(id, this); }
    }

    /** 0x42 KILL (empty body). */
    public record Kill() implements Message {
        @Override public MessageType type() { return MessageType.KILL; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onKill(id, this); }
    }

    /** 0x50 LIST (empty body). */
    public record ListRequest() implements Message {
        @Override public MessageType type() { return MessageType.LIST; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onList(id, this); }
    }

    /** One rank of a LIST_REPLY; {@code state} is a {@code RankState} code. */
    public record RankEntry(int rank, String host, int pid, int state, int generation, String mpi, int clientId) {
        public RankEntry { host = nz(host); mpi = nz(mpi); }
    }

    /** 0x51 LIST_REPLY. */
    public record ListReply(List<RankEntry> ranks) implements Message {
        public ListReply { ranks = List.copyOf(ranks); }
        @Override public MessageType type() { return MessageType.LIST_REPLY; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onListReply(id, this); }
    }

    /** 0x52 STATUS (empty body). */
    public record StatusRequest() implements Message {
        @Override public MessageType type() { return MessageType.STATUS; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onStatus(id, this); }
    }

    /**
     * A rank the coordinator refused at HELLO (rank outside 0..nranks-1, nranks mismatch, duplicate rank), as
     * STATUS_REPLY lists it: the job's checkpoints are refused while it is listed.
     */
    public record RefusedEntry(int rank, int nranks, String host, int pid, String reason) {
        public RefusedEntry { host = nz(host); reason = nz(reason); }
    }

    /**
     * 0x53 STATUS_REPLY. {@code refused} was appended after the first v2 coordinators: a reply
     * from one of those ends before it and decodes with none.
     */
    public record StatusReply(String job, int nranks, int connected, int generation, boolean checkpointing,
                              long lastCkptUnixMs, long lastCkptNs, long lastCkptBytes, String lastCkptDir,
                              int interval, List<RefusedEntry> refused) implements Message {
        public StatusReply { job = nz(job); lastCkptDir = nz(lastCkptDir); refused = List.copyOf(refused); }

        /** A reply with no refused rank. */
        public StatusReply(String job, int nranks, int connected, int generation, boolean checkpointing,
                           long lastCkptUnixMs, long lastCkptNs, long lastCkptBytes, String lastCkptDir, int interval) {
            this(job, nranks, connected, generation, checkpointing, lastCkptUnixMs, lastCkptNs, lastCkptBytes,
                    lastCkptDir, interval, List.of());
        }
        @Override public MessageType type() { return MessageType.STATUS_REPLY; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onStatusReply(id, this); }
    }

    /** 0x54 CHECKPOINT. */
    public record Checkpoint(int flags) implements Message {
        @Override public MessageType type() { return MessageType.CHECKPOINT; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onCheckpoint(id, this); }
    }

    /** 0x55 CKPT_RESULT. */
    public record CkptResult(boolean ok, int generation, long elapsedNs, long totalBytes, int ranks, String dir,
                             String message) implements Message {
        public CkptResult { dir = nz(dir); message = nz(message); }
        @Override public MessageType type() { return MessageType.CKPT_RESULT; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onCkptResult(id, this); }
    }

    /** 0x56 CKPT_PROGRESS; {@code state} is a {@code RankState} code. */
    public record CkptProgress(int generation, int state, int reached, int nranks) implements Message {
        @Override public MessageType type() { return MessageType.CKPT_PROGRESS; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onCkptProgress(id, this); }
    }

    /** 0x57 SET_INTERVAL. */
    public record SetInterval(int seconds) implements Message {
        @Override public MessageType type() { return MessageType.SET_INTERVAL; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onSetInterval(id, this); }
    }

    /** 0x58 KILL_JOB (empty body). */
    public record KillJob() implements Message {
        @Override public MessageType type() { return MessageType.KILL_JOB; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onKillJob(id, this); }
    }

    /** 0x59 QUIT (empty body). */
    public record Quit() implements Message {
        @Override public MessageType type() { return MessageType.QUIT; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onQuit(id, this); }
    }

    /** 0x7F ERROR; {@code code} is the wire value (see {@link ErrorCode}). */
    public record ErrorMessage(int code, String message) implements Message {
        public ErrorMessage { message = nz(message); }
        public ErrorMessage(ErrorCode code, String message) { this(code.code, message); }
        public ErrorCode errorCode() { return ErrorCode.of(code); }
        @Override public MessageType type() { return MessageType.ERROR; }
        @Override public void dispatch(MessageHandler h, int id) throws IOException { h.onError(id, this); }
    }
}
