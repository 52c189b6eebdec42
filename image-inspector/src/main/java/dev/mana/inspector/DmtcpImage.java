package dev.mana.inspector;

import java.util.List;

/** A DMTCP v4.0 image (MANA 1.x), read-only. */
public interface DmtcpImage extends CheckpointImage {
    @Override
    default ImageFormat format() {
        return ImageFormat.DMTCP_V4;
    }

    DmtcpHeader header();

    /** The file is gzip'd as a whole (it is then read as a stream, never positioned). */
    boolean compressed();

    /** Every region header as stored, CHILD headers included, in file order. */
    List<DmtcpArea> areas() throws ImageException;

    /**
     * What {@code mtcp_restart --simulate} prints for this image, line for line (each line ends with
     * '\n'): the header lines, a blank line, "**** Listing ckpt image area:", one line per non-CHILD
     * header.
     */
    String simulate() throws ImageException;
}
