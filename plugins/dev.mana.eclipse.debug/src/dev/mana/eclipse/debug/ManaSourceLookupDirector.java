package dev.mana.eclipse.debug;

import org.eclipse.debug.core.sourcelookup.AbstractSourceLookupDirector;
import org.eclipse.debug.core.sourcelookup.ISourceLookupParticipant;

/**
 * The source lookup of MANA debug launches (set on the launch by {@link ManaDebugLaunchDelegate}, named in the
 * configuration by the Debug tab for the Source tab: the launch type, in the core bundle, does not name it, so
 * Run mode works where the debugger is not installed): the containers of the configuration's Source tab (by default the
 * program's folder and the workspace, from {@link ManaSourcePathComputer}), path mappings among them
 * ({@link PathMappingSourceContainer}: sources built elsewhere), searched by {@link ManaSourceLookupParticipant}.
 * A frame whose source is found nowhere opens the platform's "source not found" editor, whose
 * <b>Edit Source Lookup Path...</b> leads to these containers.
 */
public final class ManaSourceLookupDirector extends AbstractSourceLookupDirector {
    /** The id of its {@code org.eclipse.debug.core.sourceLocators} extension (the launch type names it). */
    public static final String ID = ManaDebugModel.ID + ".sourceLocator";

    /** The configuration's computer, else the MANA default path (the program's folder, the workspace). */
    @Override
    public org.eclipse.debug.core.sourcelookup.ISourcePathComputer getSourcePathComputer() {
        var c = super.getSourcePathComputer();
        return c != null ? c : org.eclipse.debug.core.DebugPlugin.getDefault().getLaunchManager()
                .getSourcePathComputer(ManaSourcePathComputer.ID);
    }

    /** The director of a debug launch of {@code cfg}: its Source tab's path, or the default one. */
    static ManaSourceLookupDirector of(org.eclipse.debug.core.ILaunchConfiguration cfg)
            throws org.eclipse.core.runtime.CoreException {
        ManaSourceLookupDirector d = new ManaSourceLookupDirector();
        String memento = cfg.getAttribute(org.eclipse.debug.core.ILaunchConfiguration.ATTR_SOURCE_LOCATOR_MEMENTO,
                (String) null);
        if (memento == null) {
            d.initializeDefaults(cfg);
        } else {
            d.initializeFromMemento(memento, cfg);
        }
        return d;
    }

    @Override
    public void initializeParticipants() {
        addParticipants(new ISourceLookupParticipant[] {new ManaSourceLookupParticipant()});
    }
}
