package dev.mana.coordinator.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Aggregates the timing files of several {@code mana_simrank --bench} processes. Iteration i of the
 * collective took (latest end over processes) - (earliest start over processes): from the first rank
 * entering it to the last rank leaving it (System.nanoTime is one clock for all processes of a machine).
 * Prints {@code median_ms p99_ms iterations}.
 *
 * <p>Usage: {@code BenchReport WARMUP FILE...}
 */
public final class BenchReport {
    private BenchReport() {}

    public static void main(String[] args) throws IOException {
        int warmup = Integer.parseInt(args[0]);
        List<long[][]> files = new ArrayList<>();
        int n = Integer.MAX_VALUE;
        for (int i = 1; i < args.length; i++) {
            List<String> lines = Files.readAllLines(Path.of(args[i]));
            long[][] t = new long[lines.size()][2];
            for (int k = 0; k < lines.size(); k++) {
                String[] p = lines.get(k).trim().split("\\s+");
                t[k][0] = Long.parseLong(p[0]);
                t[k][1] = Long.parseLong(p[1]);
            }
            files.add(t);
            n = Math.min(n, t.length);
        }
        double[] ms = new double[Math.max(0, n - warmup)];
        for (int i = warmup; i < n; i++) {
            long start = Long.MAX_VALUE, end = Long.MIN_VALUE;
            for (long[][] t : files) {
                start = Math.min(start, t[i][0]);
                end = Math.max(end, t[i][1]);
            }
            ms[i - warmup] = (end - start) / 1e6;
        }
        Arrays.sort(ms);
        System.out.println(String.format(Locale.ROOT, "%.3f %.3f %d", pct(ms, 50), pct(ms, 99), ms.length));
    }

    static double pct(double[] sorted, double p) {
        if (sorted.length == 0) return Double.NaN;
        int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }
}
