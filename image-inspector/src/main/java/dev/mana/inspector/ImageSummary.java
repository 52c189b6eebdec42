package dev.mana.inspector;

/**
 * The overview of an image. Fields a format does not record are -1 (numbers) or "" (text).
 *
 * @param format        which format
 * @param program       program name (basename)
 * @param executable    full path of the executable, or ""
 * @param pid           pid at checkpoint
 * @param rank          MPI rank, -1 when unknown (DMTCP images)
 * @param nranks        world size, -1 when unknown
 * @param host          host name (DMTCP: the host id in hex)
 * @param mpi           "none", "openmpi", "mpich", or "" when unknown
 * @param generation    checkpoint generation
 * @param timeUnixNs    when the checkpoint was taken (ns since the epoch), -1 when unknown
 * @param fileSize      bytes of the image file (compressed size for a gzip'd DMTCP image)
 * @param compressed    the file is gzip'd as a whole
 * @param regionCount   memory regions listed
 * @param threadCount   threads, -1 when the format does not say
 * @param fileCount     file descriptors, -1 when the format does not say
 * @param mappedBytes   sum of {@code end - start} over saved regions
 * @param storedBytes   payload bytes in the image
 * @param zeroBytes     bytes restore recreates as zero pages
 * @param mpiSection    the image carries MPI state
 */
public record ImageSummary(
        ImageFormat format,
        String program,
        String executable,
        long pid,
        long rank,
        long nranks,
        String host,
        String mpi,
        long generation,
        long timeUnixNs,
        long fileSize,
        boolean compressed,
        long regionCount,
        long threadCount,
        long fileCount,
        long mappedBytes,
        long storedBytes,
        long zeroBytes,
        boolean mpiSection) {
}
