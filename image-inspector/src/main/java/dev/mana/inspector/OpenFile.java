package dev.mana.inspector;

/** One record of the FILES section of our format. */
public record OpenFile(int fd, int kind, int openFlags, int fdFlags, long offset, long size, long mtimeNs,
                       long inode, long dev, int mode, String path) {

    /** fd_flags bit: FD_CLOEXEC. */
    public static final int FD_CLOEXEC = 0x1;
    /** fd_flags bit: inherited from the launcher (restart hands the number to the new launcher's file). */
    public static final int FD_INHERITED = ImageLayout.FD_INHERITED;

    public boolean cloexec() {
        return (fdFlags & FD_CLOEXEC) != 0;
    }

    public boolean inherited() {
        return (fdFlags & FD_INHERITED) != 0;
    }

    /** The descriptor flags as words, e.g. " cloexec inherited" (empty when none). */
    public String fdFlagWords() {
        return (cloexec() ? " cloexec" : "") + (inherited() ? " inherited" : "");
    }

    public String kindName() {
        switch (kind) {
            case 1: return "regular";
            case 2: return "directory";
            case 3: return "chardev";
            case 4: return "pipe";
            case 5: return "socket";
            case 6: return "other";
            default: return "kind " + Integer.toUnsignedString(kind);
        }
    }

    /** O_RDONLY/O_WRONLY/O_RDWR plus the common O_* flags, e.g. "O_WRONLY|O_APPEND". */
    public String openFlagNames() {
        StringBuilder sb = new StringBuilder();
        switch (openFlags & 3) {
            case 0: sb.append("O_RDONLY"); break;
            case 1: sb.append("O_WRONLY"); break;
            case 2: sb.append("O_RDWR"); break;
            default: sb.append("O_ACCMODE"); break;
        }
        int[] bits = {0100, 0200, 01000, 02000, 04000, 040000, 0200000, 0400000, 02000000, 010000000};
        String[] names = {"O_CREAT", "O_EXCL", "O_TRUNC", "O_APPEND", "O_NONBLOCK", "O_DIRECT", "O_DIRECTORY",
            "O_NOFOLLOW", "O_CLOEXEC", "O_PATH"};
        for (int i = 0; i < bits.length; i++) {
            if ((openFlags & bits[i]) != 0) {
                sb.append('|').append(names[i]);
            }
        }
        return sb.toString();
    }
}
