package dev.mana.mpidiag;

/** The checks, with the ids that JSON, SARIF and suppressions show. */
public enum Rule {
    UNSUPPORTED("mana/unsupported", Severity.ERROR, "A call to an MPI function the runtime cannot checkpoint"),
    PARTIAL("mana/partial", Severity.WARNING, "A call to an MPI function the runtime supports with a limit"),
    THREAD_MULTIPLE("mana/thread-multiple", Severity.WARNING, "MPI_Init_thread asks for MPI_THREAD_MULTIPLE"),
    PROFILING("mana/profiling", Severity.INFORMATION, "A direct call of the PMPI_ profiling interface"),
    UNKNOWN("mana/unknown-function", Severity.INFORMATION, "A call to an MPI_ name the coverage manifest does not list"),
    NOT_EXPORTED("mana/not-exported", Severity.INFORMATION, "A call to an MPI function the selected MPI does not export");

    private final String id;
    private final Severity severity;
    private final String description;

    Rule(String id, Severity severity, String description) {
        this.id = id;
        this.severity = severity;
        this.description = description;
    }

    public String id() {
        return id;
    }

    public Severity severity() {
        return severity;
    }

    public String description() {
        return description;
    }
}
