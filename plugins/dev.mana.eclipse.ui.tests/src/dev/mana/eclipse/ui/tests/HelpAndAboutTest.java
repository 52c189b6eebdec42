package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.core.runtime.Platform;
import org.eclipse.help.HelpSystem;
import org.eclipse.help.IToc;
import org.eclipse.help.ITopic;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;

/**
 * Help > Help Contents has the MANA book with its four parts (launch, images, and the pages the debugger and
 * the diagnostics link in at the book's anchors), each page in its bundle; every MANA bundle that ships has an
 * about.html.
 */
class HelpAndAboutTest {
    @Test
    void theBookHasLaunchImagesDebuggingAndDiagnostics() throws Exception {
        IToc book = null;
        for (IToc t : HelpSystem.getTocs()) {
            if (t.getLabel().equals("MANA Checkpoint-Restart for MPI")) {
                book = t;
            }
        }
        assertNotNull(book, "the MANA book in the help contents");
        List<String> labels = new ArrayList<>();
        for (ITopic topic : book.getTopics()) {
            labels.add(topic.getLabel());
            collect(topic, labels);
            assertPage(topic.getHref());
        }
        assertTrue(labels.containsAll(List.of("Running MPI programs with MANA", "Checkpoint images",
                "Debugging MPI ranks", "MPI diagnostics")), labels.toString());
    }

    private static void collect(ITopic t, List<String> labels) throws Exception {
        for (ITopic sub : t.getSubtopics()) {
            labels.add(sub.getLabel());
            assertPage(sub.getHref());
            collect(sub, labels);
        }
    }

    /** {@code /bundle/path.html}: the page is in the bundle and is a page with a title. */
    private static void assertPage(String href) throws Exception {
        if (href == null) {
            return;
        }
        String[] parts = href.replaceFirst("^/", "").split("/", 2);
        Bundle b = Platform.getBundle(parts[0]);
        assertNotNull(b, href);
        URL page = b.getEntry(parts[1].replaceAll("#.*", ""));
        assertNotNull(page, "no page " + href);
        try (InputStream in = page.openStream()) {
            String html = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(html.contains("<title>") && html.contains("<h1>"), href);
        }
    }

    @Test
    void everyShippedBundleHasAnAboutPage() {
        List<String> missing = new ArrayList<>();
        for (String id : List.of("dev.mana.eclipse.core", "dev.mana.eclipse.ui", "dev.mana.eclipse.debug",
                "dev.mana.eclipse.debug.ui", "dev.mana.eclipse.mpidiag")) {
            Bundle b = Platform.getBundle(id);
            assertNotNull(b, id);
            if (b.getEntry("about.html") == null) {
                missing.add(id);
            }
        }
        assertEquals(List.of(), missing, "bundles without about.html");
    }
}
