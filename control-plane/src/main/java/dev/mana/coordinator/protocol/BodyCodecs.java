package dev.mana.coordinator.protocol;

import dev.mana.coordinator.protocol.Messages.Auth;
import dev.mana.coordinator.protocol.Messages.AuthOk;
import dev.mana.coordinator.protocol.Messages.Bye;
import dev.mana.coordinator.protocol.Messages.Challenge;
import dev.mana.coordinator.protocol.Messages.Checkpoint;
import dev.mana.coordinator.protocol.Messages.CkptAbort;
import dev.mana.coordinator.protocol.Messages.CkptFailed;
import dev.mana.coordinator.protocol.Messages.CkptProgress;
import dev.mana.coordinator.protocol.Messages.CkptRequest;
import dev.mana.coordinator.protocol.Messages.CkptResult;
import dev.mana.coordinator.protocol.Messages.CkptWritten;
import dev.mana.coordinator.protocol.Messages.Collective;
import dev.mana.coordinator.protocol.Messages.CollectiveDone;
import dev.mana.coordinator.protocol.Messages.ErrorMessage;
import dev.mana.coordinator.protocol.Messages.GroupBye;
import dev.mana.coordinator.protocol.Messages.GroupCkptFailed;
import dev.mana.coordinator.protocol.Messages.GroupCkptWritten;
import dev.mana.coordinator.protocol.Messages.GroupCollective;
import dev.mana.coordinator.protocol.Messages.Kill;
import dev.mana.coordinator.protocol.Messages.KillJob;
import dev.mana.coordinator.protocol.Messages.KvGet;
import dev.mana.coordinator.protocol.Messages.KvPut;
import dev.mana.coordinator.protocol.Messages.KvValue;
import dev.mana.coordinator.protocol.Messages.ListReply;
import dev.mana.coordinator.protocol.Messages.ListRequest;
import dev.mana.coordinator.protocol.Messages.Ok;
import dev.mana.coordinator.protocol.Messages.Quit;
import dev.mana.coordinator.protocol.Messages.SetInterval;
import dev.mana.coordinator.protocol.Messages.StatusReply;
import dev.mana.coordinator.protocol.Messages.StatusRequest;
import dev.mana.coordinator.protocol.Messages.Welcome;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * The one table from message type to its body codec. A new message type gets its codec here, or its
 * frames fail to encode and decode (BodyCodecsTest checks that every type has one).
 */
final class BodyCodecs {
    private BodyCodecs() {}

    /** A codec with the class it encodes, so that the table can hand it any {@link Message} of its type. */
    private record Entry<M extends Message>(Class<M> messageClass, BodyCodec<M> codec) {
        void encode(Message m, WireWriter w) throws ProtocolException {
            codec.encode(messageClass.cast(m), w);
        }
    }

    private static final Map<MessageType, Entry<?>> TABLE = new EnumMap<>(MessageType.class);

    private static <M extends Message> void register(MessageType type, Class<M> messageClass, BodyCodec<M> codec) {
        if (TABLE.put(type, new Entry<>(messageClass, codec)) != null) {
            throw new IllegalStateException("two codecs for " + type);
        }
    }

    // The empty bodies are registered for any Message, as the switch this table replaced wrote them
    // without a cast: only their type() counts.
    static {
        // §4.1 registration; HELLO carries a Hello or, for role = group, a GroupHello
        register(MessageType.CHALLENGE, Challenge.class, new RegistrationCodecs.ChallengeCodec());
        register(MessageType.AUTH, Auth.class, new RegistrationCodecs.AuthCodec());
        register(MessageType.AUTH_OK, AuthOk.class, new RegistrationCodecs.AuthOkCodec());
        register(MessageType.HELLO, Message.class, new RegistrationCodecs.HelloCodec());
        register(MessageType.WELCOME, Welcome.class, new RegistrationCodecs.WelcomeCodec());
        // §4.2 collectives
        register(MessageType.COLLECTIVE, Collective.class, new CollectiveCodecs.CollectiveCodec());
        register(MessageType.COLLECTIVE_DONE, CollectiveDone.class, new CollectiveCodecs.CollectiveDoneCodec());
        // §4.3 per-rank records
        register(MessageType.KV_PUT, KvPut.class, new RecordCodecs.KvPutCodec());
        register(MessageType.OK, Message.class, new EmptyBodyCodec<>(Ok::new));
        register(MessageType.KV_GET, KvGet.class, new RecordCodecs.KvGetCodec());
        register(MessageType.KV_VALUE, KvValue.class, new RecordCodecs.KvValueCodec());
        // §4.4 checkpoint
        register(MessageType.CKPT_REQUEST, CkptRequest.class, new CheckpointCodecs.CkptRequestCodec());
        register(MessageType.CKPT_ABORT, CkptAbort.class, new CheckpointCodecs.CkptAbortCodec());
        register(MessageType.KILL, Message.class, new EmptyBodyCodec<>(Kill::new));
        register(MessageType.CKPT_WRITTEN, CkptWritten.class, new CheckpointCodecs.CkptWrittenCodec());
        register(MessageType.CKPT_FAILED, CkptFailed.class, new CheckpointCodecs.CkptFailedCodec());
        // §4.5 leaving
        register(MessageType.BYE, Bye.class, new ByeCodec());
        // §4.6 control
        register(MessageType.LIST, Message.class, new EmptyBodyCodec<>(ListRequest::new));
        register(MessageType.LIST_REPLY, ListReply.class, new ControlCodecs.ListReplyCodec());
        register(MessageType.STATUS, Message.class, new EmptyBodyCodec<>(StatusRequest::new));
        register(MessageType.STATUS_REPLY, StatusReply.class, new ControlCodecs.StatusReplyCodec());
        register(MessageType.CHECKPOINT, Checkpoint.class, new ControlCodecs.CheckpointCodec());
        register(MessageType.CKPT_RESULT, CkptResult.class, new ControlCodecs.CkptResultCodec());
        register(MessageType.CKPT_PROGRESS, CkptProgress.class, new ControlCodecs.CkptProgressCodec());
        register(MessageType.SET_INTERVAL, SetInterval.class, new ControlCodecs.SetIntervalCodec());
        register(MessageType.KILL_JOB, Message.class, new EmptyBodyCodec<>(KillJob::new));
        register(MessageType.QUIT, Message.class, new EmptyBodyCodec<>(Quit::new));
        // §4.7 errors
        register(MessageType.ERROR, ErrorMessage.class, new ErrorCodec());
        // §4.8 rank groups
        register(MessageType.GROUP_COLLECTIVE, GroupCollective.class, new GroupCodecs.GroupCollectiveCodec());
        register(MessageType.GROUP_CKPT_WRITTEN, GroupCkptWritten.class, new GroupCodecs.GroupCkptWrittenCodec());
        register(MessageType.GROUP_CKPT_FAILED, GroupCkptFailed.class, new GroupCodecs.GroupCkptFailedCodec());
        register(MessageType.GROUP_BYE, GroupBye.class, new GroupCodecs.GroupByeCodec());
    }

    /** Whether {@code type} has a codec. */
    static boolean has(MessageType type) {
        return TABLE.containsKey(type);
    }

    /** Writes the body of {@code m} (no header). */
    static void encode(Message m, WireWriter w) throws ProtocolException {
        Entry<?> e = TABLE.get(Objects.requireNonNull(m.type(), "type"));
        if (e == null) {
            throw new ProtocolException(ErrorCode.PROTOCOL, "cannot encode " + m.type());
        }
        e.encode(m, w);
    }

    /** Reads a body of type {@code type}. */
    static Message decode(MessageType type, WireReader r) throws ProtocolException {
        Entry<?> e = TABLE.get(Objects.requireNonNull(type, "type"));
        if (e == null) {
            throw new ProtocolException(ErrorCode.PROTOCOL, "unknown message type " + type);
        }
        return e.codec().decode(r);
    }
}
