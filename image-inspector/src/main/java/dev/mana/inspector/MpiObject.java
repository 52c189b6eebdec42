package dev.mana.inspector;

/**
 * One record of an image's MPI_OBJECTS section (docs/image-format.md): an MPI-IO file the rank had open at
 * the checkpoint, or a window it had.
 *
 * @param kind           {@link #FILE} or {@link #WINDOW}
 * @param flags          file: {@link #SHARED_FP}, {@link #ATOMIC}, {@link #VIEW}; window: {@link #FENCE},
 *                       {@link #LOCK_ALL}, {@link #LOCKS}
 * @param amode          file: the {@code MPI_MODE_*} bits it was opened with; window: {@code MPI_WIN_FLAVOR_*}
 * @param commSize       members of the communicator it was made on
 * @param position       file: the individual file pointer, in etypes of the view; window: its size in bytes
 * @param sharedPosition file: the shared file pointer (0 unless {@link #SHARED_FP}); window: its disp_unit
 * @param disp           file: the view's displacement in bytes; window: its base address
 * @param dev            file: device when it was opened (a restart wants the same file)
 * @param ino            file: inode
 * @param name           file: its path as the program gave it; window: its name ("" if none)
 */
public record MpiObject(int kind, int flags, int amode, int commSize, long position, long sharedPosition, long disp,
                        long dev, long ino, String name) {
    public static final int FILE = ImageLayout.MPI_OBJ_FILE;
    public static final int SHARED_FP = ImageLayout.MPI_OBJF_SHARED_FP;
    public static final int ATOMIC = ImageLayout.MPI_OBJF_ATOMIC;
    public static final int VIEW = ImageLayout.MPI_OBJF_VIEW;
    public static final int WINDOW = ImageLayout.MPI_OBJ_WIN;
    public static final int FENCE = ImageLayout.MPI_OBJF_FENCE;
    public static final int LOCK_ALL = ImageLayout.MPI_OBJF_LOCK_ALL;
    public static final int LOCKS = ImageLayout.MPI_OBJF_LOCKS;

    public String kindName() {
        return kind == FILE ? "file" : kind == WINDOW ? "window" : "kind " + Integer.toUnsignedString(kind);
    }

    /** The flags as words ("shared-fp atomic view", "fence lock-all locks"), or "-". */
    public String flagNames() {
        StringBuilder b = new StringBuilder();
        if (kind == WINDOW) {
            b.append((flags & FENCE) != 0 ? "fence " : "").append((flags & LOCK_ALL) != 0 ? "lock-all " : "")
                    .append((flags & LOCKS) != 0 ? "locks " : "");
            return b.length() == 0 ? "-" : b.toString().trim();
        }
        if ((flags & SHARED_FP) != 0) {
            b.append("shared-fp ");
        }
        if ((flags & ATOMIC) != 0) {
            b.append("atomic ");
        }
        if ((flags & VIEW) != 0) {
            b.append("view ");
        }
        return b.length() == 0 ? "-" : b.toString().trim();
    }
}
