package dev.mana.eclipse.core;

/**
 * One rank of a job, as {@code mana_status --list} shows it.
 *
 * @param rank 0-based rank
 * @param host host name
 * @param pid process id
 * @param state RUNNING, SUSPENDED, DRAINED, CHECKPOINTED, COMMITTED, RESTARTING, EXITED
 * @param generation the generation it registered with or last committed
 * @param mpi none, openmpi or mpich
 */
public record RankInfo(int rank, String host, int pid, String state, long generation, String mpi) {}
