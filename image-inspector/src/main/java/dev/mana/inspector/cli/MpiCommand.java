package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.FormatGuard.requireMana;
import static dev.mana.inspector.cli.HexdumpCommand.hexdump;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.MpiObject;
import dev.mana.inspector.MpiSummary;
import dev.mana.inspector.MpiText;
import dev.mana.inspector.SectionInfo;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "mpi", mixinStandardHelpOptions = true, description = {"The MPI section decoded (the rank's MPI "
    + "state in counts) and the MPI objects the image lists (open MPI-IO files: mode, pointers, view, path; windows: "
    + "flavor, size, open epochs).",
    "--bytes N adds a hex dump of the section's first N bytes."})
final class MpiCommand extends ImageCommand {
    @Option(names = "--bytes", description = "Hex dump of the section's first N bytes (default ${DEFAULT-VALUE}: none).", defaultValue = "0")
    long bytes;

    @Override
    int run(CheckpointImage img) throws ImageException {
        ManaImage m = requireMana(img, "mpi");
        Optional<SectionInfo> s = m.mpiSection();
        PrintWriter out = out();
        if (s.isEmpty()) {
            if (json) {
                out.println(Json.obj().put("image", img.path().toString()).put("mpi", null));
            } else {
                out.println("no MPI section (a program without MPI, or MPI state not saved)");
            }
            return 0;
        }
        SectionInfo sec = s.get();
        MpiSummary sum = m.mpi().orElseThrow();
        List<MpiObject> objs = m.mpiObjects();
        int n = (int) Math.max(0, Math.min(Math.min(bytes, sec.length()), 1 << 20));
        ByteBuffer b = ByteBuffer.allocate(n);
        if (n > 0) {
            m.readSection(sec, 0, b);
        }
        if (json) {
            StringBuilder hx = new StringBuilder();
            for (byte x : b.array()) {
                hx.append(String.format("%02x", x & 0xff));
            }
            List<Object> list = new ArrayList<>();
            for (MpiObject o : objs) {
                list.add(Json.obj().put("kind", o.kindName()).put("name", o.name()).put("amode", o.amode())
                        .put("amode_names", MpiText.amode(o.amode())).put("comm_size", o.commSize()).put("position", o.position())
                        .put("shared_position", o.sharedPosition()).put("disp", o.disp()).put("flags", o.flagNames())
                        .put("dev", o.dev()).put("ino", o.ino()));
            }
            out.println(Json.obj().put("image", img.path().toString()).put("mpi", Json.obj()
                    .put("version", sec.version()).put("offset", sec.offset()).put("length", sec.length())
                    .put("count", sec.count()).put("crc", String.format("0x%08x", sec.crc())).put("head_hex", hx.toString())
                    .put("library", sum.kindName()).put("thread_level", sum.threadLevel()).put("comms", sum.comms())
                    .put("groups", sum.groups()).put("datatypes", sum.datatypes()).put("ops", sum.ops())
                    .put("requests", sum.requests()).put("buffered_msgs", sum.bufferedMsgs())
                    .put("buffered_bytes", sum.bufferedBytes()).put("sent", sum.sent()).put("received", sum.received())
                    .put("replay_entries", sum.replayEntries()).put("finalized", sum.finalized()).put("objects", list)));
            return 0;
        }
        out.printf("MPI section: layout version %d, %d bytes at offset %d, %d records, crc 0x%08x%n", sec.version(),
                sec.length(), sec.offset(), sec.count(), sec.crc());
        out.print(MpiText.describe(sum, objs));
        if (n > 0) {
            out.println("first " + n + " bytes of the section:");
            hexdump(out, 0, b.array(), n);
        }
        return 0;
    }
}
