package dev.mana.coordinator;

/** {@code reached} of {@code nranks} ranks have reached {@code state} in checkpoint {@code generation}. */
public record CheckpointProgress(String job, int generation, RankState state, int reached, int nranks) {
}
