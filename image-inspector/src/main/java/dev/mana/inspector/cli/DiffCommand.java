package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.ImageOpener.openChain;
import static dev.mana.inspector.cli.MapCommand.displayName;
import static dev.mana.inspector.cli.TextFormat.shortSize;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageDiff;
import dev.mana.inspector.MemoryRegion;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "diff", mixinStandardHelpOptions = true, description = {"Regions added, removed and changed between images A and B, and bytes changed.",
    "Exit status: 0 same, 1 different (as diff(1)), else an error class."})
final class DiffCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Machine-readable output (one JSON object).")
    boolean json;

    @Option(names = "--all", description = "List unchanged regions too.")
    boolean all;

    @Parameters(index = "0", paramLabel = "A")
    Path a;

    @Parameters(index = "1", paramLabel = "B")
    Path b;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ImageDiff d;
        try (CheckpointImage ia = openChain(a); CheckpointImage ib = openChain(b)) {
            d = ImageDiff.compare(ia, ib, null);
        }
        if (json) {
            List<Object> list = new ArrayList<>();
            for (ImageDiff.RegionDiff r : d.regions()) {
                if (r.kind() == ImageDiff.Kind.UNCHANGED && !all) {
                    continue;
                }
                MemoryRegion e = r.either();
                list.add(Json.obj().put("kind", r.kind().name()).put("start", Json.hex(e.start()))
                        .put("end", Json.hex(e.end())).put("name", e.name()).put("changes", r.changes())
                        .put("bytes_changed", r.bytesChanged()).put("bytes_compared", r.bytesCompared()));
            }
            out.println(Json.obj().put("a", a.toString()).put("b", b.toString()).put("identical", d.identical())
                    .put("header_changes", d.headerChanges()).put("added", d.count(ImageDiff.Kind.ADDED))
                    .put("removed", d.count(ImageDiff.Kind.REMOVED)).put("changed", d.count(ImageDiff.Kind.CHANGED))
                    .put("unchanged", d.count(ImageDiff.Kind.UNCHANGED)).put("bytes_changed", d.bytesChanged())
                    .put("regions", list));
        } else {
            for (String h : d.headerChanges()) {
                out.println("  " + h);
            }
            for (ImageDiff.RegionDiff r : d.regions()) {
                MemoryRegion e = r.either();
                String range = String.format("%016x-%016x %s %-24s", e.start(), e.end(), e.permissions(), displayName(e));
                switch (r.kind()) {
                    case ADDED: out.println("+ " + range + " added (" + shortSize(e.mappedBytes()) + ")"); break;
                    case REMOVED: out.println("- " + range + " removed (" + shortSize(e.mappedBytes()) + ")"); break;
                    case CHANGED: out.println("~ " + range + " " + r.bytesChanged() + " bytes changed; "
                            + String.join("; ", r.changes())); break;
                    default: if (all) {
                        out.println("  " + range + " unchanged");
                    }
                }
            }
            out.printf("%d added, %d removed, %d changed, %d unchanged regions; %d bytes changed%n",
                    d.count(ImageDiff.Kind.ADDED), d.count(ImageDiff.Kind.REMOVED), d.count(ImageDiff.Kind.CHANGED),
                    d.count(ImageDiff.Kind.UNCHANGED), d.bytesChanged());
        }
        return d.identical() ? 0 : ManaInspect.DIFFERENT;
    }
}
