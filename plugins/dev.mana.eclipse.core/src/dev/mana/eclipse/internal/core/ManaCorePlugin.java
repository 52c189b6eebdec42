package dev.mana.eclipse.internal.core;

import java.io.File;

import org.eclipse.core.runtime.Plugin;
import org.osgi.framework.BundleContext;

/** Bundle activator of dev.mana.eclipse.core. */
public final class ManaCorePlugin extends Plugin {
    public static final String PLUGIN_ID = "dev.mana.eclipse.core";
    private static ManaCorePlugin plugin;

    private final org.eclipse.debug.core.ILaunchesListener launches = new org.eclipse.debug.core.ILaunchesListener() {
        @Override
        public void launchesRemoved(org.eclipse.debug.core.ILaunch[] removed) {
            for (org.eclipse.debug.core.ILaunch l : removed) {
                dev.mana.eclipse.core.IManaJob j = dev.mana.eclipse.core.ManaJobs.forLaunch(l);
                if (j != null) {
                    JobRegistry.remove(j);
                }
            }
        }

        @Override
        public void launchesAdded(org.eclipse.debug.core.ILaunch[] added) {
            // jobs are added by the delegate
        }

        @Override
        public void launchesChanged(org.eclipse.debug.core.ILaunch[] changed) {
            // nothing
        }
    };

    @Override
    public void start(BundleContext context) throws Exception {
        super.start(context);
        plugin = this;
        // Remove in the Debug view forgets the job too
        org.eclipse.debug.core.DebugPlugin.getDefault().getLaunchManager().addLaunchListener(launches);
    }

    @Override
    public void stop(BundleContext context) throws Exception {
        org.eclipse.debug.core.DebugPlugin d = org.eclipse.debug.core.DebugPlugin.getDefault();
        if (d != null) {
            d.getLaunchManager().removeLaunchListener(launches);
        }
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
