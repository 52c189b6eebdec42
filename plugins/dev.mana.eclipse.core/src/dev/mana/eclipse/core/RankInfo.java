package dev.mana.eclipse.core;

import dev.mana.coordinator.RankState;

/**
 * One rank of a job, as {@code mana_status --list} shows it.
 *
 * @param rank 0-based rank
 * @param host host name
 * @param pid process id
 * @param state the coordinator's state of the rank (the control plane's enum, one definition)
 * @param generation the generation it registered with or last committed
 * @param mpi none, openmpi or mpich
 */
public record RankInfo(int rank, String host, int pid, RankState state, long generation, String mpi) {}
