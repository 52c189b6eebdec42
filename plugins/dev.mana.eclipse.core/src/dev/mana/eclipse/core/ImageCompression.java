package dev.mana.eclipse.core;

import java.util.Locale;

/**
 * How a job's checkpoint images are compressed: the value of {@link ManaCore#ATTR_COMPRESS} and of
 * {@code mana_launch --compress=LEVEL}. Only the two named levels are offered: a raw zstd level 1-19 is for
 * the command line, where its cost can be measured.
 */
public enum ImageCompression {
    /** No compression; no flag, so a launch is exactly what it was before images could be compressed. */
    OFF,
    /** zstd level 3 (zstd's default): about 2x smaller images of typical data, on a thread per core. */
    FAST,
    /** zstd level 9: smaller still, several times the CPU of FAST. */
    STRONG;

    /** The attribute's value and mana_launch's level name: "off", "fast", "strong". */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The compression a value names; anything else (absent, mistyped) is {@link #OFF}, as for the other enums. */
    public static ImageCompression fromValue(String value) {
        for (ImageCompression c : values()) {
            if (c.value().equals(value)) {
                return c;
            }
        }
        return OFF;
    }
}
