package dev.mana.mpidiag.internal;

import java.util.Arrays;

/**
 * The tokens of one file that the rules look at, as parallel int arrays (no object per token, so a
 * million-line file costs a few arrays). Offsets index the file's text (UTF-16 chars).
 */
public final class Tokens {
    /** An identifier the rules care about (MPI_/PMPI_ names, MPI_THREAD_MULTIPLE, ...). */
    public static final int IDENT = 1;
    public static final int LPAREN = 2;
    public static final int RPAREN = 3;
    /** Any other token (identifier, number, string, punctuation): it separates what is around it. */
    public static final int OTHER = 4;
    /** End of a Fortran statement (newline without continuation, or ';'). */
    public static final int EOS = 5;
    /** Fortran's CALL keyword. */
    public static final int CALL = 6;
    /** A use of a macro whose expansion reaches MPI functions; {@link #aux} indexes the expansion. */
    public static final int MACRO = 7;

    private int[] kind;
    private int[] start;
    private int[] end;
    private int[] aux;
    private int size;

    public Tokens() {
        this(1024);
    }

    /** @param capacity the first capacity (directive lines and macro bodies are short) */
    public Tokens(int capacity) {
        kind = new int[capacity];
        start = new int[capacity];
        end = new int[capacity];
        aux = new int[capacity];
    }

    public void add(int k, int s, int e) {
        add(k, s, e, -1);
    }

    public void add(int k, int s, int e, int a) {
        if (size == kind.length) {
            int n = Math.max(8, size * 2);
            kind = Arrays.copyOf(kind, n);
            start = Arrays.copyOf(start, n);
            end = Arrays.copyOf(end, n);
            aux = Arrays.copyOf(aux, n);
        }
        kind[size] = k;
        start[size] = s;
        end[size] = e;
        aux[size] = a;
        size++;
    }

    public int size() {
        return size;
    }

    public int kind(int i) {
        return kind[i];
    }

    public int start(int i) {
        return start[i];
    }

    public int end(int i) {
        return end[i];
    }

    public int aux(int i) {
        return aux[i];
    }
}
