package dev.mana.eclipse.internal.ui.launch;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;

import org.eclipse.core.expressions.PropertyTester;
import org.eclipse.core.resources.IFile;

/** {@code dev.mana.eclipse.ui.isExecutable}: an ELF executable on disk (what mpicc makes). */
public final class ExecutablePropertyTester extends PropertyTester {
    @Override
    public boolean test(Object receiver, String property, Object[] args, Object expectedValue) {
        if (!(receiver instanceof IFile f) || f.getLocation() == null) {
            return false;
        }
        return isElfExecutable(f.getLocation().toFile());
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
