package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.TextFormat.hex;
import static dev.mana.inspector.cli.TextFormat.human;
import static dev.mana.inspector.cli.TextFormat.time;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.DmtcpHeader;
import dev.mana.inspector.DmtcpImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ImageSummary;
import dev.mana.inspector.ManaHeader;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.ParentInfo;
import dev.mana.inspector.SectionInfo;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;

@Command(name = "summary", mixinStandardHelpOptions = true, description = "Program, pid, rank, host, MPI, generation, time, sizes.")
final class SummaryCommand extends ImageCommand {
    @Override
    int run(CheckpointImage img) throws ImageException {
        return summary(img, json, out());
    }

    static int summary(CheckpointImage img, boolean json, PrintWriter out) throws ImageException {
        ImageSummary s = img.summary();
        Json.Obj o = Json.obj().put("image", img.path().toString()).put("format", s.format().name())
                .put("program", s.program()).put("executable", s.executable()).put("pid", s.pid())
                .put("rank", s.rank()).put("nranks", s.nranks()).put("host", s.host()).put("mpi", s.mpi())
                .put("generation", s.generation()).put("time_unix_ns", s.timeUnixNs()).put("time", time(s.timeUnixNs()))
                .put("file_size", s.fileSize()).put("compressed", s.compressed()).put("regions", s.regionCount())
                .put("threads", s.threadCount()).put("files", s.fileCount()).put("mapped_bytes", s.mappedBytes())
                .put("stored_bytes", s.storedBytes()).put("zero_bytes", s.zeroBytes()).put("mpi_section", s.mpiSection());
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"image", img.path().toString()});
        rows.add(new String[] {"format", s.format().displayName() + (s.compressed() ? " (gzip'd)" : "")});
        rows.add(new String[] {"program", s.program() + (s.executable().isEmpty() ? "" : "  (" + s.executable() + ")")});
        rows.add(new String[] {"pid", Long.toString(s.pid())});
        rows.add(new String[] {"rank", s.rank() < 0 ? "unknown" : s.rank() + (s.nranks() > 0 ? " of " + s.nranks() : "")});
        rows.add(new String[] {"host", s.host()});
        if (!s.mpi().isEmpty()) {
            rows.add(new String[] {"mpi", s.mpi()});
        }
        rows.add(new String[] {"generation", Long.toString(s.generation())});
        if (s.timeUnixNs() > 0) {
            rows.add(new String[] {"time", time(s.timeUnixNs())});
        }
        rows.add(new String[] {"file size", s.fileSize() + " (" + human(s.fileSize()) + ")"});
        rows.add(new String[] {"regions", s.regionCount() + " (mapped " + human(s.mappedBytes()) + ", stored "
                + human(s.storedBytes()) + ", zero " + human(s.zeroBytes()) + ")"});
        if (s.threadCount() >= 0) {
            rows.add(new String[] {"threads", Long.toString(s.threadCount())});
        }
        if (s.fileCount() >= 0) {
            rows.add(new String[] {"files", Long.toString(s.fileCount())});
        }
        if (img instanceof ManaImage) {
            ManaImage m = (ManaImage) img;
            Optional<SectionInfo> mpi = m.mpiSection();
            rows.add(new String[] {"mpi state", mpi.map(x -> x.length() + " bytes, " + x.count() + " records").orElse("none")});
            try {
                Optional<ParentInfo> pi = m.parent();
                if (pi.isPresent()) {
                    ParentInfo p = pi.get();
                    rows.add(new String[] {"chain", "incremental on " + p.name() + " (generation " + p.generation()
                            + ", depth " + p.depth() + ")"});
                    o.put("parent", Json.obj().put("name", p.name()).put("generation", p.generation())
                            .put("depth", p.depth()).put("header_crc", String.format("0x%08x", p.headerCrc()))
                            .put("file_size", p.fileSize()));
                }
            } catch (ImageException e) {
                rows.add(new String[] {"chain", "unreadable (" + e.getMessage() + ")"});
            }
            ManaHeader h = m.header();
            o.put("format_version", h.version()).put("sections", h.sectionCount()).put("header_crc", String.format("0x%08x", h.headerCrc()));
            try {
                dev.mana.inspector.ProcessInfo p = m.process();
                rows.add(3, new String[] {"command", String.join(" ", p.argv())});
                rows.add(4, new String[] {"cwd", p.cwd()});
                rows.add(6, new String[] {"ppid/sid/pgid", p.ppid() + " / " + p.sid() + " / " + p.pgid()
                        + "  (umask " + String.format("%03o", p.umask()) + ")"});
                o.put("process", Json.obj().put("argv", p.argv()).put("cwd", p.cwd()).put("ppid", p.ppid())
                        .put("sid", p.sid()).put("pgid", p.pgid()).put("umask", String.format("%03o", p.umask()))
                        .put("pthread_tid_offset", p.pthreadTidOffset()).put("lh_info_slot", Json.hex(p.lhInfoSlot()))
                        .put("vdso", List.of(Json.hex(p.vdsoStart()), Json.hex(p.vdsoEnd())))
                        .put("vvar", List.of(Json.hex(p.vvarStart()), Json.hex(p.vvarEnd())))
                        .put("upper_stack", List.of(Json.hex(p.upperStackStart()), Json.hex(p.upperStackEnd())))
                        .put("upper_entry", Json.hex(p.upperEntry())));
            } catch (ImageException e) {
                rows.add(new String[] {"process", "unreadable (" + e.getMessage() + ")"});
            }
        } else {
            DmtcpHeader h = ((DmtcpImage) img).header();
            rows.add(new String[] {"upid", h.upid().toString() + " (generation " + h.upid().generation() + ")"});
            rows.add(new String[] {"comp group", h.compGroup().toString() + " (generation " + h.compGroup().generation() + ")"});
            rows.add(new String[] {"ppid/sid/gid", h.ppid() + " / " + h.sid() + " / " + h.gid()});
            rows.add(new String[] {"peers", Long.toString(h.numPeers())});
            rows.add(new String[] {"brk", hex(h.savedBrk())});
            rows.add(new String[] {"end of stack", hex(h.endOfStack())});
            o.put("dmtcp", Json.obj().put("signature", h.signature()).put("upid", h.upid().toString())
                    .put("uppid", h.uppid().toString()).put("comp_group", h.compGroup().toString())
                    .put("ppid", h.ppid()).put("sid", h.sid()).put("gid", h.gid()).put("fgid", h.fgid())
                    .put("is_root_of_process_tree", h.isRootOfProcessTree()).put("num_peers", h.numPeers())
                    .put("elf_type", h.elfType()).put("restore_buf", List.of(Json.hex(h.restoreBufStart()), Json.hex(h.restoreBufEnd())))
                    .put("vdso", List.of(Json.hex(h.vdsoStart()), Json.hex(h.vdsoEnd())))
                    .put("vvar", List.of(Json.hex(h.vvarStart()), Json.hex(h.vvarEnd())))
                    .put("saved_brk", Json.hex(h.savedBrk())).put("end_of_stack", Json.hex(h.endOfStack()))
                    .put("post_restart_addr", Json.hex(h.postRestartAddr())).put("proc_self_exe", h.procSelfExe()));
        }
        if (json) {
            out.println(o);
        } else {
            for (String[] r : rows) {
                out.printf("%-13s %s%n", r[0], r[1]);
            }
        }
        return 0;
    }
}
