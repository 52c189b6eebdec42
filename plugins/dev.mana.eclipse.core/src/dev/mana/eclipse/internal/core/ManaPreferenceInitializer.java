package dev.mana.eclipse.internal.core;

import org.eclipse.core.runtime.preferences.AbstractPreferenceInitializer;
import org.eclipse.core.runtime.preferences.DefaultScope;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;

import dev.mana.eclipse.core.ManaCore;

/** Defaults: the bundled runtime, job view refreshed twice a second. */
public final class ManaPreferenceInitializer extends AbstractPreferenceInitializer {
    @Override
    public void initializeDefaultPreferences() {
        IEclipsePreferences d = DefaultScope.INSTANCE.getNode(ManaCore.PLUGIN_ID);
        d.put(ManaCore.PREF_RUNTIME_LOCATION, "");
        d.putLong(ManaCore.PREF_POLL_MILLIS, 500);
    }
}
