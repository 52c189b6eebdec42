package dev.mana.mpidiag;

/**
 * One finding.
 *
 * @param file     the file as the caller named it (a path or a URI), or the program for binary findings
 * @param range    where in the file (null for binary findings)
 * @param function the C name of the MPI function (as the manifest spells it, or as written when unknown)
 * @param reason   the manifest's reason, or null
 */
public record Diagnostic(String file, Range range, Rule rule, Severity severity, String function, String message,
                         String reason) {}
