package dev.mana.coordinator.protocol;

import dev.mana.coordinator.protocol.Messages.*;
import java.io.IOException;

/**
 * Receives decoded messages, one method per message type. Every method defaults to
 * {@link #unexpected}, which rejects the message with {@code ERROR PROTOCOL}; an endpoint overrides
 * the messages it accepts.
 */
public interface MessageHandler {
    default void onChallenge(int id, Challenge m) throws IOException { unexpected(id, m); }
    default void onAuth(int id, Auth m) throws IOException { unexpected(id, m); }
    default void onAuthOk(int id, AuthOk m) throws IOException { unexpected(id, m); }
    default void onHello(int id, Hello m) throws IOException { unexpected(id, m); }
    default void onGroupHello(int id, GroupHello m) throws IOException { unexpected(id, m); }
    default void onWelcome(int id, Welcome m) throws IOException { unexpected(id, m); }
    default void onCollective(int id, Collective m) throws IOException { unexpected(id, m); }
    default void onCollectiveDone(int id, CollectiveDone m) throws IOException { unexpected(id, m); }
    default void onGroupCollective(int id, GroupCollective m) throws IOException { unexpected(id, m); }
    default void onCkptWritten(int id, CkptWritten m) throws IOException { unexpected(id, m); }
    default void onCkptFailed(int id, CkptFailed m) throws IOException { unexpected(id, m); }
    default void onGroupCkptWritten(int id, GroupCkptWritten m) throws IOException { unexpected(id, m); }
    default void onGroupCkptFailed(int id, GroupCkptFailed m) throws IOException { unexpected(id, m); }
    default void onKvPut(int id, KvPut m) throws IOException { unexpected(id, m); }
    default void onOk(int id, Ok m) throws IOException { unexpected(id, m); }
    default void onKvGet(int id, KvGet m) throws IOException { unexpected(id, m); }
    default void onKvValue(int id, KvValue m) throws IOException { unexpected(id, m); }
    default void onBye(int id, Bye m) throws IOException { unexpected(id, m); }
    default void onGroupBye(int id, GroupBye m) throws IOException { unexpected(id, m); }
    default void onCkptRequest(int id, CkptRequest m) throws IOException { unexpected(id, m); }
    default void onCkptAbort(int id, CkptAbort m) throws IOException { unexpected(id, m); }
    default void onKill(int id, Kill m) throws IOException { unexpected(id, m); }
    default void onList(int id, ListRequest m) throws IOException { unexpected(id, m); }
    default void onListReply(int id, ListReply m) throws IOException { unexpected(id, m); }
    default void onStatus(int id, StatusRequest m) throws IOException { unexpected(id, m); }
    default void onStatusReply(int id, StatusReply m) throws IOException { unexpected(id, m); }
    default void onCheckpoint(int id, Checkpoint m) throws IOException { unexpected(id, m); }
    default void onCkptResult(int id, CkptResult m) throws IOException { unexpected(id, m); }
    default void onCkptProgress(int id, CkptProgress m) throws IOException { unexpected(id, m); }
    default void onSetInterval(int id, SetInterval m) throws IOException { unexpected(id, m); }
    default void onKillJob(int id, KillJob m) throws IOException { unexpected(id, m); }
    default void onQuit(int id, Quit m) throws IOException { unexpected(id, m); }
    default void onError(int id, ErrorMessage m) throws IOException { unexpected(id, m); }

    /** A message this endpoint does not accept (in its current state). */
    default void unexpected(int id, Message m) throws IOException {
        throw new ProtocolException(ErrorCode.PROTOCOL, "message " + m.type() + " not allowed here");
    }
}
