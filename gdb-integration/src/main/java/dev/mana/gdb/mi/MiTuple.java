package dev.mana.gdb.mi;

import java.util.ArrayList;
import java.util.List;

/**
 * A tuple {@code {name=value,...}}, also the results of a record. Keeps every entry in order: GDB can
 * repeat a name (old-style multi-location breakpoints), so {@link #get} returns the first and
 * {@link #getAll} every one.
 */
public final class MiTuple implements MiValue {
    public static final MiTuple EMPTY = new MiTuple(List.of(), List.of());

    private final List<String> names;
    private final List<MiValue> values;

    public MiTuple(List<String> names, List<MiValue> values) {
        if (names.size() != values.size()) {
            throw new IllegalArgumentException("names and values differ in length");
        }
        this.names = List.copyOf(names);
        this.values = List.copyOf(values);
    }

    public List<String> names() { return names; }
    public List<MiValue> values() { return values; }
    public int size() { return names.size(); }
    public boolean isEmpty() { return names.isEmpty(); }

    /** The first value named {@code name}, or null. */
    public MiValue get(String name) {
        int i = names.indexOf(name);
        return i < 0 ? null : values.get(i);
    }

    public List<MiValue> getAll(String name) {
        List<MiValue> out = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).equals(name)) {
                out.add(values.get(i));
            }
        }
        return out;
    }

    /** The constant named {@code name}, or null when absent or not a constant. */
    public String getString(String name) {
        MiValue v = get(name);
        return v == null ? null : v.asString();
    }

    /** The constant named {@code name} or {@code dflt}. */
    public String getString(String name, String dflt) {
        String s = getString(name);
        return s == null ? dflt : s;
    }

    /** The tuple named {@code name}, or {@link #EMPTY}. */
    public MiTuple getTuple(String name) {
        MiValue v = get(name);
        return v == null ? EMPTY : v.asTuple();
    }

    /** The items of the list named {@code name}, or an empty list. */
    public List<MiValue> getList(String name) {
        MiValue v = get(name);
        return v == null ? List.of() : v.asList();
    }

    /** A path through nested tuples, e.g. {@code "frame", "func"}; null where it breaks off. */
    public String path(String... keys) {
        MiTuple t = this;
        for (int i = 0; i < keys.length - 1; i++) {
            MiValue v = t.get(keys[i]);
            if (!(v instanceof MiTuple next)) {
                return null;
            }
            t = next;
        }
        return t.getString(keys[keys.length - 1]);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MiTuple t && t.names.equals(names) && t.values.equals(values);
    }

    @Override
    public int hashCode() {
        return names.hashCode() * 31 + values.hashCode();
    }

    /** The body without braces, as in a record: {@code a="1",b={...}}. */
    public String toBodyString() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(names.get(i)).append('=').append(values.get(i));
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return "{" + toBodyString() + "}";
    }
}
