package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image format is defined once, in core-native/include/mana/image_format.h; this test holds the other
 * copies to it. It reads the header's structs ({@code struct mana_img_*}) and constants ({@code MANA_*}),
 * compiles a C program that prints {@code offsetof}/{@code sizeof} of every field and every constant's value as
 * the compiler sees them, and wants:
 * <ul>
 * <li>{@link ImageLayout} (what the Java reader uses) to hold exactly those numbers, no more and no fewer;</li>
 * <li>the header's own offset comments ({@code / *  16 ...}) and size comments to be the compiler's;</li>
 * <li>no padding the header does not write out (the fields of a struct add up to its size);</li>
 * <li>every offset table of docs/image-format.md to name the same offsets, and to list every field.</li>
 * </ul>
 * A new field in the header fails here until ImageLayout and the doc have it too.
 */
class ImageLayoutTest {
    static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    static final Path HEADER = ROOT.resolve("core-native/include/mana/image_format.h");
    static final Path DOC = ROOT.resolve("docs/image-format.md");

    @TempDir
    Path tmp;

    record CField(String struct, String name, Integer commentOffset) { }

    record CStruct(String name, List<CField> fields, Integer commentSize) { }

    static final Pattern STRUCT = Pattern.compile("(?s)\\nstruct mana_img_(\\w+) \\{(.*?)\\n\\};([^\\n]*)");
    static final Pattern FIELD = Pattern.compile("^\\s*(?:unsigned\\s+)?\\w+\\s+(\\w+)\\s*(?:\\[[^\\]]*\\])?\\s*;(.*)$");
    static final Pattern LEADING_NUMBER = Pattern.compile("^\\s*/\\*\\s*(\\d+)\\b");
    static final Pattern DEFINE = Pattern.compile("(?m)^#define[ \\t]+MANA_(\\w+)[ \\t]+(.+?)[ \\t]*(?:/\\*.*)?$");
    static final Pattern ENUM = Pattern.compile("(?s)\\nenum \\w+ \\{(.*?)\\n\\};");
    static final Pattern ENUMERATOR = Pattern.compile("MANA_(\\w+)\\s*=\\s*([^,\\n]+?)\\s*,");

    static List<CStruct> structs(String h) {
        List<CStruct> out = new ArrayList<>();
        Matcher m = STRUCT.matcher(h);
        while (m.find()) {
            List<CField> fields = new ArrayList<>();
            for (String line : m.group(2).split("\n")) {
                Matcher f = FIELD.matcher(line);
                if (f.matches()) {
                    Matcher n = LEADING_NUMBER.matcher(f.group(2));
                    fields.add(new CField(m.group(1), f.group(1), n.find() ? Integer.valueOf(n.group(1)) : null));
                }
            }
            Matcher n = LEADING_NUMBER.matcher(m.group(3));
            out.add(new CStruct(m.group(1), fields, n.find() ? Integer.valueOf(n.group(1)) : null));
        }
        return out;
    }

    /** MANA_X -> the C expression, for every #define with a value and every enumerator. */
    static Map<String, String> constants(String h) {
        Map<String, String> out = new LinkedHashMap<>();
        Matcher d = DEFINE.matcher(h);
        while (d.find()) {
            if (!d.group(2).matches("[A-Za-z_]\\w*")) { // MANA_STATIC_ASSERT and the like: not a value
                out.put(d.group(1), "MANA_" + d.group(1));
            }
        }
        Matcher e = ENUM.matcher(h);
        while (e.find()) {
            Matcher v = ENUMERATOR.matcher(e.group(1) + ",");
            while (v.find()) {
                out.put(v.group(1), "MANA_" + v.group(1));
            }
        }
        return out;
    }

    static String up(String s) {
        return s.toUpperCase(Locale.ROOT);
    }

    /** NAME -> value, as the C compiler lays out and evaluates the header; OFF_ entries also carry ":size". */
    Map<String, String> fromCompiler(String h, List<CStruct> structs) throws Exception {
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n#include \"mana/image_format.h\"\n"
                + "int main(void) {\n");
        for (CStruct s : structs) {
            String t = "struct mana_img_" + s.name();
            c.append(String.format("    printf(\"SIZEOF_%s %%zu\\n\", sizeof(%s));%n", up(s.name()), t));
            for (CField f : s.fields()) {
                c.append(String.format("    printf(\"OFF_%s_%s %%zu:%%zu\\n\", offsetof(%s, %s), sizeof(((%s *)0)->%s));%n",
                        up(s.name()), up(f.name()), t, f.name(), t, f.name()));
            }
        }
        for (Map.Entry<String, String> k : constants(h).entrySet()) {
            boolean string = h.matches("(?s).*#define\\s+" + k.getValue() + "\\s+\".*");
            c.append(string
                    ? String.format("    printf(\"%s %%s\\n\", %s);%n", k.getKey(), k.getValue())
                    : String.format("    printf(\"%s %%llu\\n\", (unsigned long long)(%s));%n", k.getKey(), k.getValue()));
        }
        c.append("    return 0;\n}\n");
        Files.writeString(tmp.resolve("layout.c"), c);
        run("gcc", "-std=c11", "-Wall", "-Werror", "-I" + ROOT.resolve("core-native/include"), "-o", "layout", "layout.c");
        Map<String, String> out = new TreeMap<>();
        for (String line : run(tmp.resolve("layout").toString()).split("\n")) {
            int sp = line.indexOf(' ');
            out.put(line.substring(0, sp), line.substring(sp + 1));
        }
        return out;
    }

    String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(tmp.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd) + ": no end");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ":\n" + out);
        return out;
    }

    static Map<String, String> fromJava() throws IllegalAccessException {
        Map<String, String> out = new TreeMap<>();
        for (Field f : ImageLayout.class.getDeclaredFields()) {
            int mod = f.getModifiers();
            if (Modifier.isStatic(mod) && Modifier.isFinal(mod) && Modifier.isPublic(mod)) {
                Object v = f.get(null);
                out.put(f.getName(), v instanceof Number ? Long.toString(((Number) v).longValue()) : v.toString());
            }
        }
        return out;
    }

    static String lines(Map<String, String> m) {
        StringBuilder sb = new StringBuilder();
        m.forEach((k, v) -> sb.append(k).append(' ').append(v).append('\n'));
        return sb.toString();
    }

    @Test
    void theJavaLayoutIsTheHeaders() throws Exception {
        String h = Files.readString(HEADER);
        List<CStruct> structs = structs(h);
        assertTrue(structs.size() >= 12, "found only " + structs.size() + " structs in " + HEADER);
        Map<String, String> c = fromCompiler(h, structs);

        // the header's comments say what the compiler does; nothing is padded silently
        List<String> wrong = new ArrayList<>();
        for (CStruct s : structs) {
            long sum = 0;
            for (CField f : s.fields()) {
                String[] offSize = c.get("OFF_" + up(s.name()) + "_" + up(f.name())).split(":");
                sum += Long.parseLong(offSize[1]);
                if (f.commentOffset() == null || f.commentOffset() != Integer.parseInt(offSize[0])) {
                    wrong.add("mana_img_" + s.name() + "." + f.name() + ": comment says " + f.commentOffset()
                            + ", offsetof is " + offSize[0]);
                }
            }
            String size = c.get("SIZEOF_" + up(s.name()));
            if (s.commentSize() == null || !size.equals(s.commentSize().toString())) {
                wrong.add("mana_img_" + s.name() + ": closing comment says " + s.commentSize() + ", sizeof is " + size);
            }
            if (sum != Long.parseLong(size)) {
                wrong.add("mana_img_" + s.name() + ": fields add up to " + sum + " bytes, sizeof is " + size
                        + " (write padding out as a reserved field)");
            }
        }
        assertEquals(List.of(), wrong, "image_format.h's comments and layout");

        Map<String, String> cValues = new TreeMap<>();
        c.forEach((k, v) -> cValues.put(k, v.contains(":") ? v.substring(0, v.indexOf(':')) : v));
        assertEquals(lines(cValues), lines(fromJava()), "ImageLayout.java differs from image_format.h (left: the header"
                + " as the C compiler sees it; right: ImageLayout)");
    }

    /** The doc's offset tables: heading word -> struct. */
    static final Map<String, String> DOC_TABLES = Map.ofEntries(Map.entry("Header", "HEADER"),
            Map.entry("Section", "SECTION"), Map.entry("PROCESS", "PROCESS"), Map.entry("MEMORY", "REGION"),
            Map.entry("THREADS", "THREAD"), Map.entry("FILES", "FILE"), Map.entry("FILEDATA", "FILEDATA"),
            Map.entry("MPI", "MPI"), Map.entry("MPI_OBJECTS", "MPI_OBJECT"), Map.entry("PARENT", "PARENT"),
            Map.entry("ZSTD", "ZSTD"));
    static final Pattern ROW = Pattern.compile("^\\|\\s*(\\d+)\\s*\\|[^|]*\\|\\s*(\\w+)");

    @Test
    void theDocsTablesAreTheHeaders() throws Exception {
        Map<String, String> java = fromJava();
        List<String> wrong = new ArrayList<>();
        Map<String, List<String>> listed = new TreeMap<>();
        String struct = null;
        for (String line : Files.readAllLines(DOC)) {
            if (line.startsWith("#")) {
                String[] words = line.replaceFirst("^#+\\s*", "").split("\\s+");
                struct = line.startsWith("###") ? DOC_TABLES.get(words[0]) : null;
                continue;
            }
            Matcher r = ROW.matcher(line);
            if (struct == null || !r.find()) {
                continue;
            }
            String field = r.group(2);
            listed.computeIfAbsent(struct, k -> new ArrayList<>()).add(up(field));
            if (field.startsWith("reserved")) {
                continue;
            }
            String name = "OFF_" + struct + "_" + up(field);
            String want = java.get(name);
            if (!r.group(1).equals(want)) {
                wrong.add("docs/image-format.md: " + struct + " table: " + field + " at " + r.group(1) + ", ImageLayout (the header) has "
                        + (want == null ? "no such field" : want));
            }
        }
        for (String s : DOC_TABLES.values()) {
            List<String> have = listed.getOrDefault(s, List.of());
            for (String k : java.keySet()) {
                String field = k.startsWith("OFF_" + s + "_") ? k.substring(("OFF_" + s + "_").length()) : null;
                // (OFF_MPI_OBJECT_KIND is the MPI_OBJECT table's, not the MPI table's)
                for (String t : DOC_TABLES.values()) {
                    if (field != null && t.length() > s.length() && k.startsWith("OFF_" + t + "_")) {
                        field = null;
                    }
                }
                if (field != null && !field.startsWith("RESERVED") && !have.contains(field)) {
                    wrong.add("docs/image-format.md: the " + s + " table lacks " + field.toLowerCase(Locale.ROOT));
                }
            }
        }
        assertEquals(List.of(), wrong);
    }
}
