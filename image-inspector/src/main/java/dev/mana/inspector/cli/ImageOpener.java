package dev.mana.inspector.cli;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.Images;
import java.nio.file.Path;

/** Opens the images the commands name; an error names the file it is about. */
final class ImageOpener {
    private ImageOpener() {
    }

    static CheckpointImage open(Path p) throws ImageException {
        try {
            return Images.open(p);
        } catch (ImageException e) {
            throw withPath(p, e);
        }
    }

    /**
     * For the commands that read memory: an incremental image with its chain (its unchanged pages are its
     * parents'), any other image as {@link #open} gives it.
     */
    static CheckpointImage openChain(Path p) throws ImageException {
        try {
            return Images.openChain(p);
        } catch (ImageException e) {
            throw withPath(p, e);
        }
    }

    static ImageException withPath(Path p, ImageException e) {
        String m = e.getMessage() == null ? "" : e.getMessage();
        if (m.startsWith(p.toString())) {
            return e;
        }
        return new ImageException(e.kind(), p + ": " + m, e);
    }
}
