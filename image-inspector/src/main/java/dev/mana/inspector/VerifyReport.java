package dev.mana.inspector;

import java.util.List;

/**
 * Result of {@link CheckpointImage#verify}.
 *
 * @param problems          everything found, in the order found (empty when the image is sound)
 * @param bytesRead         bytes of the file read while verifying
 * @param regionsChecked    regions whose payload checksum (or structure, for DMTCP) was checked
 * @param sectionsChecked   sections whose checksum was checked
 * @param checksums         whether the format has checksums (DMTCP v4 has none: structure only)
 * @param notes             observations that do not make the image unsound (e.g. a header total that
 *                          counts regions differently from the reader)
 */
public record VerifyReport(List<Problem> problems, long bytesRead, int regionsChecked,
                           int sectionsChecked, boolean checksums, List<String> notes) {
    public VerifyReport {
        problems = List.copyOf(problems);
        notes = List.copyOf(notes);
    }

    public boolean ok() {
        return problems.isEmpty();
    }

    /**
     * The class the verify exit status reports: TRUNCATED before CORRUPT before MALFORMED before
     * anything else; null when there is no problem.
     */
    public ErrorKind worstKind() {
        ErrorKind[] order = {ErrorKind.TRUNCATED, ErrorKind.CORRUPT, ErrorKind.MALFORMED, ErrorKind.UNSUPPORTED};
        for (ErrorKind k : order) {
            for (Problem p : problems) {
                if (p.kind() == k) {
                    return k;
                }
            }
        }
        return problems.isEmpty() ? null : problems.get(0).kind();
    }
}
