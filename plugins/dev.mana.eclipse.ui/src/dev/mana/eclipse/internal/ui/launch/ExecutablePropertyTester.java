package dev.mana.eclipse.internal.ui.launch;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.expressions.PropertyTester;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.services.IEvaluationService;

/**
 * {@code dev.mana.eclipse.ui.isExecutable}: an ELF executable on disk (what mpicc makes). Menus ask this on
 * the UI thread, so it never reads the file there: the answer comes from a cache keyed by the file and its
 * workspace modification stamp (both in memory). A file not seen yet is read (its mode and first four
 * bytes) by a background job, which then has the menus' enablement evaluated again; until then the answer
 * is no. A file on a hung file system holds a worker thread, never the UI thread.
 */
public final class ExecutablePropertyTester extends PropertyTester {
    public static final String PROPERTY = "dev.mana.eclipse.ui.isExecutable";
    /** Family of the reading jobs (tests). */
    public static final Object FAMILY = ExecutablePropertyTester.class;

    /** location -> (modification stamp, answer); a stamp of a file being read maps to null. */
    private static final Map<IPath, Known> KNOWN = new ConcurrentHashMap<>();

    private record Known(long stamp, Boolean executable) {
    }

    @Override
    public boolean test(Object receiver, String property, Object[] args, Object expectedValue) {
        if (!(receiver instanceof IFile f) || f.getLocation() == null) {
            return false;
        }
        IPath location = f.getLocation();
        long stamp = f.getModificationStamp();
        Known k = KNOWN.get(location);
        if (k != null && k.stamp() == stamp) {
            return Boolean.TRUE.equals(k.executable());
        }
        KNOWN.put(location, new Known(stamp, null));
        Job read = new Job("Reading " + location.lastSegment()) {
            @Override
            protected org.eclipse.core.runtime.IStatus run(IProgressMonitor monitor) {
                boolean exe = isElfExecutable(location.toFile());
                KNOWN.put(location, new Known(stamp, exe));
                if (exe && PlatformUI.isWorkbenchRunning()) {
                    IEvaluationService es = PlatformUI.getWorkbench().getService(IEvaluationService.class);
                    if (es != null) {
                        PlatformUI.getWorkbench().getDisplay().asyncExec(() -> es.requestEvaluation(PROPERTY));
                    }
                }
                return Status.OK_STATUS;
            }

            @Override
            public boolean belongsTo(Object family) {
                return family == FAMILY;
            }
        };
        read.setSystem(true);
        read.schedule();
        return false;
    }

    /** Whether the cache knows {@code f} (at its current stamp) as an executable; null: not read yet. */
    public static Boolean known(IFile f) {
        Known k = f.getLocation() == null ? null : KNOWN.get(f.getLocation());
        return k == null || k.stamp() != f.getModificationStamp() ? null : k.executable();
    }

    static boolean isElfExecutable(File f) {
        if (!f.isFile() || !f.canExecute()) {
            return false;
        }
        try (InputStream in = new FileInputStream(f)) {
            byte[] m = in.readNBytes(4);
            return m.length == 4 && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' && m[3] == 'F';
        } catch (IOException e) {
            return false;
        }
    }
}
