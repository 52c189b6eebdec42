package dev.mana.gdb.mi;

import java.util.List;

/**
 * A value of GDB/MI output syntax: a c-string constant, a tuple {@code {a=1,b=2}} or a list
 * ({@code [1,2]} or {@code [a=1,b=2]}). Immutable.
 */
public sealed interface MiValue permits MiValue.Const, MiTuple, MiValue.ListValue {

    /** A c-string constant, already unescaped. */
    record Const(String text) implements MiValue {
        @Override
        public String toString() {
            return MiEscapes.quote(text);
        }
    }

    /**
     * A list. GDB writes lists of values ({@code [1,2]}) and lists of results ({@code [frame={..},frame={..}]});
     * for the latter {@code names} holds each item's name (else it is empty).
     */
    record ListValue(List<MiValue> items, List<String> names) implements MiValue {
        public ListValue {
            items = List.copyOf(items);
            names = List.copyOf(names);
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < items.size(); i++) {
                if (i > 0) {
                    b.append(',');
                }
                if (!names.isEmpty()) {
                    b.append(names.get(i)).append('=');
                }
                b.append(items.get(i));
            }
            return b.append(']').toString();
        }
    }

    /** The text of a constant, or null for a tuple or list. */
    default String asString() {
        return this instanceof Const c ? c.text() : null;
    }

    /** This value as a tuple, or an empty tuple when it is not one. */
    default MiTuple asTuple() {
        return this instanceof MiTuple t ? t : MiTuple.EMPTY;
    }

    /** The items of a list; a tuple counts as a list of its values; a constant as an empty list. */
    default List<MiValue> asList() {
        if (this instanceof ListValue l) {
            return l.items();
        }
        if (this instanceof MiTuple t) {
            return t.values();
        }
        return List.of();
    }
}
