package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.FormatGuard.requireMana;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.OpenFile;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

@Command(name = "files", mixinStandardHelpOptions = true, description = "Open file descriptors: fd, kind, path, flags, offset.")
final class FilesCommand extends ImageCommand {
    @Override
    int run(CheckpointImage img) throws ImageException {
        List<OpenFile> fs = requireMana(img, "files").files();
        PrintWriter out = out();
        if (json) {
            List<Object> list = new ArrayList<>();
            for (OpenFile f : fs) {
                list.add(Json.obj().put("fd", f.fd()).put("kind", f.kindName()).put("path", f.path())
                        .put("open_flags", f.openFlags()).put("open_flag_names", f.openFlagNames())
                        .put("cloexec", f.cloexec()).put("inherited", f.inherited()).put("offset", f.offset()).put("size", f.size())
                        .put("mtime_ns", f.mtimeNs()).put("inode", f.inode()).put("dev", f.dev())
                        .put("mode", String.format("0%o", f.mode())));
            }
            out.println(Json.obj().put("image", img.path().toString()).put("files", list));
            return 0;
        }
        out.printf("%4s %-9s %-44s %12s  %s%n", "FD", "KIND", "FLAGS", "OFFSET", "PATH");
        for (OpenFile f : fs) {
            out.printf("%4d %-9s %-44s %12d  %s%n", f.fd(), f.kindName(),
                    f.openFlagNames() + f.fdFlagWords(), f.offset(), f.path());
        }
        return 0;
    }
}
