package dev.mana.gdb.split;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;

/** Memory of a process: the live one ({@code /proc/PID/mem}) or as a checkpoint image saved it. */
public interface MemorySource {
    byte[] read(long address, int length) throws IOException;

    /** A live process's memory (needs ptrace permission: same user, or root). */
    static MemorySource ofPid(long pid) {
        return (address, length) -> {
            try (RandomAccessFile f = new RandomAccessFile("/proc/" + pid + "/mem", "r")) {
                byte[] b = new byte[length];
                f.seek(address);
                f.readFully(b);
                return b;
            }
        };
    }

    /** Memory as the image holds it (stored pages, zeros for the rest). The image is not closed here. */
    static MemorySource ofImage(CheckpointImage image) {
        return (address, length) -> {
            ByteBuffer b = ByteBuffer.allocate(length);
            try {
                image.readMemory(address, b);
            } catch (ImageException e) {
                throw new IOException(e.getMessage(), e);
            }
            return b.array();
        };
    }
}
