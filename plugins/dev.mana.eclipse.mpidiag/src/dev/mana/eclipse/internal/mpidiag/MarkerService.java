package dev.mana.eclipse.internal.mpidiag;

import dev.mana.eclipse.mpidiag.MpiMarkers;
import dev.mana.mpidiag.Language;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IResourceChangeEvent;
import org.eclipse.core.resources.IResourceChangeListener;
import org.eclipse.core.resources.IResourceDelta;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps MANA's MPI markers current: a resource change listener hands changed C/C++/Fortran files
 * (and newly opened projects) to the {@link MarkerJob}; a preference listener re-checks everything
 * or removes every marker. Started by Declarative Services with the bundle (OSGI-INF/markers.xml).
 */
public final class MarkerService implements IResourceChangeListener, IEclipsePreferences.IPreferenceChangeListener {
    private static volatile boolean active;
    private static volatile MarkerService instance;
    private MarkerJob job;

    /**
     * Checks the unsaved text of a file open in an editor (the editors' document listener calls it a moment after
     * the last keystroke); nothing while the service is not running or diagnostics are off.
     */
    public static void checkText(IFile file, String text) {
        MarkerService s = instance;
        if (s != null && MpiMarkers.enabled()) {
            s.job.checkText(file, text);
        }
    }

    /** Whether the service runs (tests wait for it after loading the bundle). */
    public static boolean active() {
        return active;
    }

    public void activate() {
        job = new MarkerJob();
        ResourcesPlugin.getWorkspace().addResourceChangeListener(this, IResourceChangeEvent.POST_CHANGE);
        MpiMarkers.preferences().addPreferenceChangeListener(this);
        if (MpiMarkers.enabled()) {
            job.checkAll();
        }
        instance = this;
        active = true;
    }

    public void deactivate() {
        active = false;
        instance = null;
        MpiMarkers.preferences().removePreferenceChangeListener(this);
        IWorkspace ws = ResourcesPlugin.getWorkspace();
        ws.removeResourceChangeListener(this);
        job.cancel();
    }

    @Override
    public void preferenceChange(IEclipsePreferences.PreferenceChangeEvent event) {
        if (MpiMarkers.PREF_ENABLED.equals(event.getKey()) || MpiMarkers.PREF_MANIFEST.equals(event.getKey())) {
            job.reloadManifest();
            if (MpiMarkers.enabled()) {
                job.checkAll();
            } else {
                job.clearAll();
            }
        }
    }

    @Override
    public void resourceChanged(IResourceChangeEvent event) {
        if (!MpiMarkers.enabled() || event.getDelta() == null) {
            return;
        }
        List<IFile> files = new ArrayList<>();
        List<IProject> opened = new ArrayList<>();
        try {
            event.getDelta().accept(delta -> {
                IResource r = delta.getResource();
                if (r.getType() == IResource.PROJECT && (delta.getFlags() & IResourceDelta.OPEN) != 0
                        && ((IProject) r).isOpen()) {
                    opened.add((IProject) r);
                    return false;
                }
                if (r.getType() != IResource.FILE) {
                    return true;
                }
                boolean content = delta.getKind() == IResourceDelta.ADDED
                        || delta.getKind() == IResourceDelta.CHANGED
                        && (delta.getFlags() & (IResourceDelta.CONTENT | IResourceDelta.REPLACED | IResourceDelta.ENCODING)) != 0;
                // marker-only deltas (our own markers) never get here as content changes
                if (content && Language.of(r.getName()).isPresent()) {
                    files.add((IFile) r);
                }
                return false;
            });
        } catch (CoreException e) {
            ILog.of(getClass()).log(e.getStatus());
        }
        opened.forEach(job::checkProject);
        if (!files.isEmpty()) {
            job.check(files);
        }
    }
}
