package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import dev.mana.eclipse.internal.core.RankOutput;

/** Every launcher's per-rank label becomes "[rank N] ". */
class RankOutputTest {
    @Test
    void openMpi() {
        assertEquals("[rank 1] hello", RankOutput.normalize("[1,1]<stdout>:hello"));
        assertEquals("[rank 12] oops", RankOutput.normalize("[27841,12]<stderr>: oops"));
    }

    @Test
    void mpich() {
        assertEquals("[rank 0] hello world", RankOutput.normalize("[0] hello world"));
    }

    @Test
    void srun() {
        assertEquals("[rank 3] x = 1", RankOutput.normalize("3: x = 1"));
        assertEquals("[rank 3] x", RankOutput.normalize(" 3: x"));
    }

    @Test
    void unlabelledLinesStay() {
        assertEquals("mpirun noticed that ...", RankOutput.normalize("mpirun noticed that ..."));
        assertEquals("[mana] checkpoint", RankOutput.normalize("[mana] checkpoint"));
    }
}
