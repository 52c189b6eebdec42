package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.MemorySelection.select;
import static dev.mana.inspector.cli.TextFormat.hex;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "extract", mixinStandardHelpOptions = true, description = "Write a region's or an address range's memory (zero pages as zeros) to a file.")
final class ExtractCommand extends ImageCommand {
    @CommandLine.ArgGroup(exclusive = true, multiplicity = "1")
    Which which;

    static final class Which {
        @Option(names = "--region", paramLabel = "INDEX|ADDR|NAME", description = "A region: its index in `map`, an address in it, or its name.")
        String region;

        @Option(names = "--range", paramLabel = "START-END", description = "An address range (hex with 0x).")
        String range;
    }

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "Where to write.")
    Path output;

    @Override
    boolean readsMemory() {
        return true;
    }

    @Override
    int run(CheckpointImage img) throws Exception {
        long[] r = select(img, which.region, which.range);
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
        long total = 0;
        // into a temporary file beside OUTPUT, renamed over it only once everything is written: a
        // failed extract leaves an existing OUTPUT as it was
        Path dir = output.toAbsolutePath().getParent();
        Path part;
        try {
            part = java.nio.file.Files.createTempFile(dir, "." + output.getFileName() + ".", ".part");
        } catch (IOException e) {
            throw new ImageException(ErrorKind.IO, output + ": " + e.getMessage(), e);
        }
        boolean ok = false;
        try (FileChannel fc = FileChannel.open(part, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            for (long a = r[0]; Long.compareUnsigned(a, r[1]) < 0; ) {
                buf.clear();
                long n = Math.min(buf.capacity(), r[1] - a);
                buf.limit((int) n);
                img.readMemory(a, buf);
                buf.flip();
                while (buf.hasRemaining()) {
                    fc.write(buf);
                }
                a += n;
                total += n;
            }
            fc.force(false);
            fc.close();
            java.nio.file.Files.move(part, output, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            ok = true;
        } catch (IOException e) {
            if (e instanceof ImageException) {
                throw e;
            }
            throw new ImageException(ErrorKind.IO, output + ": " + e.getMessage(), e);
        } finally {
            if (!ok) {
                java.nio.file.Files.deleteIfExists(part);
            }
        }
        if (json) {
            out().println(Json.obj().put("image", img.path().toString()).put("start", Json.hex(r[0]))
                    .put("end", Json.hex(r[1])).put("bytes", total).put("output", output.toString()));
        } else {
            out().printf("wrote %d bytes of %s-%s to %s%n", total, hex(r[0]), hex(r[1]), output);
        }
        return 0;
    }
}
