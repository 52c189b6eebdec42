package dev.mana.eclipse.internal.ui;

import org.eclipse.jface.resource.ImageDescriptor;
import org.eclipse.jface.resource.ImageRegistry;
import org.eclipse.swt.graphics.Image;
import org.eclipse.ui.plugin.AbstractUIPlugin;
import org.osgi.framework.BundleContext;

/** Activator of dev.mana.eclipse.ui: images and the plug-in's identity. */
public final class ManaUIPlugin extends AbstractUIPlugin {
    public static final String PLUGIN_ID = "dev.mana.eclipse.ui";

    public static final String IMG_JOB = "icons/obj16/mana_job.png";
    public static final String IMG_CHECKPOINT = "icons/etool16/checkpoint.png";
    public static final String IMG_CHECKPOINT_STOP = "icons/etool16/checkpoint_stop.png";
    public static final String IMG_RESTART = "icons/etool16/restart.png";
    public static final String IMG_JOB_VIEW = "icons/eview16/job_view.png";
    public static final String IMG_RANK_RUNNING = "icons/obj16/rank_running.png";
    public static final String IMG_RANK_CHECKPOINTING = "icons/obj16/rank_checkpointing.png";
    public static final String IMG_RANK_RESTARTING = "icons/obj16/rank_restarting.png";
    public static final String IMG_RANK_EXITED = "icons/obj16/rank_exited.png";
    public static final String IMG_RESTART_BANNER = "icons/wizban/restart_wiz.png";
    public static final String IMG_IMAGE = "icons/obj16/image.png";
    public static final String IMG_CHECKPOINT_DIR = "icons/eview16/checkpoint_dir.png";
    public static final String IMG_REFRESH = "icons/elcl16/refresh.png";
    public static final String IMG_VERIFY = "icons/elcl16/verify.png";
    public static final String IMG_COMPARE = "icons/elcl16/compare.png";

    private static ManaUIPlugin plugin;

    @Override
    public void start(BundleContext context) throws Exception {
        super.start(context);
        plugin = this;
        dev.mana.eclipse.internal.ui.actions.JobEnablement.install();
    }

    @Override
    public void stop(BundleContext context) throws Exception {
        dev.mana.eclipse.internal.ui.actions.JobEnablement.uninstall();
        plugin = null;
        super.stop(context);
    }

    public static ManaUIPlugin getDefault() {
        return plugin;
    }

    @Override
    protected void initializeImageRegistry(ImageRegistry reg) {
        for (String k : new String[] {IMG_JOB, IMG_CHECKPOINT, IMG_CHECKPOINT_STOP, IMG_RESTART, IMG_JOB_VIEW,
            IMG_RANK_RUNNING, IMG_RANK_CHECKPOINTING, IMG_RANK_RESTARTING, IMG_RANK_EXITED, IMG_RESTART_BANNER,
            IMG_IMAGE, IMG_CHECKPOINT_DIR, IMG_REFRESH, IMG_VERIFY, IMG_COMPARE}) {
            reg.put(k, imageDescriptorFromPlugin(PLUGIN_ID, k));
        }
    }

    public static Image image(String key) {
        return getDefault().getImageRegistry().get(key);
    }

    public static ImageDescriptor descriptor(String key) {
        return getDefault().getImageRegistry().getDescriptor(key);
    }
}
