package dev.mana.inspector;

/**
 * An image's MPI section (struct mana_img_mpi, docs/image-format.md): counts of the rank's MPI state; the
 * state itself is in upper-half memory.
 *
 * @param kind          1 Open MPI, 2 MPICH
 * @param threadLevel   the thread level granted to the program ({@code MPI_THREAD_*})
 * @param comms         live communicators, the predefined ones included
 * @param groups        live groups
 * @param datatypes     derived datatypes
 * @param ops           user-defined reduction operations
 * @param requests      pending requests
 * @param bufferedMsgs  messages the drain received that no receive had matched yet
 * @param bufferedBytes their payload bytes
 * @param sent          point-to-point messages sent (whole run)
 * @param received      point-to-point messages received
 * @param replayEntries object recipes the restart replays
 * @param finalized     MPI_Finalize was called
 */
public record MpiSummary(int kind, int threadLevel, long comms, long groups, long datatypes, long ops, long requests,
                         long bufferedMsgs, long bufferedBytes, long sent, long received, long replayEntries,
                         boolean finalized) {
    public String kindName() {
        return kind == 1 ? "openmpi" : kind == 2 ? "mpich" : "kind " + Integer.toUnsignedString(kind);
    }
}
