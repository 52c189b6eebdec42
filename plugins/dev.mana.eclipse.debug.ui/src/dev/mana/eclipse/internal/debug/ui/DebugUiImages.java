package dev.mana.eclipse.internal.debug.ui;

import org.eclipse.jface.resource.ImageDescriptor;
import org.eclipse.jface.resource.ImageRegistry;
import org.eclipse.jface.resource.JFaceResources;
import org.eclipse.jface.resource.ResourceLocator;
import org.eclipse.swt.graphics.Image;

/** The debug UI's icons (icons/, drawn by icons/make_icons.py), shared through JFace's image registry. */
public final class DebugUiImages {
    public static final String RANK = "icons/obj16/rank.png";
    public static final String STEP_INSTRUCTION_INTO = "icons/elcl16/step_instruction_into.png";
    public static final String STEP_INSTRUCTION_OVER = "icons/elcl16/step_instruction_over.png";
    public static final String DISASSEMBLY = "icons/eview16/disassembly.png";
    private static final String BUNDLE = "dev.mana.eclipse.debug.ui";

    private DebugUiImages() {}

    public static ImageDescriptor descriptor(String path) {
        return ResourceLocator.imageDescriptorFromBundle(BUNDLE, path).orElse(ImageDescriptor.getMissingImageDescriptor());
    }

    /** The image, made once and kept (the registry disposes of it with the display). UI thread. */
    public static Image image(String path) {
        ImageRegistry r = JFaceResources.getImageRegistry();
        String key = BUNDLE + "/" + path;
        Image i = r.get(key);
        if (i == null) {
            r.put(key, descriptor(path));
            i = r.get(key);
        }
        return i;
    }
}
