package dev.mana.gdb.split;

import dev.mana.elf.ElfFile;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.Half;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.MemoryRegion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ELF objects of both halves of a split process, each with its load bias and a build-id check,
 * and the classification of any address into a half.
 *
 * <p>Where the facts come from:
 * <ul>
 * <li><b>upper half of a restarted process</b>: the checkpoint image. The restore code maps large runs
 *   from the image file itself and the rest anonymously, so {@code /proc/PID/maps} no longer names the
 *   application or its libraries; the image's regions keep each one's path and file offset as they
 *   were at the checkpoint. Its build-id is read from the image's memory.</li>
 * <li><b>upper half of a launched process</b>: {@code /proc/PID/maps}, minus the lower half's ranges
 *   from {@code lh_info}.</li>
 * <li><b>lower half</b>: {@code /proc/PID/maps}: every file mapping that is not upper half.</li>
 * </ul>
 */
public final class SplitProcess {
    private final List<ElfObject> objects;
    private final List<AddressRange> upperRanges;
    private final LhInfo lhInfo;
    private final List<String> warnings;
    private final Path lowerHalfExe;
    /** [vdso], [vvar], [vsyscall] of the live process: the kernel's, neither half's. */
    private final List<AddressRange> kernelRanges;

    private SplitProcess(List<ElfObject> objects, List<AddressRange> upperRanges, LhInfo lhInfo, List<String> warnings,
                         Path lowerHalfExe, List<AddressRange> kernelRanges) {
        this.kernelRanges = List.copyOf(kernelRanges);
        this.objects = List.copyOf(objects);
        this.upperRanges = upperRanges == null ? null : List.copyOf(upperRanges);
        this.lhInfo = lhInfo;
        this.warnings = List.copyOf(warnings);
        this.lowerHalfExe = lowerHalfExe;
    }

    /** Every ELF object of both halves, by address. */
    public List<ElfObject> objects() { return objects; }

    /** The lower half's {@code lh_info}, or null when it could not be read (the reason is in {@link #warnings()}). */
    public LhInfo lhInfo() { return lhInfo; }

    /** Things the user should know: unreadable lh_info, mismatching build-ids, missing files. */
    public List<String> warnings() { return warnings; }

    /** The process's {@code /proc/PID/exe} ({@code bin/lower-half}), or null for an image alone. */
    public Path lowerHalfExe() { return lowerHalfExe; }

    /**
     * The ranges {@link #halfOf} decides with: addresses inside them belong to {@link #insideHalf()},
     * all others to the other half. After a restart these are the image's upper ranges; for a launched
     * process the lower half's ranges from {@code lh_info}; empty (all upper) when neither is known.
     */
    public List<AddressRange> halfRanges() {
        if (upperRanges != null) {
            return upperRanges;
        }
        return lhInfo != null ? lhInfo.lowerRanges() : List.of();
    }

    /** The half of the addresses inside {@link #halfRanges()}. */
    public Half insideHalf() {
        return upperRanges != null || lhInfo == null ? Half.UPPER : Half.LOWER;
    }

    public List<ElfObject> objects(Half half) {
        return objects.stream().filter(o -> o.half() == half).toList();
    }

    /** The object holding {@code address}, or null. */
    public ElfObject objectAt(long address) {
        for (ElfObject o : objects) {
            if (o.contains(address)) {
                return o;
            }
        }
        return null;
    }

    /**
     * The half of {@code address}: the checkpoint's upper regions when there is an image, else the
     * lower half's own ranges from {@code lh_info}; {@link Half#KERNEL} when neither can tell.
     */
    public Half halfOf(long address) {
        for (AddressRange r : kernelRanges) {
            if (r.contains(address)) {
                return Half.KERNEL;   // e.g. clock_gettime in the vDSO, called from either half
            }
        }
        if (upperRanges != null) {
            for (AddressRange r : upperRanges) {
                if (r.contains(address)) {
                    return Half.UPPER;
                }
            }
            ElfObject o = objectAt(address);
            return o != null ? o.half() : Half.LOWER;
        }
        if (lhInfo != null) {
            return lhInfo.inLowerHalf(address) ? Half.LOWER : Half.UPPER;
        }
        ElfObject o = objectAt(address);
        return o == null ? Half.KERNEL : o.half();
    }

    /**
     * A live process. {@code image} (may be null) is the image it was restarted from: then the upper
     * half comes from the image.
     */
    public static SplitProcess ofProcess(long pid, CheckpointImage image) throws IOException {
        List<String> warnings = new ArrayList<>();
        List<ProcMaps.Mapping> maps = ProcMaps.read(pid);
        Path exe;
        try {
            exe = Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe"));
        } catch (IOException e) {
            throw new IOException("cannot read /proc/" + pid + "/exe (no such process, or no permission): " + e.getMessage(), e);
        }
        MemorySource live = MemorySource.ofPid(pid);
        LhInfo lh = null;
        try {
            lh = LhInfo.read(live, maps, exe);
        } catch (IOException e) {
            warnings.add("lh_info not readable (" + e.getMessage() + "): halves told apart by the image only");
        }
        List<AddressRange> upperRanges = null;
        List<Piece> pieces = new ArrayList<>();
        if (image != null) {
            upperRanges = new ArrayList<>();
            for (MemoryRegion r : regions(image)) {
                if (r.half() == Half.UPPER) {
                    upperRanges.add(new AddressRange(r.start(), r.end()));
                    if (!r.anonymous() && r.name().startsWith("/")) {
                        pieces.add(new Piece(r.name(), Half.UPPER, r.start(), r.end(), r.fileOffset(), "image"));
                    }
                }
            }
        }
        for (ProcMaps.Mapping m : maps) {
            if (!m.isFile()) {
                continue;
            }
            Half h;
            if (upperRanges != null) {
                if (inAny(upperRanges, m.start())) {
                    continue; // upper half: taken from the image (this may be the image file itself)
                }
                h = Half.LOWER;
            } else if (lh != null) {
                h = lh.inLowerHalf(m.start()) ? Half.LOWER : Half.UPPER;
            } else {
                // neither an image nor lh_info: only the lower half's own executable is known for sure
                h = m.path().equals(exe.toString()) ? Half.LOWER : Half.UPPER;
            }
            pieces.add(new Piece(m.path(), h, m.start(), m.end(), m.offset(), "maps"));
        }
        MemorySource imageMem = image == null ? null : MemorySource.ofImage(image);
        List<ElfObject> objects = resolve(pieces, p -> p.source.equals("image") ? imageMem : live, warnings);
        List<AddressRange> kernel = new ArrayList<>();
        for (ProcMaps.Mapping m : maps) {
            if (m.path().equals("[vdso]") || m.path().equals("[vvar]") || m.path().equals("[vsyscall]")) {
                kernel.add(new AddressRange(m.start(), m.end()));
            }
        }
        return new SplitProcess(objects, upperRanges, lh, warnings, exe, kernel);
    }

    /** The upper half of an image alone (no live process): what a restart of it would load. */
    public static SplitProcess ofImage(CheckpointImage image) throws IOException {
        List<String> warnings = new ArrayList<>();
        List<AddressRange> upperRanges = new ArrayList<>();
        List<Piece> pieces = new ArrayList<>();
        for (MemoryRegion r : regions(image)) {
            if (r.half() == Half.UPPER) {
                upperRanges.add(new AddressRange(r.start(), r.end()));
                if (!r.anonymous() && r.name().startsWith("/")) {
                    pieces.add(new Piece(r.name(), Half.UPPER, r.start(), r.end(), r.fileOffset(), "image"));
                }
            }
        }
        MemorySource mem = MemorySource.ofImage(image);
        return new SplitProcess(resolve(pieces, p -> mem, warnings), upperRanges, null, warnings, null, List.of());
    }

    private static List<MemoryRegion> regions(CheckpointImage image) throws IOException {
        try {
            return image.regions();
        } catch (ImageException e) {
            throw new IOException(image.path() + ": " + e.getMessage(), e);
        }
    }

    private static boolean inAny(List<AddressRange> rs, long a) {
        for (AddressRange r : rs) {
            if (r.contains(a)) {
                return true;
            }
        }
        return false;
    }

    /** One mapping of a file: what both sources give. */
    private record Piece(String path, Half half, long start, long end, long offset, String source) {
    }

    private interface MemoryFor {
        MemorySource of(Piece p);
    }

    /** Groups pieces into objects: same file, same half, same load bias. */
    private static List<ElfObject> resolve(List<Piece> pieces, MemoryFor memFor, List<String> warnings) {
        Map<String, List<Piece>> byFile = new LinkedHashMap<>();
        for (Piece p : pieces) {
            byFile.computeIfAbsent(p.half.label() + "\0" + p.path, k -> new ArrayList<>()).add(p);
        }
        List<ElfObject> out = new ArrayList<>();
        for (List<Piece> group : byFile.values()) {
            Piece first = group.get(0);
            Path path = Path.of(first.path);
            if (!Files.isRegularFile(path)) {
                warnings.add(first.half.label() + " half: " + path + " is gone from disk: no symbols for it");
                continue;
            }
            if (!ElfFile.isElf(path)) {
                continue; // a data file mapped by the program (locale archive, a font, the image itself)
            }
            ElfFile elf;
            try {
                elf = ElfFile.read(path);
            } catch (IOException e) {
                warnings.add(first.half.label() + " half: " + e.getMessage());
                continue;
            }
            // one object per load bias: the lowest file offsets first, so an object's first page (one
            // candidate only) fixes its bias before the ambiguous RELRO pages are placed
            Map<Long, long[]> byBias = new TreeMap<>();
            List<Piece> ordered = new ArrayList<>(group);
            ordered.sort(Comparator.comparingLong((Piece p) -> p.offset).thenComparingLong(p -> p.start));
            for (Piece p : ordered) {
                List<Long> candidates = elf.biasesFor(p.start, p.offset);
                if (candidates.isEmpty()) {
                    continue;
                }
                Long bias = null;
                for (Long c : candidates) {
                    if (byBias.containsKey(c)) {
                        bias = c;
                        break;
                    }
                }
                if (bias == null) {
                    bias = candidates.get(0);
                }
                long[] span = byBias.computeIfAbsent(bias, b -> new long[] {p.start, p.end});
                span[0] = Math.min(span[0], p.start);
                span[1] = Math.max(span[1], p.end);
            }
            for (Map.Entry<Long, long[]> e : byBias.entrySet()) {
                long bias = e.getKey();
                String onDisk = elf.buildId();
                String mapped = null;
                ElfObject.BuildIdCheck check;
                if (onDisk == null) {
                    check = ElfObject.BuildIdCheck.NO_BUILD_ID;
                } else {
                    try {
                        mapped = elf.buildIdInMemory(memFor.of(first)::read, bias);
                    } catch (IOException ex) {
                        mapped = null;
                    }
                    check = mapped == null ? ElfObject.BuildIdCheck.NOT_READABLE
                            : mapped.equals(onDisk) ? ElfObject.BuildIdCheck.MATCH : ElfObject.BuildIdCheck.MISMATCH;
                }
                if (check == ElfObject.BuildIdCheck.MISMATCH) {
                    warnings.add(first.half.label() + " half: " + path + " on disk (build-id " + onDisk
                            + ") is not the file that was mapped (build-id " + mapped + "): its symbols are not loaded");
                }
                out.add(new ElfObject(path, first.half, bias, e.getValue()[0], e.getValue()[1], onDisk, mapped, check,
                        first.source));
            }
        }
        out.sort(Comparator.comparingLong(ElfObject::start));
        return out;
    }
}
