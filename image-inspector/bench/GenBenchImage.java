// Writes a large, valid image in our format v1 for the benchmark (docs/image-format.md), streaming, with the
// test kit's writer (image-testkit: the one Java writer of images, the unit tests' too): every payload byte is
// really written (no holes: a sparse file would make read throughput a lie), and the file is fsync'd.
// Run as a single-file program with the kit on the class path:
//   java -cp image-testkit/target/image-testkit-*.jar GenBenchImage.java OUT.mana STORED_GIB
// Layout: REGIONS anonymous regions; in each, every 17th page is a zero page (not stored: many runs), then the
// stack and the main thread the kit gives every image.
import dev.mana.inspector.testkit.ManaImageWriter;
import dev.mana.inspector.testkit.TestManaImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public class GenBenchImage {
    static final int PAGE = TestManaImage.PAGE;
    static final int REGIONS = 64;

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]);
        long storedTotal = (long) (Double.parseDouble(args[1]) * (1L << 30));
        long storedPerRegion = Math.max(PAGE, storedTotal / REGIONS / PAGE * PAGE);
        TestManaImage t = ManaImageWriter.image("big", 0, 1, 1);
        t.mpi = "none";
        t.host = "benchhost";
        t.exe = "/opt/bench/big";
        t.cwd = "/opt/bench";
        t.argv = new ArrayList<>(List.of("big"));
        t.fsync = true;
        for (int r = 0; r < REGIONS; r++) {
            t.fillRegion(0x7e0000000000L + (long) r * (1L << 32), storedPerRegion, 42 + r, 17);
        }
        ManaImageWriter.withStack(t).write(out);
        System.out.printf("wrote %s: %d bytes, %d regions, %d stored bytes%n", out, Files.size(out), REGIONS + 1,
                storedPerRegion * REGIONS);
    }
}
