package dev.mana.inspector.cli;

import static dev.mana.inspector.cli.ImageOpener.openChain;
import static dev.mana.inspector.cli.ImageOpener.withPath;
import static dev.mana.inspector.cli.NumberArgument.number;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "hexdump", mixinStandardHelpOptions = true, description = "Hex and ASCII of LEN bytes of process memory at ADDR (as restore would recreate it).")
final class HexdumpCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "IMAGE")
    Path image;

    @Parameters(index = "1", paramLabel = "ADDR", description = "Start address (0x... hex, or decimal).")
    String addr;

    @Parameters(index = "2", paramLabel = "LEN", description = "Bytes (0x... hex, or decimal).")
    String len;

    @Override
    public Integer call() throws Exception {
        long a = number(addr, "ADDR");
        long n = number(len, "LEN");
        PrintWriter out = spec.commandLine().getOut();
        try (CheckpointImage img = openChain(image)) {
            byte[] b = new byte[64 * 1024];
            for (long done = 0; Long.compareUnsigned(done, n) < 0; ) {
                int k = (int) Math.min(b.length, n - done);
                img.readMemory(a + done, ByteBuffer.wrap(b, 0, k));
                hexdump(out, a + done, b, k);
                done += k;
                if (out.checkError()) {
                    break; // the reader went away (| head)
                }
            }
        } catch (ImageException e) {
            throw withPath(image, e);
        }
        return 0;
    }

    static void hexdump(PrintWriter out, long base, byte[] b, int n) {
        out.write(dev.mana.inspector.HexDump.lines(base, b, n));
    }
}
