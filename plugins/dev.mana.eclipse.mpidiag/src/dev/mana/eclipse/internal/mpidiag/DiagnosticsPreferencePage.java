package dev.mana.eclipse.internal.mpidiag;

import dev.mana.eclipse.mpidiag.MpiMarkers;
import org.eclipse.jface.preference.BooleanFieldEditor;
import org.eclipse.jface.preference.FieldEditorPreferencePage;
import org.eclipse.jface.preference.FileFieldEditor;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPreferencePage;
import org.eclipse.ui.preferences.ScopedPreferenceStore;
import org.eclipse.core.runtime.preferences.InstanceScope;

/** Preferences > MANA > MPI Diagnostics: markers on/off, and another coverage manifest. */
public final class DiagnosticsPreferencePage extends FieldEditorPreferencePage implements IWorkbenchPreferencePage {
    public DiagnosticsPreferencePage() {
        super(GRID);
        setPreferenceStore(new ScopedPreferenceStore(InstanceScope.INSTANCE, MpiMarkers.PLUGIN_ID));
        setDescription(Messages.DiagnosticsPreferencePage_description);
    }

    @Override
    protected void createFieldEditors() {
        addField(new BooleanFieldEditor(MpiMarkers.PREF_ENABLED, Messages.DiagnosticsPreferencePage_enabled,
                getFieldEditorParent()));
        addField(new BooleanFieldEditor(MpiMarkers.PREF_PREFLIGHT,
                Messages.DiagnosticsPreferencePage_preflight, getFieldEditorParent()));
        FileFieldEditor manifest = new FileFieldEditor(MpiMarkers.PREF_MANIFEST,
                Messages.DiagnosticsPreferencePage_manifest, true, getFieldEditorParent());

        manifest.setFileExtensions(new String[] {"*.json"});
        manifest.setEmptyStringAllowed(true);
        addField(manifest);
    }

    @Override
    public void init(IWorkbench workbench) {
    }
}
