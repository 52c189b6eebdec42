package dev.mana.inspector;

import dev.mana.inspector.internal.ChainOpener;
import dev.mana.inspector.internal.DmtcpImageReader;
import dev.mana.inspector.internal.Fail;
import dev.mana.inspector.internal.ManaImageReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** Entry point of the library: opens an image of either format by looking at its first bytes. */
public final class Images {
    private Images() {
    }

    /**
     * Opens an image: our format ({@code MANAIMG1}), a DMTCP v4.0 image, or a gzip'd DMTCP image.
     * Reads only the fixed headers. The caller closes the image.
     */
    public static CheckpointImage open(Path path) throws ImageException {
        if (Files.isDirectory(path)) {
            throw new ImageException(ErrorKind.IO, path + ": is a directory (for a checkpoint directory use `mana_inspect dir`)");
        }
        if (Files.exists(path) && !Files.isRegularFile(path)) {
            // a FIFO or a device would block or never end: images are regular files
            throw new ImageException(ErrorKind.IO, path + ": not a regular file");
        }
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new ImageException(ErrorKind.IO, path + ": no such file", e);
        } catch (AccessDeniedException e) {
            throw new ImageException(ErrorKind.IO, path + ": permission denied", e);
        } catch (IOException | SecurityException e) {
            throw new ImageException(ErrorKind.IO, path + ": cannot open (" + e.getMessage() + ")", e);
        }
        boolean handedOver = false;
        try {
            ByteBuffer b = ByteBuffer.allocate(32);
            while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
                // read up to 32 bytes
            }
            byte[] head = new byte[b.position()];
            b.flip();
            b.get(head);
            CheckpointImage img;
            if (head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b) {
                img = DmtcpImageReader.open(path, ch, true);
            } else if (startsWith(head, "MANAIMG")) {
                img = ManaImageReader.open(path, ch);
            } else if (startsWith(head, DmtcpImageReader.SIGNATURE_PREFIX)) {
                img = DmtcpImageReader.open(path, ch, false);
            } else if (head.length == 0) {
                throw Fail.truncated("%s: empty file", path);
            } else if (isPrefixOf(head, "MANAIMG1") || isPrefixOf(head, DmtcpImageReader.SIGNATURE)
                    || (head.length == 1 && (head[0] & 0xff) == 0x1f)) {
                throw Fail.truncated("%s: %d bytes, cut inside the magic", path, head.length);
            } else {
                StringBuilder hex = new StringBuilder();
                for (int i = 0; i < Math.min(8, head.length); i++) {
                    hex.append(String.format("%02x", head[i] & 0xff));
                }
                throw new ImageException(ErrorKind.NOT_AN_IMAGE, path
                        + ": not a checkpoint image (no MANAIMG1, DMTCP v4.0 or gzip magic; starts with " + hex + ")");
            }
            handedOver = true;
            return img;
        } catch (IOException e) {
            if (e instanceof ImageException) {
                throw (ImageException) e;
            }
            throw new ImageException(ErrorKind.IO, path + ": " + e.getMessage(), e);
        } finally {
            if (!handedOver) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // already failing
                }
            }
        }
    }

    /**
     * Opens an image with its chain: an incremental image comes back as a {@link ManaChain}, whose
     * {@code readMemory} reads the pages it leaves to its parents from them, as a restart would; any other image
     * comes back as {@link #open} gives it. Each parent is looked up by name in the image's folder and must be the one
     * the image records (generation, header CRC, file size), else {@link ErrorKind#INCOMPLETE} with a message naming
     * the missing or replaced parent (a parent that is itself unreadable keeps its own class). The caller closes the
     * result, which closes every image of the chain.
     */
    public static CheckpointImage openChain(Path path) throws ImageException {
        CheckpointImage img = open(path);
        boolean handedOver = false;
        try {
            if (!(img instanceof ManaImageReader m) || m.parent().isEmpty()) {
                handedOver = true;
                return img;
            }
            ManaChain chain = new ManaChain(ChainOpener.open(m));
            handedOver = true;
            return chain;
        } finally {
            if (!handedOver) {
                img.close();
            }
        }
    }

    /**
     * Opens an image for browsing even when it is damaged: where {@link #open} refuses an image of our
     * format because its header checksum fails, its size differs from the header's or its section table
     * cannot be read, this opens it anyway and lists those problems, so that what is intact (the header's
     * values, sections inside the file, payloads) can still be shown. Never throws for a damaged image:
     * a file that cannot be opened at all comes back as a null image and its one reason. Never writes.
     */
    public static Salvaged salvage(Path path) {
        try {
            return new Salvaged(open(path), List.of());
        } catch (ImageException first) {
            if (first.kind() == ErrorKind.TRUNCATED || first.kind() == ErrorKind.MALFORMED
                    || first.kind() == ErrorKind.CORRUPT) {
                try {
                    FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
                    List<Problem> found = new ArrayList<>();
                    ByteBuffer b = ByteBuffer.allocate(8);
                    while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
                        // the magic
                    }
                    if (startsWith(b.array(), "MANAIMG1") && b.position() == 8) {
                        CheckpointImage img = ManaImageReader.openSalvaging(path, ch, found);
                        return new Salvaged(img, found);
                    }
                    ch.close();
                } catch (ImageException second) {
                    return new Salvaged(null, List.of(new Problem(second.kind(), second.getMessage())));
                } catch (IOException ignored) {
                    // report the first failure
                }
            }
            return new Salvaged(null, List.of(new Problem(first.kind(), first.getMessage())));
        }
    }

    private static boolean startsWith(byte[] head, String magic) {
        byte[] m = magic.getBytes(StandardCharsets.ISO_8859_1);
        if (head.length < m.length) {
            return false;
        }
        for (int i = 0; i < m.length; i++) {
            if (head[i] != m[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean isPrefixOf(byte[] head, String magic) {
        byte[] m = magic.getBytes(StandardCharsets.ISO_8859_1);
        for (int i = 0; i < head.length; i++) {
            if (i >= m.length || head[i] != m[i]) {
                return false;
            }
        }
        return true;
    }
}
