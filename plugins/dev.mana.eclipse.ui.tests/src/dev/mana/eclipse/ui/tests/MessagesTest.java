package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The NLS message classes of dev.mana.eclipse.ui (three packages), dev.mana.eclipse.debug.ui and
 * dev.mana.eclipse.mpidiag are complete both ways and fit how the sources use them ({@link NlsCheck}); and
 * the check finds each mistake it looks for in a fixture made with one of each.
 */
class MessagesTest {

    private static List<String> sorted(List<String> l) {
        return l.stream().sorted().toList();
    }

    private static Path sources(String plugin) {
        return Path.of(System.getProperty("mana.root"), "plugins", plugin, "src");
    }

    @Test
    void uiMessagesAreCompleteAndFitTheirUses() throws Exception {
        List<String> problems = new ArrayList<>();
        for (Class<?> c : List.of(dev.mana.eclipse.internal.ui.Messages.class,
            dev.mana.eclipse.internal.ui.launch.Messages.class, dev.mana.eclipse.internal.ui.images.Messages.class)) {
            problems.addAll(NlsCheck.problems(c, sources("dev.mana.eclipse.ui")));
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void debugUiMessagesAreCompleteAndFitTheirUses() throws Exception {
        assertEquals(List.of(), NlsCheck.problems(dev.mana.eclipse.internal.debug.ui.Messages.class,
            sources("dev.mana.eclipse.debug.ui")));
    }

    /** Here rather than in dev.mana.eclipse.mpidiag.tests, so the test bundles need no copy of NlsCheck. */
    @Test
    void mpidiagMessagesAreCompleteAndFitTheirUses() throws Exception {
        assertEquals(List.of(), NlsCheck.problems(dev.mana.eclipse.internal.mpidiag.Messages.class,
            sources("dev.mana.eclipse.mpidiag")));
    }

    @Test
    void theCheckFindsEachKindOfMistake() throws Exception {
        Path dir = sources("dev.mana.eclipse.ui.tests").resolve("dev/mana/eclipse/ui/tests/nlsfixture");
        List<String> problems = NlsCheck.problems(dev.mana.eclipse.ui.tests.nlsfixture.Messages.class, dir);
        String m = "Messages.";
        List<String> expected = List.of(
            m + "Fixture_noText has no text in dev/mana/eclipse/ui/tests/nlsfixture/messages.properties",
            "dev/mana/eclipse/ui/tests/nlsfixture/messages.properties: key Fixture_noField has no field in Messages",
            m + "Fixture_gap: placeholders [0, 2] are not {0}..{2}",
            m + "Fixture_gap needs 3 arguments, NLS.bind passes 2",
            m + "Fixture_tooFewArguments needs 2 arguments, NLS.bind passes 1",
            m + "Fixture_bareWithPlaceholder has placeholders but is used without NLS.bind",
            m + "Fixture_boundSingleQuote is bound: write its apostrophe as '' (NLS.bind drops a single one): the job's {0}",
            m + "Fixture_bareDoubledQuote is used without NLS.bind: its '' shows as two quotes: the job''s directory",
            m + "Fixture_unused is not used in " + dir);
        assertEquals(sorted(expected), sorted(problems));
    }
}
