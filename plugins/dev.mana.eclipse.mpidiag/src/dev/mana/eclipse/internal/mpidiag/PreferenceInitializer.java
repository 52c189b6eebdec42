package dev.mana.eclipse.internal.mpidiag;

import dev.mana.eclipse.mpidiag.MpiMarkers;
import org.eclipse.core.runtime.preferences.AbstractPreferenceInitializer;
import org.eclipse.core.runtime.preferences.DefaultScope;

/** Markers on by default; the manifest of the runtime in use by default. */
public final class PreferenceInitializer extends AbstractPreferenceInitializer {
    @Override
    public void initializeDefaultPreferences() {
        var node = DefaultScope.INSTANCE.getNode(MpiMarkers.PLUGIN_ID);
        node.putBoolean(MpiMarkers.PREF_ENABLED, true);
        node.put(MpiMarkers.PREF_MANIFEST, "");
        node.putBoolean(MpiMarkers.PREF_PREFLIGHT, true);
    }
}
