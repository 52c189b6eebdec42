package dev.mana.inspector.cli;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/** A small JSON writer: {@link Obj} keeps key order; values are Strings, numbers, booleans, maps, collections. */
final class Json {
    private Json() {
    }

    /** An ordered JSON object under construction. */
    static final class Obj {
        final Map<String, Object> m = new LinkedHashMap<>();

        Obj put(String k, Object v) {
            m.put(k, v);
            return this;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            write(sb, this);
            return sb.toString();
        }
    }

    /** Text that is JSON already (another view's output), written as it is. */
    record Raw(String json) {
    }

    static Obj obj() {
        return new Obj();
    }

    /** Addresses as "0x..." strings (u64 does not fit a JSON number safely). */
    static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }

    static void write(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof Raw) {
            sb.append(((Raw) v).json());
        } else if (v instanceof Obj) {
            write(sb, ((Obj) v).m);
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                str(sb, String.valueOf(e.getKey()));
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof Collection) {
            sb.append('[');
            boolean first = true;
            for (Object o : (Collection<?>) v) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                write(sb, o);
            }
            sb.append(']');
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            sb.append(Double.isFinite(d) ? String.valueOf(d) : "null");
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else {
            str(sb, v.toString());
        }
    }

    static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }
}
