package dev.mana.inspector.internal;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ImageLayout;
import dev.mana.inspector.Images;
import dev.mana.inspector.ManaHeader;
import dev.mana.inspector.ParentInfo;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Opens the parents of an incremental image down to its full image, with the checks and the words of the C
 * restart's {@code open_chain} (core-native/src/lower-half/restore.c): each parent is found by name in the image's
 * folder and must be the one recorded (generation, header CRC, file size), with a consistent depth, of the same
 * program, rank and MPI. A reader that took another file would show memory no restart would ever recreate.
 */
public final class ChainOpener {
    private ChainOpener() {
    }

    /**
     * The chain of {@code top}, newest first ({@code top} itself, then each parent); on failure every parent opened so
     * far is closed and {@code top} is left open (it is the caller's). A missing or replaced parent is
     * {@link ErrorKind#INCOMPLETE}; a parent that is not a sound image keeps the class of its own failure; the message
     * names the parent either way.
     */
    public static List<ManaImageReader> open(ManaImageReader top) throws ImageException {
        List<ManaImageReader> chain = new ArrayList<>();
        chain.add(top);
        boolean ok = false;
        try {
            Path dir = top.path().toAbsolutePath().getParent();
            ManaImageReader child = top;
            Optional<ParentInfo> pi;
            while ((pi = child.parent()).isPresent()) {
                if (chain.size() >= ImageLayout.IMG_MAX_CHAIN) {
                    throw Fail.malformed("%s: the chain of incremental images is longer than %d", top.path(),
                            ImageLayout.IMG_MAX_CHAIN);
                }
                ParentInfo want = pi.get();
                ManaImageReader parent = openParent(child, dir.resolve(want.name()), want);
                chain.add(parent);
                checkParent(top, child, parent, want);
                child = parent;
            }
            ok = true;
            return chain;
        } finally {
            if (!ok) {
                for (int i = 1; i < chain.size(); i++) {
                    chain.get(i).close();
                }
            }
        }
    }

    private static ManaImageReader openParent(ManaImageReader child, Path p, ParentInfo want) throws ImageException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new ImageException(ErrorKind.INCOMPLETE, String.format(
                    "%s is incremental and needs %s (generation %d), which is gone: its unchanged pages cannot be read",
                    child.path(), p, want.generation()));
        }
        CheckpointImage img;
        try {
            img = Images.open(p);
        } catch (ImageException e) {
            throw new ImageException(e.kind(), String.format("%s is incremental and needs %s, which cannot be used: %s",
                    child.path(), p, e.getMessage()), e);
        }
        if (!(img instanceof ManaImageReader)) {
            img.close();
            throw new ImageException(ErrorKind.MALFORMED, String.format(
                    "%s is incremental and needs %s, which is not an image of our format", child.path(), p));
        }
        return (ManaImageReader) img;
    }

    private static void checkParent(ManaImageReader top, ManaImageReader child, ManaImageReader parent, ParentInfo want)
            throws ImageException {
        ManaHeader h = parent.header();
        if (h.generation() != want.generation() || h.headerCrc() != want.headerCrc() || h.fileSize() != want.fileSize()) {
            throw new ImageException(ErrorKind.INCOMPLETE, String.format(
                    "%s is not the parent %s was written on (generation %d, header CRC 0x%08x, %d bytes; found generation"
                            + " %d, 0x%08x, %d bytes): replaced or rewritten", parent.path(), child.path(),
                    want.generation(), want.headerCrc(), want.fileSize(), h.generation(), h.headerCrc(), h.fileSize()));
        }
        Optional<ParentInfo> grand = parent.parent();
        long depth = grand.map(g -> g.depth() + 1).orElse(1L);
        if (want.depth() != depth) {
            throw Fail.malformed("%s: its PARENT record says depth %d, its parent's chain has %d", child.path(),
                    want.depth(), depth);
        }
        ManaHeader t = top.header();
        if (h.rank() != t.rank() || h.nranks() != t.nranks() || !h.mpi().equals(t.mpi()) || !h.program().equals(t.program())) {
            throw new ImageException(ErrorKind.INCOMPLETE, String.format(
                    "%s (parent of %s) is of another program, rank or MPI", parent.path(), child.path()));
        }
    }
}
