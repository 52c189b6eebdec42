package dev.mana.gdb.split;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mana.gdb.testsupport.ManaRuntime;
import dev.mana.gdb.testsupport.TestProgram;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The offsets LhInfo reads are those of core-native/src/common/lh_info.h, as the C compiler lays it out. */
class LhInfoLayoutTest {
    @TempDir
    Path tmp;

    @Test
    void offsetsMatchTheHeader() throws Exception {
        Path header = ManaRuntime.root().resolve("core-native/src/common");
        Files.writeString(tmp.resolve("off.c"), """
                #include <stddef.h>
                #include <stdio.h>
                #include "lh_info.h"
                int main(void) {
                    printf("%zu %zu %zu %zu %zu %zu %zu %zu\\n", offsetof(struct lh_info, version),
                           offsetof(struct lh_info, size), offsetof(struct lh_info, flags),
                           offsetof(struct lh_info, generation), offsetof(struct lh_info, settings.rank),
                           offsetof(struct lh_info, settings.restart_pause), offsetof(struct lh_info, lh_ranges),
                           offsetof(struct lh_info, lh_range_count));
                    return 0;
                }
                """);
        TestProgram.run(tmp, "gcc", "-I" + header, "-o", "off", "off.c");
        String got = TestProgram.run(tmp, tmp.resolve("off").toString()).strip();
        assertEquals(LhInfo.OFF_VERSION + " " + LhInfo.OFF_SIZE + " " + LhInfo.OFF_FLAGS + " " + LhInfo.OFF_GENERATION
                + " " + LhInfo.OFF_RANK + " " + LhInfo.OFF_RESTART_PAUSE + " " + LhInfo.OFF_LH_RANGES + " "
                + LhInfo.OFF_LH_RANGE_COUNT, got);
    }
}
