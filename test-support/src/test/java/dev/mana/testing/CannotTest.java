package dev.mana.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class CannotTest {
    @Test
    void failsUnlessTheKeyIsDeclared() {
        AssertionError e = assertThrows(AssertionError.class,
                () -> Cannot.skipOrFail("openmpi", "Open MPI is not installed", null));
        assertEquals("Open MPI is not installed (set MANA_TEST_CANNOT=openmpi where this machine cannot do it)",
                e.getMessage());
        assertThrows(AssertionError.class, () -> Cannot.skipOrFail("openmpi", "x", "softdirty fuse"));
        assertThrows(AssertionError.class, () -> Cannot.skipOrFail("openmpi", "x", "openmpi2"));
    }

    @Test
    void skipsWhenTheKeyIsDeclared() {
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> Cannot.skipOrFail("softdirty", "no soft-dirty bits", "openmpi, softdirty"));
        assertEquals("no soft-dirty bits", e.getMessage());
        assertThrows(TestAbortedException.class, () -> Cannot.skipOrFail("fuse", "x", " fuse"));
    }

    @Test
    void keysAreSeparatedBySpacesOrCommas() {
        assertEquals(Set.of("a", "b", "c"), Cannot.declaredKeys(" a,b  c,,"));
        assertEquals(Set.of(), Cannot.declaredKeys(""));
        assertEquals(Set.of(), Cannot.declaredKeys(null));
    }
}
