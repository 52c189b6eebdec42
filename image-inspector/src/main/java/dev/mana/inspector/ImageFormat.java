package dev.mana.inspector;

/** The image formats the inspector reads. */
public enum ImageFormat {
    /** Our own format, version 1 (docs/image-format.md, magic {@code MANAIMG1}). */
    MANA_V1("MANA image v1"),
    /** MANA 1.x / DMTCP v4.0 images ({@code ckpt_*.dmtcp}), possibly gzip'd as a whole. Read-only. */
    DMTCP_V4("DMTCP v4.0 image");

    private final String displayName;

    ImageFormat(String displayName) {
        this.displayName = displayName;
    }

    public String displayName() {
        return displayName;
    }
}
