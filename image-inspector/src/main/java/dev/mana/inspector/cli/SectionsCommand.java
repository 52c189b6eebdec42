package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.FormatGuard.requireMana;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.SectionInfo;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

@Command(name = "sections", mixinStandardHelpOptions = true, description = "The section table of an image in our format.")
final class SectionsCommand extends ImageCommand {
    @Override
    int run(CheckpointImage img) throws ImageException {
        ManaImage m = requireMana(img, "sections");
        PrintWriter out = out();
        if (json) {
            List<Object> list = new ArrayList<>();
            for (SectionInfo s : m.sections()) {
                list.add(Json.obj().put("type", s.type()).put("name", s.name()).put("version", s.version())
                        .put("offset", s.offset()).put("length", s.length()).put("count", s.count())
                        .put("crc", String.format("0x%08x", s.crc())));
            }
            out.println(Json.obj().put("image", img.path().toString()).put("sections", list));
            return 0;
        }
        out.printf("%-10s %3s %12s %12s %8s %s%n", "SECTION", "VER", "OFFSET", "LENGTH", "COUNT", "CRC");
        for (SectionInfo s : m.sections()) {
            out.printf("%-10s %3d %12d %12d %8d 0x%08x%n", s.name(), s.version(), s.offset(), s.length(), s.count(), s.crc());
        }
        return 0;
    }
}
