package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.MiValue;
import java.util.ArrayList;
import java.util.List;

/** {@code -file-list-shared-libraries}: the libraries gdb knows from the link map, each with where its ranges start. */
public final class MiFileListSharedLibraries extends MiCommand<List<MiFileListSharedLibraries.Library>> {
    /** A library by its target name (its host name where it has none) and the start of each of its ranges. */
    public record Library(String name, List<Long> rangeStarts) {
        public Library {
            rangeStarts = List.copyOf(rangeStarts);
        }
    }

    @Override
    public String line() {
        return "-file-list-shared-libraries";
    }

    @Override
    public List<Library> result(MiResponse response) {
        List<Library> out = new ArrayList<>();
        for (MiTuple lib : MiAnswers.tuples(response, "shared-libraries")) {
            List<Long> starts = new ArrayList<>();
            for (MiValue rv : lib.getList("ranges")) {
                String from = rv.asTuple().getString("from");
                if (from != null) {
                    starts.add(Long.parseUnsignedLong(from.replace("0x", ""), 16));
                }
            }
            out.add(new Library(lib.getString("target-name", lib.getString("host-name", "")), starts));
        }
        return out;
    }
}
