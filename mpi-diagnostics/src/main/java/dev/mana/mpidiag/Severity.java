package dev.mana.mpidiag;

/** How bad a finding is; the order is most severe first. */
public enum Severity {
    ERROR, WARNING, INFORMATION;

    /** The word compilers print ("error", "warning", "note"). */
    public String word() {
        return switch (this) {
            case ERROR -> "error";
            case WARNING -> "warning";
            case INFORMATION -> "note";
        };
    }
}
