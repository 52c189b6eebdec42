package dev.mana.coordinator;

/**
 * A rank the coordinator refused when it registered (rank outside 0..nranks-1, an nranks that is not the
 * job's, a rank already registered). It runs without checkpoints, so while its job lists it (until the
 * job's run ends) every checkpoint of the job is refused: one would be reported written without it.
 *
 * @param rank   the rank it claimed
 * @param nranks the world size it claimed
 * @param reason the coordinator's refusal, as the rank got it ({@code rank 1 outside 0..0})
 */
public record RefusedRank(int rank, int nranks, String host, int pid, String reason) {

    /** One line: {@code rank 1 (pid 4242 on node7): rank 1 outside 0..0}. */
    public String describe() {
        return "rank " + rank + " (pid " + pid + " on " + host + "): " + reason;
    }
}
