package dev.mana.coordinator.internal;

import dev.mana.coordinator.CoordinatorException;
import dev.mana.coordinator.RankState;
import dev.mana.coordinator.RefusedRank;
import dev.mana.coordinator.protocol.ErrorCode;
import dev.mana.coordinator.protocol.Messages.GroupMember;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The jobs and their ranks: which job a name means, the registration of a rank, and the ranks refused
 * at HELLO. What a registration or a refusal sets off (events, an aborted checkpoint) is
 * {@link CoordinatorState}'s.
 */
final class RankRegistry {
    final Map<String, Job> jobs = new LinkedHashMap<>();
    /**
     * Ranks refused at HELLO, by job name. Such a rank runs on without checkpoints, so a checkpoint of
     * its job would be reported written without its image: the job's checkpoints are refused while
     * it has one. By name, not on the Job: the refusal may come before the job's first rank
     * registers (rank 1 of an mpirun before rank 0), and then it counts for the run that rank
     * starts. Cleared when the run ends (its last live rank leaves); a refused process that then
     * registers after all (a rank that followed an exec is briefly a duplicate of itself) takes its
     * refusal back.
     */
    private final Map<String, Refusals> refusals = new HashMap<>();

    /** A job's refused ranks: the first {@link #KEEP} listed, the rest counted. */
    private static final class Refusals {
        static final int KEEP = 64;    // what STATUS_REPLY lists; far below its 1 MiB
        final List<RefusedRank> kept = new ArrayList<>(1);
        int dropped;                   // beyond KEEP: never taken back, only cleared with the run

        int total() { return kept.size() + dropped; }
    }

    // ================================================================ which job

    Job resolve(String name) {
        if (name != null && !name.isEmpty()) return jobs.get(name);
        if (jobs.size() == 1) return jobs.values().iterator().next();
        Job only = null;
        for (Job j : jobs.values()) {
            if (j.live > 0) {
                if (only != null) return null;
                only = j;
            }
        }
        return only;
    }

    /**
     * The job a control request means; null when no job exists yet and none was named, or the named
     * one has no rank yet but a refused one (its status shows it, its checkpoint is refused for it).
     */
    Job resolveOrThrow(String name) {
        Job j = resolve(name);
        if (j != null) return j;
        if (name != null && !name.isEmpty() && !refusals.containsKey(name)) {
            throw new IllegalStateException(new CoordinatorException("no job named '" + name + "'",
                    ErrorCode.UNKNOWN_JOB, null));
        }
        if (jobs.isEmpty()) return null;
        throw new IllegalStateException(new CoordinatorException("several jobs (" + String.join(", ", jobs.keySet())
                + "): name one", ErrorCode.UNKNOWN_JOB, null));
    }

    int totalLive() {
        int n = 0;
        for (Job j : jobs.values()) n += j.live;
        return n;
    }

    // ================================================================ registration

    /** Registers one rank of job j on {@code conn}, from a rank HELLO or one member of a group HELLO. */
    Slot register(Job j, GroupMember m, CoordinatorState.Session conn, int clientId) {
        Slot s = new Slot(j, m.rank());
        s.conn = conn;
        s.host = m.host();
        s.pid = m.pid();
        s.mpi = m.mpi();
        s.ckptdir = m.ckptdir();
        s.program = m.program();
        s.generation = m.generation();
        s.clientId = clientId;
        s.state = m.restarting() ? RankState.RESTARTING : RankState.RUNNING;
        // A restarted rank, and one that lost its coordinator and registers with this one, bring
        // the generation they last committed: the next checkpoint must be newer than it.
        j.generation = Math.max(j.generation, m.generation());
        j.slots[m.rank()] = s;
        j.live++;
        refusalTakenBack(j.name, s.host, s.pid);
        return s;
    }

    // ================================================================ refused ranks

    boolean hasRefusals(String job) {
        return refusals.containsKey(job);
    }

    List<RefusedRank> refusedRanks(String job) {
        Refusals rs = refusals.get(job);
        return rs == null ? List.of() : rs.kept;
    }

    /** Remembers a refused rank of job {@code name}; false when the same process was refused the same way before. */
    boolean refused(String name, RefusedRank r) {
        Refusals rs = refusals.computeIfAbsent(name, k -> new Refusals());
        if (rs.kept.contains(r)) return false;   // the same process, refused the same way again
        if (rs.kept.size() < Refusals.KEEP) {
            rs.kept.add(r);
        } else {
            rs.dropped++;
        }
        return true;
    }

    /** The process (host, pid) registered after all: its refusals of this job no longer hold. */
    private void refusalTakenBack(String name, String host, int pid) {
        Refusals rs = refusals.get(name);
        if (rs == null) return;
        rs.kept.removeIf(r -> r.pid() == pid && r.host().equals(host));
        if (rs.total() == 0) refusals.remove(name);
    }

    /** The run of job {@code name} is over (its last live rank left): the next one starts clean. */
    void runEnded(String name) {
        refusals.remove(name);
    }

    /** Why job {@code name} cannot be checkpointed, or null when no rank of it was refused. */
    String refusalText(String name) {
        Refusals rs = refusals.get(name);
        if (rs == null || rs.total() == 0) return null;
        RefusedRank first = rs.kept.isEmpty() ? null : rs.kept.get(0);
        int more = rs.total() - (first == null ? 0 : 1);
        return "job '" + name + "' has a rank the coordinator refused at registration"
                + (first == null ? "" : ": " + first.describe())
                + (more > 0 ? " (and " + more + " more refused)" : "")
                + "; it runs without checkpoints, so a checkpoint would miss it (mana_status --list shows it)";
    }
}
