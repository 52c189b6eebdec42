package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.NumberArgument.number;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.MemoryRegion;
import java.util.List;
import picocli.CommandLine;

/** The memory extract writes: a region (its index, an address in it, or its name) or an address range. */
final class MemorySelection {
    private MemorySelection() {
    }

    /** {@code [start, end)} of the region {@code region}, or else of {@code range} (START-END). */
    static long[] select(CheckpointImage img, String region, String range) throws ImageException {
        if (region != null) {
            List<MemoryRegion> rs = img.regions();
            MemoryRegion hit = null;
            if (region.matches("\\d{1,9}")) {
                int i = Integer.parseInt(region);
                if (i < rs.size()) {
                    hit = rs.get(i);
                }
            } else if (region.startsWith("0x") || region.startsWith("0X")) {
                hit = img.regionAt(number(region, "--region"));
            } else {
                for (MemoryRegion r : rs) {
                    if (r.name().equals(region) || (r.name().endsWith("/" + region) && hit == null)) {
                        hit = r;
                        if (r.name().equals(region)) {
                            break;
                        }
                    }
                }
            }
            if (hit == null) {
                throw new ImageException(ErrorKind.NOT_FOUND, "no region '" + region + "' (give an index, an address or a name)");
            }
            return new long[] {hit.start(), hit.end()};
        }
        int dash = range.indexOf('-');
        if (dash < 0) {
            throw new CommandLine.ParameterException(new CommandLine(new ManaInspect()), "--range wants START-END");
        }
        long s = number(range.substring(0, dash), "--range START");
        long e = number(range.substring(dash + 1), "--range END");
        if (Long.compareUnsigned(e, s) <= 0) {
            throw new CommandLine.ParameterException(new CommandLine(new ManaInspect()), "--range: END must be above START");
        }
        return new long[] {s, e};
    }
}
