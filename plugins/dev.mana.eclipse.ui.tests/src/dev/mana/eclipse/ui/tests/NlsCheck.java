package dev.mana.eclipse.ui.tests;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks an NLS message class ({@code org.eclipse.osgi.util.NLS}) against its properties file and its
 * plug-in's sources. NLS itself only logs a missing key and drops an unused one silently, and binds an
 * argument nobody passes as "&lt;missing argument&gt;", so these are checked here:
 * <ul>
 * <li>every message field has a non-empty text in the file the bundle ships, and NLS loaded that text;</li>
 * <li>every key of the file has a field;</li>
 * <li>a text's placeholders are {0}..{n-1} without gaps (NLS.bind reads n arguments);</li>

 * <li>each {@code NLS.bind(Messages.X, ...)} in the sources passes n arguments; a message used without
 * {@code NLS.bind} has no placeholder; every message is used somewhere;</li>
 * <li>quotes: NLS.bind drops a single {@code '} (it quotes), so a bound text writes an apostrophe as
 * {@code ''}; a text used as it is must not (it would show both).</li>
 * </ul>
 * The source scan is lexical (strings, chars and comments skipped; arguments split at commas outside
 * brackets; {@code new Object[] {...}} counted by its elements): enough for how this project calls NLS.
 */
final class NlsCheck {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{(\\d+)\\}");
    private static final Pattern USE = Pattern.compile("\\bMessages\\.(\\w+)");

    private NlsCheck() {}

    /** What is wrong with {@code messages} (empty: nothing); {@code sources}: the plug-in's source folder. */
    static List<String> problems(Class<?> messages, Path sources) throws Exception {
        List<String> out = new ArrayList<>();
        String name = messages.getSimpleName();
        Field bundle = messages.getDeclaredField("BUNDLE_NAME");
        bundle.setAccessible(true);
        String resource = ((String) bundle.get(null)).replace('.', '/') + ".properties";
        Properties texts = new Properties();
        try (InputStream in = messages.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return List.of(resource + " is not in the bundle");
            }
            texts.load(in);
        }
        Map<String, Field> fields = new LinkedHashMap<>();
        for (Field f : messages.getDeclaredFields()) {
            int m = f.getModifiers();
            if (f.getType() == String.class && Modifier.isPublic(m) && Modifier.isStatic(m) && !Modifier.isFinal(m)) {
                fields.put(f.getName(), f);
            }
        }
        if (fields.isEmpty()) {
            out.add(name + " has no message fields");
        }
        for (Field f : fields.values()) {
            String text = texts.getProperty(f.getName());
            if (text == null || text.isBlank()) {
                out.add(name + "." + f.getName() + " has no text in " + resource);
            } else if (!text.equals(f.get(null))) {
                out.add(name + "." + f.getName() + " is '" + f.get(null) + "', the file says '" + text + "'");
            }
        }
        for (String key : new TreeSet<>(texts.stringPropertyNames())) {
            if (!fields.containsKey(key)) {
                out.add(resource + ": key " + key + " has no field in " + name);
            }
        }
        Uses uses = scan(sources, fields.keySet());
        for (String key : fields.keySet()) {
            String text = texts.getProperty(key, "");
            Set<Integer> seen = placeholders(text);
            int n = seen.isEmpty() ? 0 : ((TreeSet<Integer>) seen).last() + 1;
            if (seen.size() != n) {
                out.add(name + "." + key + ": placeholders " + seen + " are not {0}..{" + (n - 1) + "}");
            }
            Set<Integer> bound = uses.bound.getOrDefault(key, Set.of());
            boolean bare = uses.bare.contains(key);
            if (bound.isEmpty() && !bare) {
                out.add(name + "." + key + " is not used in " + sources);
            }
            for (int args : bound) {
                if (args != n) {
                    out.add(name + "." + key + " needs " + n + " arguments, NLS.bind passes " + args);
                }
            }
            if (!bound.isEmpty() && text.replace("''", "").contains("'")) {
                out.add(name + "." + key + " is bound: write its apostrophe as '' (NLS.bind drops a single one): " + text);
            }
            if (bare && n > 0) {
                out.add(name + "." + key + " has placeholders but is used without NLS.bind");
            }
            if (bare && text.contains("''")) {
                out.add(name + "." + key + " is used without NLS.bind: its '' shows as two quotes: " + text);
            }
        }
        return out;
    }

    /** The argument numbers {@code text} refers to, in order. */
    private static Set<Integer> placeholders(String text) {
        Set<Integer> seen = new TreeSet<>();
        Matcher m = PLACEHOLDER.matcher(text);
        while (m.find()) {
            seen.add(Integer.parseInt(m.group(1)));
        }
        return seen;
    }

    /** How the sources use the messages: argument counts of NLS.bind per key, and keys used as they are. */
    static final class Uses {
        final Map<String, Set<Integer>> bound = new LinkedHashMap<>();
        final Set<String> bare = new TreeSet<>();
    }

    static Uses scan(Path sources, Set<String> keys) throws IOException {
        Uses uses = new Uses();
        List<Path> files;
        try (Stream<Path> s = Files.walk(sources)) {
            files = s.filter(p -> p.toString().endsWith(".java")).toList();
        }
        for (Path p : files) {
            String code = blankOut(Files.readString(p));
            // the keys named in the first argument of each NLS.bind, with the number of arguments after it
            List<int[]> boundSpans = new ArrayList<>();
            int at = 0;
            while ((at = code.indexOf("NLS.bind(", at)) >= 0) {
                int open = at + "NLS.bind".length();
                List<String> args = split(code, open, ')');
                if (!args.isEmpty()) {
                    int n = args.size() - 1;
                    if (n == 1 && args.get(1).trim().startsWith("new Object[]")) {
                        int second = open + 1 + args.get(0).length() + 1;
                        n = split(code, code.indexOf('{', second), '}').size();
                    }
                    int firstStart = open + 1;
                    int firstEnd = firstStart + args.get(0).length();
                    boundSpans.add(new int[] {firstStart, firstEnd});
                    Matcher m = USE.matcher(args.get(0));
                    while (m.find()) {
                        if (keys.contains(m.group(1))) {
                            uses.bound.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(n);
                        }
                    }
                }
                at++; // an NLS.bind may be an argument of another

            }
            Matcher m = USE.matcher(code);
            while (m.find()) {
                int pos = m.start();
                if (keys.contains(m.group(1)) && boundSpans.stream().noneMatch(s -> pos >= s[0] && pos < s[1])) {
                    uses.bare.add(m.group(1));
                }
            }
        }
        return uses;
    }

    /**
     * The arguments of the bracket opened at {@code open}, up to its {@code close}: split at the commas
     * outside inner brackets (each argument's text as it is, so their lengths add up).
     */
    private static List<String> split(String code, int open, char close) {
        List<String> args = new ArrayList<>();
        int depth = 0;
        int start = open + 1;
        for (int i = open + 1; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                if (depth == 0) {
                    if (c == close) {
                        String last = code.substring(start, i);
                        if (!args.isEmpty() || !last.isBlank()) {
                            args.add(last);
                        }
                        return args;
                    }
                    break;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                args.add(code.substring(start, i));
                start = i + 1;
            }
        }
        throw new IllegalStateException("unbalanced brackets after offset " + open);
    }

    /** The code with the contents of comments, strings and chars replaced by blanks (offsets kept). */
    private static String blankOut(String s) {
        StringBuilder b = new StringBuilder(s);
        int i = 0;
        while (i < b.length()) {
            char c = b.charAt(i);
            if (c == '/' && i + 1 < b.length() && b.charAt(i + 1) == '/') {
                while (i < b.length() && b.charAt(i) != '\n') {
                    b.setCharAt(i++, ' ');
                }
            } else if (c == '/' && i + 1 < b.length() && b.charAt(i + 1) == '*') {
                int end = b.indexOf("*/", i + 2);
                end = end < 0 ? b.length() : end + 2;
                for (; i < end; i++) {
                    if (b.charAt(i) != '\n') {
                        b.setCharAt(i, ' ');
                    }
                }
            } else if (c == '"' || c == '\'') {
                i++;
                while (i < b.length() && b.charAt(i) != c) {
                    if (b.charAt(i) == '\\') {
                        b.setCharAt(i++, ' ');
                    }
                    b.setCharAt(i++, ' ');
                }
                i++;
            } else {
                i++;
            }
        }
        return b.toString();
    }
}
