package dev.mana.gdb.split;

import dev.mana.elf.ElfFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The lower half's {@code lh_info} block (core-native/src/common/lh_info.h, version 1), read from a live
 * process: found through the symbol {@code mana_lh} of {@code bin/lower-half} and the load bias of its
 * mapping. The offsets below are those of version 1; the header says fields are only ever appended,
 * and a test checks them against the header with {@code offsetof}.
 *
 * @param lowerRanges the lower half's memory, sorted (at launch: what it mapped itself; after a
 *                    restart: everything outside the image's upper ranges)
 */
public record LhInfo(long address, int version, int size, int flags, int generation, int rank, int restartPause,
                     List<AddressRange> lowerRanges) {
    public static final long MAGIC = 0x4f464e49484c414eL;
    static final int OFF_VERSION = 8;
    static final int OFF_SIZE = 12;
    static final int OFF_FLAGS = 16;
    static final int OFF_GENERATION = 20;
    static final int OFF_RANK = 4924;
    static final int OFF_RESTART_PAUSE = 4932;
    static final int OFF_LH_RANGES = 4936;
    static final int OFF_LH_RANGE_COUNT = 4944;
    static final int HEADER_BYTES = 4952;
    /** MANA_LH_F_RESTART */
    public static final int F_RESTART = 1;

    public boolean restarted() {
        return (flags & F_RESTART) != 0;
    }

    public LhInfo {
        lowerRanges = List.copyOf(lowerRanges);
    }

    /**
     * Reads the block of the process whose memory is {@code mem}; {@code lowerHalf} is the mapped
     * {@code bin/lower-half} (the process's {@code /proc/PID/exe}) and {@code maps} its mappings.
     */
    public static LhInfo read(MemorySource mem, List<ProcMaps.Mapping> maps, Path lowerHalf) throws IOException {
        ElfFile elf = ElfFile.read(lowerHalf);
        Long sym = elf.symbol(RuntimeSymbols.MANA_LH);
        if (sym == null) {
            throw new IOException(lowerHalf + " has no symbol " + RuntimeSymbols.MANA_LH + " (not our bin/lower-half?)");
        }
        Long bias = null;
        String want = lowerHalf.toString();
        for (ProcMaps.Mapping m : maps) {
            if (m.path().equals(want)) {
                bias = elf.biasFor(m.start(), m.offset());
                if (bias != null) {
                    break;
                }
            }
        }
        if (bias == null) {
            throw new IOException(lowerHalf + " is not mapped in the process");
        }
        long addr = bias + sym;
        ByteBuffer b = ByteBuffer.wrap(mem.read(addr, HEADER_BYTES)).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getLong(0) != MAGIC) {
            throw new IOException(String.format("no lh_info magic at 0x%x", addr));
        }
        int version = b.getInt(OFF_VERSION);
        int size = b.getInt(OFF_SIZE);
        if (version < 1 || size < HEADER_BYTES) {
            throw new IOException("lh_info version " + version + " size " + size + " is not one this reader knows");
        }
        long rangesPtr = b.getLong(OFF_LH_RANGES);
        int count = b.getInt(OFF_LH_RANGE_COUNT);
        List<AddressRange> ranges = new ArrayList<>();
        if (rangesPtr != 0 && count > 0) {
            if (count > 1 << 20) {
                throw new IOException("lh_info lists " + count + " lower-half ranges: implausible");
            }
            ByteBuffer r = ByteBuffer.wrap(mem.read(rangesPtr, count * 16)).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < count; i++) {
                ranges.add(new AddressRange(r.getLong(i * 16), r.getLong(i * 16 + 8)));
            }
        }
        return new LhInfo(addr, version, size, b.getInt(OFF_FLAGS), b.getInt(OFF_GENERATION), b.getInt(OFF_RANK),
                b.getInt(OFF_RESTART_PAUSE), ranges);
    }

    public boolean inLowerHalf(long address) {
        for (AddressRange r : lowerRanges) {
            if (r.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
