package dev.mana.coordinator;

/**
 * One registered rank. {@code program} and {@code ckptdir} are known in-process only (a remote
 * {@link CoordinatorClient#list()} leaves them empty).
 */
public record RankInfo(String job, int rank, String host, int pid, RankState state, int generation, String mpi,
                       int clientId, String program, String ckptdir) {
}
