package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

import org.junit.jupiter.api.Test;

import dev.mana.eclipse.internal.ui.Messages;

/** Every NLS message field of the UI plug-in has its text in messages.properties (NLS fills it at load). */
class MessagesTest {

    @Test
    void everyMessageHasItsText() throws Exception {
        int n = 0;
        for (Field f : Messages.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                String v = (String) f.get(null);
                assertNotNull(v, f.getName());
                // what NLS puts in a field whose key is missing from the file
                assertFalse(v.startsWith("NLS missing message"), f.getName() + ": " + v);
                n++;
            }
        }
        assertTrue(n > 50, n + " messages");
    }
}
