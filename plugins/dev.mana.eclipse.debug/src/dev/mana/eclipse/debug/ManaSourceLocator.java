package dev.mana.eclipse.debug;

import java.io.File;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.debug.core.model.ISourceLocator;
import org.eclipse.debug.core.model.IStackFrame;

/**
 * Finds the source of a frame from the absolute path in its debug information: the workspace file at
 * that location when there is one (so its breakpoints and editor are the workspace's), else the file
 * itself ({@link File}; the debug UI opens it from the file system).
 */
public final class ManaSourceLocator implements ISourceLocator {
    @Override
    public Object getSourceElement(IStackFrame stackFrame) {
        if (!(stackFrame instanceof RankStackFrame f) || f.getSourcePath() == null) {
            return null;
        }
        File file = new File(f.getSourcePath());
        if (!file.isAbsolute() || !file.isFile()) {
            return null;
        }
        for (IFile w : ResourcesPlugin.getWorkspace().getRoot().findFilesForLocationURI(file.toURI())) {
            if (w.exists()) {
                return w;
            }
        }
        return file;
    }
}
