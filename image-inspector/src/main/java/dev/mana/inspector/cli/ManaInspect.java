package dev.mana.inspector.cli;

import dev.mana.inspector.CheckpointDirectory;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.DmtcpHeader;
import dev.mana.inspector.DmtcpImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageDiff;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ImageSummary;
import dev.mana.inspector.Images;
import dev.mana.inspector.ManaHeader;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.MpiObject;
import dev.mana.inspector.MpiSummary;
import dev.mana.inspector.MpiText;
import dev.mana.inspector.MemoryRegion;
import dev.mana.inspector.OpenFile;
import dev.mana.inspector.ParentInfo;
import dev.mana.inspector.Problem;
import dev.mana.inspector.SectionInfo;
import dev.mana.inspector.SignalState;
import dev.mana.inspector.ThreadInfo;
import dev.mana.inspector.VerifyReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code mana_inspect}: views and checks of checkpoint images. See docs/inspector.md. Exit status:
 * 0 fine, 1 {@code diff} found differences, 2 usage, then one per {@link ErrorKind}.
 */
@Command(name = "mana_inspect", mixinStandardHelpOptions = true, version = "mana_inspect 0.1.0 (image format v1, DMTCP v4.0)",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {"Inspect MANA checkpoint images: our format (MANAIMG1) and DMTCP v4.0",
            "(ckpt_*.dmtcp, gzip'd or not). Without a command: the summary of IMAGE",
            "(with --simulate: what mtcp_restart --simulate prints; for a directory: `dir`).", "",
            "Exit status: 0 ok; 1 diff found differences; 2 usage; 3 I/O error;",
            "4 not an image; 5 unsupported version; 6 truncated; 7 malformed;",
            "8 corrupt (checksum); 9 checkpoint directory not restartable;",
            "10 address/region not found; 11 view not available for this format."},
        subcommands = {ManaInspect.Summary.class, ManaInspect.MapCmd.class, ManaInspect.Threads.class,
            ManaInspect.Files.class, ManaInspect.Signals.class, ManaInspect.Mpi.class, ManaInspect.Sections.class,
            ManaInspect.Verify.class, ManaInspect.Extract.class, ManaInspect.Hexdump.class, ManaInspect.Diff.class,
            ManaInspect.Dir.class, ManaInspect.Simulate.class, ManaInspect.All.class, CommandLine.HelpCommand.class})
public final class ManaInspect implements Callable<Integer> {
    static final int DIFFERENT = 1;
    static final int USAGE = 2;
    static final int INTERNAL = 70;

    @Spec
    CommandSpec spec;

    @Option(names = "--simulate", description = "DMTCP images: print what `mtcp_restart --simulate` prints, line for line.")
    boolean simulate;

    @Option(names = "--json", description = "Machine-readable output (one JSON object).")
    boolean json;

    @Parameters(index = "0", arity = "0..1", paramLabel = "IMAGE", description = "A checkpoint image.")
    Path image;

    public static void main(String[] args) {
        long t0 = System.nanoTime();
        int rc;
        PrintWriter out = new PrintWriter(System.out, false);
        PrintWriter err = new PrintWriter(System.err, true);
        try {
            rc = run(args, out, err);
        } catch (OutOfMemoryError e) {
            out.flush();
            err.println("mana_inspect: out of memory (" + e.getMessage() + "); this is a bug: images are read in bounded pieces");
            rc = INTERNAL;
        }
        out.flush();
        if (System.getenv("MANA_INSPECT_STATS") != null) {
            // the JVM's start (to main) and the command's own work, apart
            err.println("mana_inspect: stats: heap_peak_mb=" + String.format(Locale.ROOT, "%.1f", peakHeapMb())
                    + " jvm_start_ms=" + ManagementFactory.getRuntimeMXBean().getUptime()
                    + " work_ms=" + String.format(Locale.ROOT, "%.1f", (System.nanoTime() - t0) / 1e6));
        }
        System.exit(rc);
    }

    /** Sum of the peak usage of the heap pools (an upper bound of the peak heap in use). */
    static double peakHeapMb() {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                sum += p.getPeakUsage().getUsed();
            }
        }
        return sum / 1048576.0;
    }

    /** Runs the command line; returns the exit status. Never throws for bad input. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new ManaInspect());
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((ex, a) -> {
            err.println("mana_inspect: " + ex.getMessage() + " (see mana_inspect --help)");
            return USAGE;
        });
        cl.setExecutionExceptionHandler((ex, c, parsed) -> {
            out.flush();
            if (ex instanceof CommandLine.ParameterException) {
                err.println("mana_inspect: " + ex.getMessage() + " (see mana_inspect --help)");
                return USAGE;
            }
            if (ex instanceof ImageException) {
                err.println("mana_inspect: " + ex.getMessage());
                return ((ImageException) ex).kind().exitStatus();
            }
            if (ex instanceof IOException) {
                err.println("mana_inspect: " + ex.getMessage());
                return ErrorKind.IO.exitStatus();
            }
            err.println("mana_inspect: internal error: " + ex);
            return INTERNAL;
        });
        int rc = cl.execute(args);
        out.flush();
        err.flush();
        return rc;
    }

    @Override
    public Integer call() throws Exception {
        if (image == null) {
            spec.commandLine().usage(spec.commandLine().getOut());
            return USAGE;
        }
        PrintWriter out = spec.commandLine().getOut();
        if (java.nio.file.Files.isDirectory(image) && !simulate) {
            // a checkpoint directory: the directory view
            Dir d = new Dir();
            d.spec = spec;
            d.json = json;
            d.dir = image;
            return d.call();
        }
        try (CheckpointImage img = open(image)) {
            if (simulate) {
                return simulate(img, json, out);
            }
            return summary(img, json, out);
        } catch (ImageException e) {
            throw withPath(image, e);
        }
    }

    // ---- helpers ----

    static CheckpointImage open(Path p) throws ImageException {
        try {
            return Images.open(p);
        } catch (ImageException e) {
            throw withPath(p, e);
        }
    }

    /**
     * For the commands that read memory: an incremental image with its chain (its unchanged pages are its
     * parents'), any other image as {@link #open} gives it.
     */
    static CheckpointImage openChain(Path p) throws ImageException {
        try {
            return Images.openChain(p);
        } catch (ImageException e) {
            throw withPath(p, e);
        }
    }

    static ImageException withPath(Path p, ImageException e) {
        String m = e.getMessage() == null ? "" : e.getMessage();
        if (m.startsWith(p.toString())) {
            return e;
        }
        return new ImageException(e.kind(), p + ": " + m, e);
    }

    static String human(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] u = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = n;
        int i = -1;
        while (v >= 1024 && i < u.length - 1) {
            v /= 1024;
            i++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, u[i]);
    }

    static String shortSize(long n) {
        if (n == 0) {
            return "0";
        }
        String[] u = {"", "K", "M", "G", "T", "P", "E"};
        double v = n;
        int i = 0;
        while (v >= 1024 && i < u.length - 1) {
            v /= 1024;
            i++;
        }
        return i == 0 ? Long.toString(n) : String.format(Locale.ROOT, v < 10 ? "%.1f%s" : "%.0f%s", v, u[i]);
    }

    static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }

    static String time(long ns) {
        if (ns <= 0) {
            return "";
        }
        return Instant.ofEpochSecond(Math.floorDiv(ns, 1_000_000_000L), Math.floorMod(ns, 1_000_000_000L)).toString();
    }

    /** Parses 0x-hex or decimal (also 0-prefixed hex without 0x when it has a-f). */
    static long number(String s, String what) {
        String t = s.trim().replace("_", "");
        try {
            if (t.startsWith("0x") || t.startsWith("0X")) {
                return Long.parseUnsignedLong(t.substring(2), 16);
            }
            return Long.parseUnsignedLong(t);
        } catch (NumberFormatException e) {
            throw new CommandLine.ParameterException(new CommandLine(new ManaInspect()),
                    what + ": '" + s + "' is not a number (use 0x... for hex)");
        }
    }

    static DmtcpImage requireDmtcp(CheckpointImage img, String view) throws ImageException {
        if (img instanceof DmtcpImage) {
            return (DmtcpImage) img;
        }
        throw new ImageException(ErrorKind.NOT_AVAILABLE, img.path() + ": " + view
                + " is for DMTCP v4.0 images; this is " + img.format().displayName());
    }

    static ManaImage requireMana(CheckpointImage img, String view) throws ImageException {
        if (img instanceof ManaImage) {
            return (ManaImage) img;
        }
        throw new ImageException(ErrorKind.NOT_AVAILABLE, img.path() + ": the " + view
                + " view needs our image format; DMTCP v4.0 images offer summary, map, verify, hexdump, extract, diff, simulate");
    }

    // ---- views ----

    static int simulate(CheckpointImage img, boolean json, PrintWriter out) throws ImageException {
        DmtcpImage d = requireDmtcp(img, "--simulate");
        String text = d.simulate();
        if (json) {
            out.println(Json.obj().put("image", img.path().toString()).put("lines", List.of(text.split("\n", -1)))
                    .put("text", text));
        } else {
            out.print(text);
        }
        return 0;
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

    // ---- subcommands ----

    abstract static class ImageCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--json", description = "Machine-readable output (one JSON object).")
        boolean json;

        @Parameters(index = "0", paramLabel = "IMAGE", description = "A checkpoint image.")
        Path image;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        @Override
        public Integer call() throws Exception {
            try (CheckpointImage img = readsMemory() ? openChain(image) : open(image)) {
                return run(img);
            } catch (ImageException e) {
                throw withPath(image, e);
            }
        }

        /** Whether the command reads memory, so that an incremental image is opened with its chain. */
        boolean readsMemory() {
            return false;
        }

        abstract int run(CheckpointImage img) throws Exception;
    }

    @Command(name = "summary", mixinStandardHelpOptions = true, description = "Program, pid, rank, host, MPI, generation, time, sizes.")
    static final class Summary extends ImageCommand {
        @Override
        int run(CheckpointImage img) throws ImageException {
            return summary(img, json, out());
        }
    }

    @Command(name = "map", mixinStandardHelpOptions = true, aliases = "memory", description = "The memory map: ranges, perms, half, mapped/stored/zero bytes, names.")
    static final class MapCmd extends ImageCommand {
        @Override
        int run(CheckpointImage img) throws ImageException {
            return map(img, json, out());
        }
    }

    @Command(name = "threads", mixinStandardHelpOptions = true, description = "Threads: tid, flags, FS base, stack range, signal mask, registers.")
    static final class Threads extends ImageCommand {
        @Override
        int run(CheckpointImage img) throws ImageException {
            List<ThreadInfo> ts = requireMana(img, "threads").threads();
            PrintWriter out = out();
            if (json) {
                List<Object> list = new ArrayList<>();
                for (ThreadInfo t : ts) {
                    Json.Obj regs = Json.obj();
                    for (int i = 0; i < t.gregs().size(); i++) {
                        regs.put(ThreadInfo.GREG_NAMES.get(i), Json.hex(t.gregs().get(i)));
                    }
                    list.add(Json.obj().put("tid", t.tid()).put("main", t.main()).put("checkpoint_thread", t.checkpointThread())
                            .put("flags", t.flags()).put("fs_base", Json.hex(t.fsBase())).put("gs_base", Json.hex(t.gsBase()))
                            .put("ctid_addr", Json.hex(t.ctidAddr())).put("stack_start", Json.hex(t.stackStart()))
                            .put("stack_end", Json.hex(t.stackEnd())).put("ucontext_addr", Json.hex(t.ucontextAddr()))
                            .put("ctx_addr", Json.hex(t.ctxAddr())).put("sigmask", Json.hex(t.sigmask()))
                            .put("robust_list", Json.hex(t.robustList())).put("robust_list_len", t.robustListLen())
                            .put("altstack_sp", Json.hex(t.altstackSp())).put("altstack_size", t.altstackSize())
                            .put("altstack_flags", t.altstackFlags()).put("registers", regs));
                }
                out.println(Json.obj().put("image", img.path().toString()).put("threads", list));
                return 0;
            }
            for (ThreadInfo t : ts) {
                String role = t.main() ? " (main)" : t.checkpointThread() ? " (checkpoint thread)" : "";
                out.printf("thread %d%s%n", t.tid(), role);
                out.printf("  fs_base %s  gs_base %s  ctid %s%n", hex(t.fsBase()), hex(t.gsBase()), hex(t.ctidAddr()));
                out.printf("  stack   %s-%s (%s)  sigmask %s%n", hex(t.stackStart()), hex(t.stackEnd()),
                        shortSize(t.stackEnd() - t.stackStart()), hex(t.sigmask()));
                out.printf("  resume  ucontext %s  ctx %s  robust_list %s  altstack %s+%d%n", hex(t.ucontextAddr()),
                        hex(t.ctxAddr()), hex(t.robustList()), hex(t.altstackSp()), t.altstackSize());
                for (int i = 0; i < t.gregs().size(); i++) {
                    out.printf("%s%-6s %016x", i % 4 == 0 ? "  " : "  ", ThreadInfo.GREG_NAMES.get(i), t.gregs().get(i));
                    if (i % 4 == 3 || i == t.gregs().size() - 1) {
                        out.println();
                    }
                }
            }
            out.printf("%d thread%s%n", ts.size(), ts.size() == 1 ? "" : "s");
            return 0;
        }
    }

    @Command(name = "files", mixinStandardHelpOptions = true, description = "Open file descriptors: fd, kind, path, flags, offset.")
    static final class Files extends ImageCommand {
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

    @Command(name = "signals", mixinStandardHelpOptions = true, description = "Signal handlers that are not SIG_DFL, and interval timers.")
    static final class Signals extends ImageCommand {
        @Override
        int run(CheckpointImage img) throws ImageException {
            SignalState s = requireMana(img, "signals").signals();
            PrintWriter out = out();
            if (json) {
                List<Object> acts = new ArrayList<>();
                for (SignalState.Action a : s.actions()) {
                    acts.add(Json.obj().put("signo", a.signo()).put("name", SignalState.signalName(a.signo()))
                            .put("handler", a.ignored() ? "SIG_IGN" : Json.hex(a.handler())).put("flags", Json.hex(a.flags()))
                            .put("restorer", Json.hex(a.restorer())).put("mask", Json.hex(a.mask())));
                }
                List<Object> timers = new ArrayList<>();
                for (SignalState.Timer t : s.timers()) {
                    timers.add(Json.obj().put("which", t.whichName()).put("interval_ns", t.intervalNs()).put("value_ns", t.valueNs()));
                }
                out.println(Json.obj().put("image", img.path().toString()).put("pending", Json.hex(s.pending()))
                        .put("actions", acts).put("timers", timers));
                return 0;
            }
            out.printf("%-12s %-18s %-12s %-18s %s%n", "SIGNAL", "HANDLER", "FLAGS", "MASK", "RESTORER");
            for (SignalState.Action a : s.actions()) {
                out.printf("%-12s %-18s %-12s %-18s %s%n", SignalState.signalName(a.signo()),
                        a.ignored() ? "SIG_IGN" : hex(a.handler()), hex(a.flags()), hex(a.mask()), hex(a.restorer()));
            }
            for (SignalState.Timer t : s.timers()) {
                out.printf("timer %-14s interval %d ns, next in %d ns%n", t.whichName(), t.intervalNs(), t.valueNs());
            }
            out.printf("pending %s%n", hex(s.pending()));
            return 0;
        }
    }

    @Command(name = "mpi", mixinStandardHelpOptions = true, description = {"The MPI section decoded (the rank's MPI "
        + "state in counts) and the MPI objects the image lists (open MPI-IO files: mode, pointers, view, path; windows: "
        + "flavor, size, open epochs).",
        "--bytes N adds a hex dump of the section's first N bytes."})
    static final class Mpi extends ImageCommand {
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

    @Command(name = "sections", mixinStandardHelpOptions = true, description = "The section table of an image in our format.")
    static final class Sections extends ImageCommand {
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

    @Command(name = "verify", mixinStandardHelpOptions = true, description = {"Check checksums, truncation and consistency; reads the whole file once.",
        "Exit status: 0 sound, else the class of the worst problem (6 truncated, 8 corrupt, 7 malformed, 5 unsupported)."})
    static final class Verify extends ImageCommand {
        @Option(names = {"-q", "--quiet"}, description = "Print nothing when the image is sound.")
        boolean quiet;

        @Option(names = "--no-chain", description = "An incremental image: check this file only, not its parents.")
        boolean noChain;

        @Override
        int run(CheckpointImage img) throws ImageException {
            long t0 = System.nanoTime();
            VerifyReport r = noChain ? img.verify(null) : verifyWithChain(img);
            double s = (System.nanoTime() - t0) / 1e9;
            PrintWriter out = out();
            ErrorKind worst = r.worstKind();
            if (json) {
                List<Object> ps = new ArrayList<>();
                for (Problem p : r.problems()) {
                    ps.add(Json.obj().put("kind", p.kind().name()).put("message", p.message()));
                }
                out.println(Json.obj().put("image", img.path().toString()).put("format", img.format().name())
                        .put("ok", r.ok()).put("status", worst == null ? "OK" : worst.name())
                        .put("exit_status", worst == null ? 0 : worst.exitStatus())
                        .put("checksums", r.checksums()).put("regions_checked", r.regionsChecked())
                        .put("sections_checked", r.sectionsChecked()).put("bytes_read", r.bytesRead())
                        .put("seconds", s).put("problems", ps).put("notes", r.notes()));
            } else {
                for (Problem p : r.problems()) {
                    out.println(p);
                }
                if (!quiet) {
                    for (String n : r.notes()) {
                        out.println("note: " + n);
                    }
                }
                if (!quiet || !r.ok()) {
                    out.printf(Locale.ROOT, "%s: %s: %d regions, %d sections%s checked; %s read in %.2f s (%.0f MB/s)%n",
                            img.path(), r.ok() ? "OK" : "FAILED (" + r.problems().size() + " problem"
                                    + (r.problems().size() == 1 ? "" : "s") + ")",
                            r.regionsChecked(), r.sectionsChecked(), r.checksums() ? "" : " (no checksums in this format: structure)",
                            human(r.bytesRead()), s, s > 0 ? r.bytesRead() / s / 1e6 : 0.0);
                }
            }
            if (worst != null) {
                out.flush();
                spec.commandLine().getErr().println("mana_inspect: " + img.path() + ": " + worst.label() + ": "
                        + r.problems().get(0).message() + (r.problems().size() > 1 ? " (and " + (r.problems().size() - 1) + " more)" : ""));
                return worst.exitStatus();
            }
            return 0;
        }
    }

    /**
     * Verify of an incremental image checks its chain too, as a restart needs it: every parent must be there and be
     * the one recorded (else one problem naming it, after this image's own), and each is verified in its turn.
     */
    static VerifyReport verifyWithChain(CheckpointImage img) throws ImageException {
        boolean incremental;
        try {
            incremental = img instanceof ManaImage m && m.parent().isPresent();
        } catch (ImageException e) {
            incremental = false;   // a damaged PARENT section is the image's own problem: its verify reports it
        }
        if (!incremental) {
            return img.verify(null);
        }
        try (CheckpointImage chain = Images.openChain(img.path())) {
            return chain.verify(null);
        } catch (ImageException e) {
            VerifyReport own = img.verify(null);
            List<Problem> ps = new ArrayList<>(own.problems());
            ps.add(new Problem(e.kind(), e.getMessage()));
            return new VerifyReport(ps, own.bytesRead(), own.regionsChecked(), own.sectionsChecked(), own.checksums(),
                    own.notes());
        }
    }

    /** Memory selection shared by extract and hexdump. */
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

    @Command(name = "extract", mixinStandardHelpOptions = true, description = "Write a region's or an address range's memory (zero pages as zeros) to a file.")
    static final class Extract extends ImageCommand {
        @CommandLine.ArgGroup(exclusive = true, multiplicity = "1")
        Which which;

        static final class Which {
            @Option(names = "--region", paramLabel = "INDEX|ADDR|NAME", description = "A region: its index in `map`, an address in it, or its name.")
            String region;

            @Option(names = "--range", paramLabel = "START-END", description = "An address range (hex with 0x).")
            String range;
        }

        @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "Where to write.")
        Path output;

        @Override
        boolean readsMemory() {
            return true;
        }

        @Override
        int run(CheckpointImage img) throws Exception {
            long[] r = select(img, which.region, which.range);
            ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
            long total = 0;
            // into a temporary file beside OUTPUT, renamed over it only once everything is written: a
            // failed extract leaves an existing OUTPUT as it was
            Path dir = output.toAbsolutePath().getParent();
            Path part;
            try {
                part = java.nio.file.Files.createTempFile(dir, "." + output.getFileName() + ".", ".part");
            } catch (IOException e) {
                throw new ImageException(ErrorKind.IO, output + ": " + e.getMessage(), e);
            }
            boolean ok = false;
            try (FileChannel fc = FileChannel.open(part, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                for (long a = r[0]; Long.compareUnsigned(a, r[1]) < 0; ) {
                    buf.clear();
                    long n = Math.min(buf.capacity(), r[1] - a);
                    buf.limit((int) n);
                    img.readMemory(a, buf);
                    buf.flip();
                    while (buf.hasRemaining()) {
                        fc.write(buf);
                    }
                    a += n;
                    total += n;
                }
                fc.force(false);
                fc.close();
                java.nio.file.Files.move(part, output, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                ok = true;
            } catch (IOException e) {
                if (e instanceof ImageException) {
                    throw e;
                }
                throw new ImageException(ErrorKind.IO, output + ": " + e.getMessage(), e);
            } finally {
                if (!ok) {
                    java.nio.file.Files.deleteIfExists(part);
                }
            }
            if (json) {
                out().println(Json.obj().put("image", img.path().toString()).put("start", Json.hex(r[0]))
                        .put("end", Json.hex(r[1])).put("bytes", total).put("output", output.toString()));
            } else {
                out().printf("wrote %d bytes of %s-%s to %s%n", total, hex(r[0]), hex(r[1]), output);
            }
            return 0;
        }
    }

    static void hexdump(PrintWriter out, long base, byte[] b, int n) {
        out.write(dev.mana.inspector.HexDump.lines(base, b, n));
    }

    @Command(name = "hexdump", mixinStandardHelpOptions = true, description = "Hex and ASCII of LEN bytes of process memory at ADDR (as restore would recreate it).")
    static final class Hexdump implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "IMAGE")
        Path image;

        @Parameters(index = "1", paramLabel = "ADDR", description = "Start address (0x... hex, or decimal).")
        String addr;

        @Parameters(index = "2", paramLabel = "LEN", description = "Bytes (0x... hex, or decimal).")
        String len;

        @Override
        public Integer call() throws Exception {
            long a = number(addr, "ADDR");
            long n = number(len, "LEN");
            PrintWriter out = spec.commandLine().getOut();
            try (CheckpointImage img = openChain(image)) {
                byte[] b = new byte[64 * 1024];
                for (long done = 0; Long.compareUnsigned(done, n) < 0; ) {
                    int k = (int) Math.min(b.length, n - done);
                    img.readMemory(a + done, ByteBuffer.wrap(b, 0, k));
                    hexdump(out, a + done, b, k);
                    done += k;
                    if (out.checkError()) {
                        break; // the reader went away (| head)
                    }
                }
            } catch (ImageException e) {
                throw withPath(image, e);
            }
            return 0;
        }
    }

    @Command(name = "diff", mixinStandardHelpOptions = true, description = {"Regions added, removed and changed between images A and B, and bytes changed.",
        "Exit status: 0 same, 1 different (as diff(1)), else an error class."})
    static final class Diff implements Callable<Integer> {
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
            return d.identical() ? 0 : DIFFERENT;
        }
    }

    @Command(name = "dir", mixinStandardHelpOptions = true, aliases = "ckptdir", description = {"A checkpoint directory (CKPTDIR/ckpt_rank_N/): every rank",
        "present, the newest generation all ranks have, no *.tmp, sizes. Exit 0 restartable, 9 not."})
    static final class Dir implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--json", description = "Machine-readable output (one JSON object).")
        boolean json;

        @Parameters(index = "0", paramLabel = "CKPTDIR", defaultValue = ".")
        Path dir;

        @Override
        public Integer call() throws Exception {
            CheckpointDirectory c = CheckpointDirectory.scan(dir);
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                List<Object> ranks = new ArrayList<>();
                for (CheckpointDirectory.RankDir r : c.ranks()) {
                    List<Object> imgs = new ArrayList<>();
                    for (CheckpointDirectory.ImageFile f : r.images()) {
                        imgs.add(Json.obj().put("path", f.path().toString()).put("size", f.size())
                                .put("format", f.format() == null ? null : f.format().name()).put("program", f.program())
                                .put("generation", f.generation()).put("rank", f.rank()).put("nranks", f.nranks())
                                .put("error", f.error()));
                    }
                    ranks.add(Json.obj().put("rank", r.rank()).put("dir", r.dir().toString()).put("images", imgs));
                }
                List<String> tmps = new ArrayList<>();
                c.tmpFiles().forEach(p -> tmps.add(p.toString()));
                out.println(Json.obj().put("dir", dir.toString()).put("restartable", c.restartable())
                        .put("nranks", c.nranks()).put("newest_common_generation", c.newestCommonGeneration())
                        .put("bytes", c.bytesOfNewest()).put("missing_ranks", c.missingRanks()).put("tmp_files", tmps)
                        .put("problems", c.problems()).put("ranks", ranks));
            } else {
                out.printf("%s: %d rank%s, newest generation every rank has: %s%n", dir, c.nranks(), c.nranks() == 1 ? "" : "s",
                        c.newestCommonGeneration() < 0 ? "none" : Long.toString(c.newestCommonGeneration()));
                out.printf("%-6s %-5s %12s %-10s  %s%n", "RANK", "GEN", "SIZE", "FORMAT", "IMAGE");
                for (CheckpointDirectory.RankDir r : c.ranks()) {
                    if (r.images().isEmpty()) {
                        out.printf("%-6d %-5s %12s %-10s  %s%n", r.rank(), "-", "-", "-", r.dir() + "/ (no image)");
                    }
                    for (CheckpointDirectory.ImageFile f : r.images()) {
                        String mark = f.error() == null && f.generation() == c.newestCommonGeneration() ? " *" : "";
                        out.printf("%-6d %-5s %12s %-10s  %s%s%s%n", r.rank(), f.error() == null ? Long.toString(f.generation()) : "?",
                                shortSize(f.size()), f.format() == null ? "?" : f.format() == dev.mana.inspector.ImageFormat.MANA_V1 ? "mana-v1" : "dmtcp-v4",
                                f.path().getFileName(), mark, f.error() == null ? "" : "  (" + f.error() + ")");
                    }
                }
                for (Path t : c.tmpFiles()) {
                    out.printf("%-6s %-5s %12s %-10s  %s%n", "tmp", "-", "-", "-", dir.relativize(t));
                }
                if (c.restartable()) {
                    out.printf("restartable: generation %d (* above), %s in all%n", c.newestCommonGeneration(), human(c.bytesOfNewest()));
                } else {
                    for (String p : c.problems()) {
                        out.println("problem: " + p);
                    }
                }
            }
            if (!c.restartable()) {
                out.flush();
                spec.commandLine().getErr().println("mana_inspect: " + dir + ": not restartable: " + c.problems().get(0));
                return ErrorKind.INCOMPLETE.exitStatus();
            }
            return 0;
        }
    }

    @Command(name = "all", mixinStandardHelpOptions = true, description = "Everything, as readdmtcp.sh: summary, memory map, then threads, files and signals (our format).")
    static final class All implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--json", description = "Machine-readable output: one JSON object with every view.")
        boolean json;

        @Parameters(index = "0", paramLabel = "IMAGE")
        Path image;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            try (CheckpointImage img = open(image)) {
                if (json) {
                    Json.Obj o = Json.obj().put("image", image.toString());
                    o.put("summary", new Json.Raw(capture(w -> summary(img, true, w))));
                    o.put("map", new Json.Raw(capture(w -> map(img, true, w))));
                    if (img instanceof ManaImage) {
                        for (String v : VIEWS) {
                            o.put(v, new Json.Raw(capture(w -> view(v, img, true, w))));
                        }
                    }
                    out.println(o);
                    return 0;
                }
                summary(img, false, out);
                out.println();
                map(img, false, out);
                if (img instanceof ManaImage) {
                    for (String v : VIEWS) {
                        out.println();
                        out.println("---- " + v + " ----");
                        out.flush();
                        view(v, img, false, out);
                    }
                }
            } catch (ImageException e) {
                throw withPath(image, e);
            }
            return 0;
        }

        private static final String[] VIEWS = {"threads", "files", "signals"};

        /** Runs the subcommand {@code name}'s view of {@code img} into {@code w}. */
        private int view(String name, CheckpointImage img, boolean asJson, PrintWriter w) throws Exception {
            CommandLine sub = spec.parent().subcommands().get(name);
            ImageCommand c = sub.getCommand();
            c.image = image;
            c.json = asJson;
            PrintWriter saved = sub.getOut();
            sub.setOut(w);
            try {
                return c.run(img);
            } finally {
                sub.setOut(saved);
            }
        }

        interface View {
            int run(PrintWriter w) throws Exception;
        }

        /** A view's JSON output (one object), without its line end. */
        private static String capture(View v) throws Exception {
            java.io.StringWriter sw = new java.io.StringWriter();
            PrintWriter w = new PrintWriter(sw);
            v.run(w);
            w.flush();
            return sw.toString().trim();
        }
    }

    @Command(name = "simulate", mixinStandardHelpOptions = true, description = "DMTCP images: what `mtcp_restart --simulate` prints, line for line.")
    static final class Simulate implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--json", description = "Machine-readable output: the lines as a JSON array.")
        boolean json;

        @Parameters(index = "0", paramLabel = "IMAGE")
        Path image;

        @Override
        public Integer call() throws Exception {
            try (CheckpointImage img = open(image)) {
                return simulate(img, json, spec.commandLine().getOut());
            } catch (ImageException e) {
                throw withPath(image, e);
            }
        }
    }
}
