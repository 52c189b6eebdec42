package dev.mana.inspector;

/**
 * The PARENT record of an incremental image (docs/image-format.md, "Incremental images"): the image, in the same
 * folder, whose pages this one leaves out.
 *
 * @param generation the parent's generation
 * @param headerCrc  the parent's header CRC when this image was written (a replaced parent has another)
 * @param fileSize   the parent's file size then
 * @param depth      images below this one in the chain (1: the parent is a full image)
 * @param name       the parent's file name
 */
public record ParentInfo(long generation, long headerCrc, long fileSize, long depth, String name) {
}
