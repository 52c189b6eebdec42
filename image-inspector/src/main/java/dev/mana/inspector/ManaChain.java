package dev.mana.inspector;

import dev.mana.inspector.internal.ManaImageReader;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * An incremental image read with its chain (docs/image-format.md, "Incremental images"): every view is the newest
 * image's, except {@link #readMemory}, which gives memory as the restart recreates it from the whole chain (a page
 * from the newest image that stores it, zeros where that image has a zero run, else its parent's), and
 * {@link #verify}, which checks every image of the chain. Obtain one with {@link Images#openChain(Path)}, which has
 * already checked that each parent is the one recorded.
 */
public final class ManaChain implements ManaImage {
    /** Newest first; the last is the full image. */
    private final List<ManaImageReader> images;

    ManaChain(List<ManaImageReader> images) {
        this.images = List.copyOf(images);
    }

    /** The images of the chain, newest (the one opened) first, the full image last. */
    public List<ManaImage> images() {
        return List.copyOf(images);
    }

    /** The image that was opened: the newest of the chain. */
    public ManaImage top() {
        return images.get(0);
    }

    @Override
    public void readMemory(long address, ByteBuffer dst) throws ImageException {
        read(0, address, dst);
    }

    /** Reads through images.get(level) and, for what it leaves to its parent, the older images. */
    private void read(int level, long address, ByteBuffer dst) throws ImageException {
        ManaImageReader img = images.get(level);
        long addr = address;
        while (dst.hasRemaining()) {
            ManaImageReader.Piece p = img.readPiece(addr, dst, level == 0);
            if (p.parents()) {
                if (level + 1 >= images.size()) {
                    // the opener ends a chain at a full image, which leaves nothing to a parent
                    throw new IllegalStateException(img.path() + " leaves pages to a parent the chain lacks");
                }
                ByteBuffer part = dst.slice().limit((int) p.length());
                read(level + 1, addr, part);
                dst.position(dst.position() + (int) p.length());
            }
            addr += p.length();
            if (dst.hasRemaining() && addr == 0) {
                throw new ImageException(ErrorKind.NOT_FOUND, "address range wraps around");
            }
        }
    }

    /**
     * Verifies every image of the chain, one sequential pass each: the newest image's problems as they are, each
     * parent's prefixed with its file name. {@code progress} receives the bytes read over the whole chain.
     */
    @Override
    public VerifyReport verify(LongConsumer progress) throws ImageException {
        List<Problem> problems = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        long bytes = 0;
        int regions = 0;
        int sections = 0;
        for (int i = 0; i < images.size(); i++) {
            ManaImageReader img = images.get(i);
            long before = bytes;
            VerifyReport r = img.verify(progress == null ? null : n -> progress.accept(before + n));
            String prefix = i == 0 ? "" : "parent " + img.path().getFileName() + ": ";
            for (Problem p : r.problems()) {
                problems.add(i == 0 ? p : new Problem(p.kind(), prefix + p.message()));
            }
            for (String n : r.notes()) {
                notes.add(prefix + n);
            }
            bytes += r.bytesRead();
            regions += r.regionsChecked();
            sections += r.sectionsChecked();
        }
        return new VerifyReport(problems, bytes, regions, sections, true, notes);
    }

    @Override
    public void close() {
        for (ManaImageReader img : images) {
            img.close();
        }
    }

    // ---- the newest image's views ----

    @Override
    public Path path() {
        return top().path();
    }

    @Override
    public long fileSize() {
        return top().fileSize();
    }

    @Override
    public ImageSummary summary() throws ImageException {
        return top().summary();
    }

    @Override
    public List<MemoryRegion> regions() throws ImageException {
        return top().regions();
    }

    @Override
    public ManaHeader header() {
        return top().header();
    }

    @Override
    public List<SectionInfo> sections() {
        return top().sections();
    }

    @Override
    public ProcessInfo process() throws ImageException {
        return top().process();
    }

    @Override
    public List<ThreadInfo> threads() throws ImageException {
        return top().threads();
    }

    @Override
    public List<OpenFile> files() throws ImageException {
        return top().files();
    }

    @Override
    public SignalState signals() throws ImageException {
        return top().signals();
    }

    @Override
    public Optional<SectionInfo> mpiSection() {
        return top().mpiSection();
    }

    @Override
    public Optional<MpiSummary> mpi() throws ImageException {
        return top().mpi();
    }

    @Override
    public List<MpiObject> mpiObjects() throws ImageException {
        return top().mpiObjects();
    }

    @Override
    public Optional<ParentInfo> parent() throws ImageException {
        return top().parent();
    }

    @Override
    public void readSection(SectionInfo section, long offset, ByteBuffer dst) throws ImageException {
        top().readSection(section, offset, dst);
    }
}
