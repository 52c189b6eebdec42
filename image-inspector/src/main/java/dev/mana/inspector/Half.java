package dev.mana.inspector;

/** Which half of the split process a memory region belongs to. */
public enum Half {
    /** The application, its libraries and our plugin: what a checkpoint saves. */
    UPPER("upper"),
    /** The lower half (real MPI): listed for information, never saved. */
    LOWER("lower"),
    /** Kernel-provided mappings ([vdso], [vvar], [vsyscall]). */
    KERNEL("kernel");

    private final String label;

    Half(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
