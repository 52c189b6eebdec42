package dev.mana.mpidiag;

import java.util.List;

/**
 * One function of the coverage manifest.
 *
 * @param name   the C binding, {@code MPI_*}
 * @param status what the runtime does with it
 * @param mpis   the ABIs whose library exports it ({@code openmpi}, {@code mpich})
 * @param reason one sentence a user can act on; null for supported functions without one
 */
public record MpiFunction(String name, Status status, List<String> mpis, String reason) {
    public MpiFunction {
        mpis = List.copyOf(mpis);
    }

    /** Whether the given ABI exports it; a null ABI means "any". */
    public boolean exportedBy(String mpi) {
        return mpi == null || mpis.contains(mpi);
    }
}
