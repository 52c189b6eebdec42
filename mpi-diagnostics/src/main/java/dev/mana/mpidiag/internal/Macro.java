package dev.mana.mpidiag.internal;

import java.util.List;

/**
 * A {@code #define} of the file. {@code body} holds its tokens (kind, offsets); {@code names} the
 * identifier text of each body token (null for non-identifiers).
 */
public record Macro(String name, int nameStart, Tokens body, List<String> names) {}
