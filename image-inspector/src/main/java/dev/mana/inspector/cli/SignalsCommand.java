package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.FormatGuard.requireMana;
import static dev.mana.inspector.cli.TextFormat.hex;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.SignalState;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

@Command(name = "signals", mixinStandardHelpOptions = true, description = "Signal handlers that are not SIG_DFL, and interval timers.")
final class SignalsCommand extends ImageCommand {
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
