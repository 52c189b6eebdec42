package dev.mana.inspector.cli;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.DmtcpImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ManaImage;

/** The views that only one image format offers, refused for the other with NOT_AVAILABLE. */
final class FormatGuard {
    private FormatGuard() {
    }

    static DmtcpImage requireDmtcp(CheckpointImage img, String view) throws ImageException {
        if (img instanceof DmtcpImage) {
            return (DmtcpImage) img;
        }
        throw new ImageException(ErrorKind.NOT_AVAILABLE, img.path() + ": " + view
                + " is for DMTCP v4.0 images; this is " + img.format().displayName());
    }

    static ManaImage requireMana(CheckpointImage img, String view) throws ImageException {
        if (img instanceof ManaImage) {
            return (ManaImage) img;
        }
        throw new ImageException(ErrorKind.NOT_AVAILABLE, img.path() + ": the " + view
                + " view needs our image format; DMTCP v4.0 images offer summary, map, verify, hexdump, extract, diff, simulate");
    }
}
