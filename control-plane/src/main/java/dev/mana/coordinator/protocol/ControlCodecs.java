package dev.mana.coordinator.protocol;

import dev.mana.coordinator.protocol.Messages.Checkpoint;
import dev.mana.coordinator.protocol.Messages.CkptProgress;
import dev.mana.coordinator.protocol.Messages.CkptResult;
import dev.mana.coordinator.protocol.Messages.ListReply;
import dev.mana.coordinator.protocol.Messages.RankEntry;
import dev.mana.coordinator.protocol.Messages.RefusedEntry;
import dev.mana.coordinator.protocol.Messages.SetInterval;
import dev.mana.coordinator.protocol.Messages.StatusReply;
import java.util.ArrayList;
import java.util.List;

/**
 * The bodies of §4.6, control: LIST_REPLY, STATUS_REPLY, CHECKPOINT, CKPT_RESULT, CKPT_PROGRESS and
 * SET_INTERVAL (LIST, STATUS, KILL_JOB and QUIT are empty: {@link EmptyBodyCodec}).
 */
final class ControlCodecs {
    private ControlCodecs() {}

    static final class ListReplyCodec implements BodyCodec<ListReply> {
        @Override
        public void encode(ListReply m, WireWriter w) throws ProtocolException {
            w.u32(m.ranks().size());
            for (RankEntry e : m.ranks()) {
                w.i32(e.rank()).str(e.host()).i32(e.pid()).u8(e.state()).u32(e.generation()).str(e.mpi())
                        .u32(e.clientId());
            }
        }

        @Override
        public ListReply decode(WireReader r) throws ProtocolException {
            // smallest entry: rank 4, host 2, pid 4, state 1, generation 4, mpi 2, client 4
            int n = r.count(Integer.MAX_VALUE, 21, "ranks");
            List<RankEntry> ranks = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                ranks.add(new RankEntry(r.i32(), r.str(), r.i32(), r.u8(), r.u32(), r.str(), r.u32()));
            }
            return new ListReply(ranks);
        }
    }

    static final class StatusReplyCodec implements BodyCodec<StatusReply> {
        @Override
        public void encode(StatusReply m, WireWriter w) throws ProtocolException {
            w.str(m.job()).i32(m.nranks()).u32(m.connected()).u32(m.generation()).bool(m.checkpointing())
                    .i64(m.lastCkptUnixMs()).u64(m.lastCkptNs()).u64(m.lastCkptBytes()).str(m.lastCkptDir())
                    .u32(m.interval());
            w.u32(m.refused().size());
            for (RefusedEntry e : m.refused()) w.i32(e.rank()).i32(e.nranks()).str(e.host()).i32(e.pid()).str(e.reason());
        }

        @Override
        public StatusReply decode(WireReader r) throws ProtocolException {
            String job = r.str();
            int nranks = r.i32(), connected = r.u32(), generation = r.u32();
            boolean checkpointing = r.bool();
            long unixMs = r.i64(), ns = r.u64(), bytes = r.u64();
            String dir = r.str();
            int interval = r.u32();
            List<RefusedEntry> refused = new ArrayList<>(0);
            if (r.remaining() > 0) { // absent from the first v2 coordinators' replies
                // smallest entry: rank 4, nranks 4, host 2, pid 4, reason 2
                int n = r.count(Integer.MAX_VALUE, 16, "refused ranks");
                for (int i = 0; i < n; i++) refused.add(new RefusedEntry(r.i32(), r.i32(), r.str(), r.i32(), r.str()));
            }
            return new StatusReply(job, nranks, connected, generation, checkpointing, unixMs, ns, bytes, dir,
                    interval, refused);
        }
    }

    static final class CheckpointCodec implements BodyCodec<Checkpoint> {
        @Override
        public void encode(Checkpoint m, WireWriter w) {
            w.u8(m.flags());
        }

        @Override
        public Checkpoint decode(WireReader r) throws ProtocolException {
            return new Checkpoint(r.u8());
        }
    }

    static final class CkptResultCodec implements BodyCodec<CkptResult> {
        @Override
        public void encode(CkptResult m, WireWriter w) throws ProtocolException {
            w.bool(m.ok()).u32(m.generation()).u64(m.elapsedNs()).u64(m.totalBytes()).u32(m.ranks())
                    .str(m.dir()).str(m.message());
        }

        @Override
        public CkptResult decode(WireReader r) throws ProtocolException {
            return new CkptResult(r.bool(), r.u32(), r.u64(), r.u64(), r.u32(), r.str(), r.str());
        }
    }

    static final class CkptProgressCodec implements BodyCodec<CkptProgress> {
        @Override
        public void encode(CkptProgress m, WireWriter w) {
            w.u32(m.generation()).u8(m.state()).u32(m.reached()).u32(m.nranks());
        }

        @Override
        public CkptProgress decode(WireReader r) throws ProtocolException {
            return new CkptProgress(r.u32(), r.u8(), r.u32(), r.u32());
        }
    }

    static final class SetIntervalCodec implements BodyCodec<SetInterval> {
        @Override
        public void encode(SetInterval m, WireWriter w) {
            w.u32(m.seconds());
        }

        @Override
        public SetInterval decode(WireReader r) throws ProtocolException {
            return new SetInterval(r.u32());
        }
    }
}
