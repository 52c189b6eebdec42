package dev.mana.mpidiag;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/** The source languages the analysis reads, chosen by file name as compilers do. */
public enum Language {
    C, CPP, FORTRAN_FREE, FORTRAN_FIXED;

    /** The language of a file name; empty for files that are none of them. */
    public static Optional<Language> of(String fileName) {
        int dot = fileName.lastIndexOf('.');
        if (dot < 0) {
            return Optional.empty();
        }
        String ext = fileName.substring(dot + 1);
        switch (ext) {
            case "c", "h":
                return Optional.of(C);
            case "C", "H":
                return Optional.of(CPP);
            default:
                break;
        }
        return switch (ext.toLowerCase(Locale.ROOT)) {
            case "cc", "cpp", "cxx", "c++", "cp", "hh", "hpp", "hxx", "h++", "ipp", "tcc", "inl", "cu", "cuh" ->
                    Optional.of(CPP);
            case "f", "for", "ftn", "f77", "fpp" -> Optional.of(FORTRAN_FIXED);
            case "f90", "f95", "f03", "f08", "f18" -> Optional.of(FORTRAN_FREE);
            default -> Optional.empty();
        };
    }

    public static Optional<Language> of(Path file) {
        Path name = file.getFileName();
        return name == null ? Optional.empty() : of(name.toString());
    }

    public boolean isFortran() {
        return this == FORTRAN_FREE || this == FORTRAN_FIXED;
    }

    /** The comment that starts a suppression on this language's lines. */
    public String lineComment() {
        return isFortran() ? "!" : "//";
    }

    /** The LSP language ids editors send ("c", "cpp", "fortran"). */
    public static Optional<Language> ofLanguageId(String id, String fileName) {
        Optional<Language> byName = of(fileName);
        if (byName.isPresent()) {
            return byName;
        }
        if (id == null) {
            return Optional.empty();
        }
        return switch (id.toLowerCase(Locale.ROOT)) {
            case "c" -> Optional.of(C);
            case "cpp", "c++", "cuda" -> Optional.of(CPP);
            case "fortran", "fortran_free_form", "fortran90" -> Optional.of(FORTRAN_FREE);
            case "fortran_fixed_form", "fortran77" -> Optional.of(FORTRAN_FIXED);
            default -> Optional.empty();
        };
    }
}
