package dev.mana.inspector;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;

/** An image in our format (docs/image-format.md). Sections are read and checked when first asked for. */
public interface ManaImage extends CheckpointImage {
    @Override
    default ImageFormat format() {
        return ImageFormat.MANA_V1;
    }

    ManaHeader header();

    /** The section table, in file order of the table. */
    List<SectionInfo> sections();

    ProcessInfo process() throws ImageException;

    List<ThreadInfo> threads() throws ImageException;

    List<OpenFile> files() throws ImageException;

    SignalState signals() throws ImageException;

    /** The MPI section's table entry, when the image has one (its contents are defined by the MPI runtime). */
    Optional<SectionInfo> mpiSection();

    /** The MPI section decoded, when the image has one. */
    Optional<MpiSummary> mpi() throws ImageException;

    /** The MPI_OBJECTS section's records (open MPI-IO files); empty when the image has none. */
    List<MpiObject> mpiObjects() throws ImageException;

    /**
     * The image an incremental image completes (its PARENT section); empty for a full image. Pages of a region in
     * neither a stored nor a zero run are the parent's: {@code readMemory} of the image alone shows them as zero;
     * {@link Images#openChain} reads them from the parents.
     */
    Optional<ParentInfo> parent() throws ImageException;

    /** Reads {@code dst.remaining()} bytes of a section from {@code offset} within it. */
    void readSection(SectionInfo section, long offset, ByteBuffer dst) throws ImageException;
}
