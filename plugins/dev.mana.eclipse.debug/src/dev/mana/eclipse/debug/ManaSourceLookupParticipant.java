package dev.mana.eclipse.debug;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.sourcelookup.AbstractSourceLookupParticipant;
import org.eclipse.debug.core.sourcelookup.ISourceContainer;
import org.eclipse.debug.core.sourcelookup.containers.LocalFileStorage;

/**
 * Finds a frame's source from the path in its debug information (absolute where the compiler knew it), in this
 * order: the containers with that path (a path mapping rewrites its prefix), the path itself on this machine
 * (the workspace file there, else the file), then the file's name in the containers (a folder searched with its
 * subfolders). The first found is the one shown.
 */
final class ManaSourceLookupParticipant extends AbstractSourceLookupParticipant {

    @Override
    public String getSourceName(Object object) {
        return object instanceof RankStackFrame f ? f.getSourcePath() : null;
    }

    @Override
    public Object[] findSourceElements(Object object) throws CoreException {
        String path = getSourceName(object);
        if (path == null) {
            return EMPTY;
        }
        CoreException failed = null;
        try {
            Object[] found = super.findSourceElements(object);
            if (found.length > 0) {
                return found;
            }
        } catch (CoreException e) {
            failed = e; // a container that cannot be searched (a folder gone): the other ways may still find it
        }
        File file = new File(path);
        if (file.isAbsolute() && file.isFile()) {
            return new Object[] {workspaceFileOr(file)};
        }
        List<Object> byName = new ArrayList<>();
        for (ISourceContainer c : getSourceContainers()) {
            Object[] named;
            try {
                named = c.findSourceElements(file.getName());
            } catch (CoreException e) {
                failed = failed == null ? e : failed;
                continue;
            }
            for (Object o : named) {
                byName.add(o);
                if (!isFindDuplicates()) {
                    return byName.toArray();
                }
            }
        }
        if (byName.isEmpty() && failed != null) {
            throw failed;
        }
        return byName.toArray();
    }

    /** The workspace file at that location (its breakpoints and editor are the workspace's), else the file. */
    static Object workspaceFileOr(File file) {
        for (IFile w : ResourcesPlugin.getWorkspace().getRoot().findFilesForLocationURI(file.toURI())) {
            if (w.exists()) {
                return w;
            }
        }
        return new LocalFileStorage(file);
    }
}
