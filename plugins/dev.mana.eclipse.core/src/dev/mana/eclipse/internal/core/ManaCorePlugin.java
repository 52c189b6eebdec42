package dev.mana.eclipse.internal.core;

import java.io.File;

import org.eclipse.core.runtime.Plugin;
import org.osgi.framework.BundleContext;

/** Bundle activator of dev.mana.eclipse.core. */
public final class ManaCorePlugin extends Plugin {
    public static final String PLUGIN_ID = "dev.mana.eclipse.core";
    private static ManaCorePlugin plugin;

    @Override
    public void start(BundleContext context) throws Exception {
        super.start(context);
        plugin = this;
    }

    @Override
    public void stop(BundleContext context) throws Exception {
        plugin = null;
        super.stop(context);
    }

    public static ManaCorePlugin getDefault() {
        return plugin;
    }

    /** This plug-in's state folder in the workspace (status files of hosted coordinators). */
    public static File stateDir() {
        File dir;
        if (plugin != null) {
            dir = plugin.getStateLocation().toFile();
        } else {
            dir = new File(System.getProperty("java.io.tmpdir"), "mana-eclipse");
        }
        dir.mkdirs();
        return dir;
    }
}
