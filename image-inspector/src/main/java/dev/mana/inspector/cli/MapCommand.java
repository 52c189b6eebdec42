package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.TextFormat.human;
import static dev.mana.inspector.cli.TextFormat.shortSize;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.MemoryRegion;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

@Command(name = "map", mixinStandardHelpOptions = true, aliases = "memory", description = "The memory map: ranges, perms, half, mapped/stored/zero bytes, names.")
final class MapCommand extends ImageCommand {
    @Override
    int run(CheckpointImage img) throws ImageException {
        return map(img, json, out());
    }

    static Json.Obj regionJson(MemoryRegion r) {
        return Json.obj().put("index", r.index()).put("start", Json.hex(r.start())).put("end", Json.hex(r.end()))
                .put("perms", r.permissions()).put("shared", r.shared()).put("anonymous", r.anonymous())
                .put("name", r.name()).put("half", r.half().label()).put("saved", r.saved())
                .put("mapped_bytes", r.mappedBytes()).put("stored_bytes", r.storedBytes()).put("zero_bytes", r.zeroBytes())
                .put("flags", r.flagNames()).put("file_offset", r.fileOffset()).put("inode", r.inode())
                .put("dev", r.devMajor() + ":" + r.devMinor()).put("payload_offset", r.payloadOffset())
                .put("payload_crc", r.payloadCrc() < 0 ? null : String.format("0x%08x", r.payloadCrc()))
                .put("runs", r.runCount());
    }

    static String notSaved(MemoryRegion r) {
        return r.whyNotSaved();
    }

    static String displayName(MemoryRegion r) {
        return r.name().isEmpty() ? "[anon]" : r.name();
    }

    static int map(CheckpointImage img, boolean json, PrintWriter out) throws ImageException {
        List<MemoryRegion> rs = img.regions();
        long mapped = 0;
        long stored = 0;
        long zero = 0;
        for (MemoryRegion r : rs) {
            if (r.saved()) {
                mapped += r.mappedBytes();
            }
            stored += r.storedBytes();
            zero += r.zeroBytes();
        }
        if (json) {
            List<Object> list = new ArrayList<>();
            for (MemoryRegion r : rs) {
                list.add(regionJson(r));
            }
            out.println(Json.obj().put("image", img.path().toString()).put("format", img.format().name())
                    .put("regions", list).put("mapped_bytes", mapped).put("stored_bytes", stored).put("zero_bytes", zero));
            return 0;
        }
        out.printf("%-33s %-4s %-6s %-4s %7s %7s %7s  %s%n", "START-END", "PERM", "HALF", "TYPE", "MAPPED", "STORED", "ZERO", "NAME");
        for (MemoryRegion r : rs) {
            String kind = r.anonymous() ? "anon" : r.name().startsWith("/") ? "file" : "-";
            String note = r.saved() ? "" : "  (" + notSaved(r) + ")";
            out.printf("%016x-%016x %s %-6s %-4s %7s %7s %7s  %s%s%n", r.start(), r.end(), r.permissions(),
                    r.half().label(), kind, shortSize(r.mappedBytes()), shortSize(r.storedBytes()),
                    shortSize(r.zeroBytes()), displayName(r), note);
        }
        out.printf("%d regions: mapped %s, stored %s, zero %s%n", rs.size(), human(mapped), human(stored), human(zero));
        return 0;
    }
}
