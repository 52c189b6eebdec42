package dev.mana.inspector;

import java.io.Closeable;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * An open checkpoint image, of either format. Opening reads only the fixed headers; everything else
 * is read when asked for, and payloads are never loaded as a whole (reads are positional, into the
 * caller's buffer). Implementations are safe for use by one thread at a time; {@link #readMemory} and
 * the accessors may be called from several threads for our format (positional reads).
 *
 * <p>Every failure is an {@link ImageException} whose {@link ImageException#kind()} classifies it.
 * Obtain instances with {@link Images#open(Path)}.
 */
public interface CheckpointImage extends Closeable {
    Path path();

    ImageFormat format();

    /** Size of the file on disk. */
    long fileSize();

    /** The overview: cheap (headers only) for our format. */
    ImageSummary summary() throws ImageException;

    /** The memory map, in address order (DMTCP: parent/child headers merged into one region each). */
    List<MemoryRegion> regions() throws ImageException;

    /** The region holding {@code address}, or null. */
    default MemoryRegion regionAt(long address) throws ImageException {
        List<MemoryRegion> rs = regions();
        int lo = 0;
        int hi = rs.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            MemoryRegion r = rs.get(mid);
            if (Long.compareUnsigned(address, r.start()) < 0) {
                hi = mid - 1;
            } else if (Long.compareUnsigned(address, r.end()) >= 0) {
                lo = mid + 1;
            } else {
                return r;
            }
        }
        return null;
    }

    /**
     * Copies process memory starting at {@code address} into {@code dst} (its remaining bytes), as restore
     * would recreate it: stored pages from the image, zero pages as zeros. The whole range must lie in
     * saved regions, else {@link ErrorKind#NOT_FOUND}.
     */
    void readMemory(long address, ByteBuffer dst) throws ImageException;

    /**
     * Checks the whole image: checksums, truncation, consistency of the records. Reads every byte of
     * the file once, sequentially. {@code progress} (may be null) receives the bytes read so far.
     */
    VerifyReport verify(LongConsumer progress) throws ImageException;

    @Override
    void close();
}
