package dev.mana.mpidiag.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.mana.mpidiag.BinaryPreflight;
import dev.mana.mpidiag.CoverageManifest;
import dev.mana.mpidiag.Diagnostic;
import dev.mana.mpidiag.Range;
import dev.mana.mpidiag.Rule;
import dev.mana.mpidiag.Severity;

import java.nio.file.Path;
import java.util.List;

/** mana_lint's three output formats: compiler lines, JSON, SARIF 2.1.0. */
final class Reports {
    private static final Gson GSON = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();

    private Reports() {
    }

    /** {@code file:line:col: error: message [rule]} (1-based, as compilers print); binary findings without a position. */
    static String compilerLine(Diagnostic d) {
        Range r = d.range();
        String where = r == null ? d.file() : d.file() + ":" + (r.startLine() + 1) + ":" + (r.startColumn() + 1);
        return where + ": " + d.severity().word() + ": " + d.message() + " [" + d.rule().id() + "]";
    }

    static JsonObject json(Diagnostic d) {
        JsonObject o = new JsonObject();
        o.addProperty("file", d.file());
        if (d.range() != null) {
            o.addProperty("line", d.range().startLine() + 1);
            o.addProperty("column", d.range().startColumn() + 1);
            o.addProperty("endLine", d.range().endLine() + 1);
            o.addProperty("endColumn", d.range().endColumn() + 1);
        }
        o.addProperty("severity", d.severity().name().toLowerCase(java.util.Locale.ROOT));
        o.addProperty("rule", d.rule().id());
        o.addProperty("function", d.function());
        o.addProperty("message", d.message());
        if (d.reason() != null) {
            o.addProperty("reason", d.reason());
        }
        return o;
    }

    static JsonObject summary(List<Diagnostic> ds) {
        JsonObject s = new JsonObject();
        for (Severity sev : Severity.values()) {
            s.addProperty(sev.name().toLowerCase(java.util.Locale.ROOT),
                    ds.stream().filter(d -> d.severity() == sev).count());
        }
        return s;
    }

    static String sourcesJson(CoverageManifest m, int files, List<Diagnostic> ds) {
        JsonObject o = new JsonObject();
        o.addProperty("manifest", String.valueOf(m.source()));
        o.addProperty("files", files);
        JsonArray a = new JsonArray();
        ds.forEach(d -> a.add(json(d)));
        o.add("diagnostics", a);
        o.add("summary", summary(ds));
        return GSON.toJson(o);
    }

    static String binaryJson(CoverageManifest m, BinaryPreflight.Report r, List<Diagnostic> ds) {
        JsonObject o = new JsonObject();
        o.addProperty("manifest", String.valueOf(m.source()));
        o.addProperty("program", r.program().toString());
        o.addProperty("mpi", r.mpi());
        JsonArray objs = new JsonArray();
        for (BinaryPreflight.LoadedObject lo : r.objects()) {
            JsonObject j = new JsonObject();
            j.addProperty("path", lo.path().toString());
            if (lo.needed() != null) {
                j.addProperty("needed", lo.needed());
                j.addProperty("neededBy", lo.neededBy());
            }
            j.addProperty("mpi", lo.mpi());
            objs.add(j);
        }
        o.add("objects", objs);
        JsonArray imps = new JsonArray();
        for (BinaryPreflight.Import i : r.imports()) {
            JsonObject j = new JsonObject();
            j.addProperty("function", i.function());
            j.addProperty("status", i.entry() == null ? "unknown" : i.entry().status().id());
            if (i.entry() != null && i.entry().reason() != null) {
                j.addProperty("reason", i.entry().reason());
            }
            JsonArray syms = new JsonArray();
            i.symbols().forEach(syms::add);
            j.add("symbols", syms);
            JsonArray by = new JsonArray();
            i.importers().forEach(by::add);
            j.add("importers", by);
            imps.add(j);
        }
        o.add("imports", imps);
        JsonArray missing = new JsonArray();
        r.missing().forEach(missing::add);
        o.add("missing", missing);
        JsonArray a = new JsonArray();
        ds.forEach(d -> a.add(json(d)));
        o.add("diagnostics", a);
        o.add("summary", summary(ds));
        return GSON.toJson(o);
    }

    /** SARIF 2.1.0, one run; columns in UTF-16 code units (SARIF's default), 1-based. */
    static String sarif(List<Diagnostic> ds, String toolVersion) {
        JsonObject root = new JsonObject();
        root.addProperty("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
        root.addProperty("version", "2.1.0");
        JsonObject run = new JsonObject();
        JsonObject driver = new JsonObject();
        driver.addProperty("name", "mana_lint");
        driver.addProperty("version", toolVersion);
        JsonArray rules = new JsonArray();
        for (Rule r : Rule.values()) {
            JsonObject rule = new JsonObject();
            rule.addProperty("id", r.id());
            JsonObject sd = new JsonObject();
            sd.addProperty("text", r.description());
            rule.add("shortDescription", sd);
            JsonObject cfg = new JsonObject();
            cfg.addProperty("level", level(r.severity()));
            rule.add("defaultConfiguration", cfg);
            rules.add(rule);
        }
        driver.add("rules", rules);
        JsonObject tool = new JsonObject();
        tool.add("driver", driver);
        run.add("tool", tool);
        run.addProperty("columnKind", "utf16CodeUnits");
        JsonArray results = new JsonArray();
        for (Diagnostic d : ds) {
            JsonObject res = new JsonObject();
            res.addProperty("ruleId", d.rule().id());
            res.addProperty("ruleIndex", d.rule().ordinal());
            res.addProperty("level", level(d.severity()));
            JsonObject msg = new JsonObject();
            msg.addProperty("text", d.message());
            res.add("message", msg);
            JsonObject phys = new JsonObject();
            JsonObject art = new JsonObject();
            art.addProperty("uri", uri(d.file()));
            phys.add("artifactLocation", art);
            if (d.range() != null) {
                JsonObject region = new JsonObject();
                region.addProperty("startLine", d.range().startLine() + 1);
                region.addProperty("startColumn", d.range().startColumn() + 1);
                region.addProperty("endLine", d.range().endLine() + 1);
                region.addProperty("endColumn", d.range().endColumn() + 1);
                phys.add("region", region);
            }
            JsonObject loc = new JsonObject();
            loc.add("physicalLocation", phys);
            JsonArray locs = new JsonArray();
            locs.add(loc);
            res.add("locations", locs);
            JsonObject props = new JsonObject();
            props.addProperty("function", d.function());
            res.add("properties", props);
            results.add(res);
        }
        run.add("results", results);
        JsonArray runs = new JsonArray();
        runs.add(run);
        root.add("runs", runs);
        return GSON.toJson(root);
    }

    static String level(Severity s) {
        return switch (s) {
            case ERROR -> "error";
            case WARNING -> "warning";
            case INFORMATION -> "note";
        };
    }

    /** Relative paths stay relative (code scanning resolves them against the checkout); absolute ones become file URIs. */
    static String uri(String file) {
        Path p = Path.of(file);
        if (p.isAbsolute()) {
            return p.toUri().toString();
        }
        return file.replace('\\', '/').replace(" ", "%20");
    }
}
