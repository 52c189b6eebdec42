package dev.mana.eclipse.ui.tests.nlsfixture;

import org.eclipse.osgi.util.NLS;

/** How the fixture's messages are used (scanned as source by MessagesTest, never run). */
final class Uses {
    private Uses() {}

    static String[] all(boolean b) {
        // NLS.bind(Messages.Fixture_unused, 1) in a comment is no use
        String s = "NLS.bind(Messages.Fixture_unused, 1)"; // nor in a string
        return new String[] {s, Messages.Fixture_fine,
            NLS.bind(b ? Messages.Fixture_fineBound : Messages.Fixture_gap, new Object[] {1, NLS.bind(Messages.Fixture_tooFewArguments, 2)}),
            Messages.Fixture_noText, Messages.Fixture_bareWithPlaceholder, NLS.bind(Messages.Fixture_boundSingleQuote, "x"),
            Messages.Fixture_bareDoubledQuote};
    }
}
