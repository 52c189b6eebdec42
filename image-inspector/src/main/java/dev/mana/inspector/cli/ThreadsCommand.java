package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.FormatGuard.requireMana;
import static dev.mana.inspector.cli.TextFormat.hex;
import static dev.mana.inspector.cli.TextFormat.shortSize;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ThreadInfo;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

@Command(name = "threads", mixinStandardHelpOptions = true, description = "Threads: tid, flags, FS base, stack range, signal mask, registers.")
final class ThreadsCommand extends ImageCommand {
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
