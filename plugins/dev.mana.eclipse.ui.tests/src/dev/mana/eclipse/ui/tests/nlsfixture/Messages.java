package dev.mana.eclipse.ui.tests.nlsfixture;

import org.eclipse.osgi.util.NLS;

/** A message class with one mistake of each kind {@code NlsCheck} looks for (MessagesTest checks it finds them). */
public final class Messages extends NLS {
    private static final String BUNDLE_NAME = "dev.mana.eclipse.ui.tests.nlsfixture.messages";

    public static String Fixture_fine;
    public static String Fixture_fineBound;
    public static String Fixture_noText;
    public static String Fixture_gap;
    public static String Fixture_tooFewArguments;
    public static String Fixture_bareWithPlaceholder;
    public static String Fixture_boundSingleQuote;
    public static String Fixture_bareDoubledQuote;
    public static String Fixture_unused;

    static {
        NLS.initializeMessages(BUNDLE_NAME, Messages.class);
    }

    private Messages() {}
}
