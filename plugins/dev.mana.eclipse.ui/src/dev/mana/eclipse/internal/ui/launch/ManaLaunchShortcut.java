package dev.mana.eclipse.internal.ui.launch;

import java.io.File;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IAdaptable;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationType;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.debug.ui.ILaunchShortcut;
import org.eclipse.jface.dialogs.ErrorDialog;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.PlatformUI;

import dev.mana.eclipse.core.DebugRanks;
import dev.mana.eclipse.core.ManaCore;

/**
 * Run As / Debug As &gt; MANA MPI Job: reuses the configuration of that program, or makes one (2 ranks,
 * checkpoints in the program's folder, every rank debugged) and runs it in that mode. In Debug mode the
 * debug delegate starts every rank in its launch pause and stops the chosen ranks (the configuration's
 * Debug tab; every rank for a new one) at {@code main} under gdb.
 */
public final class ManaLaunchShortcut implements ILaunchShortcut {

    @Override
    public void launch(ISelection selection, String mode) {
        if (selection instanceof IStructuredSelection s && s.getFirstElement() instanceof IAdaptable a) {
            IFile f = a.getAdapter(IFile.class);
            if (f != null && f.getLocation() != null) {
                launch(f.getLocation().toFile(), mode);
            }
        }
    }

    @Override
    public void launch(IEditorPart editor, String mode) {
        IFile f = editor.getEditorInput().getAdapter(IFile.class);
        if (f != null && f.getLocation() != null) {
            launch(f.getLocation().toFile(), mode);
        }
    }

    public void launch(File program, String mode) {
        try {
            DebugUITools.launch(findOrCreate(program), mode);
        } catch (CoreException e) {
            ErrorDialog.openError(PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell(),
                Messages.ManaLaunchShortcut_title, NLS.bind(Messages.ManaLaunchShortcut_cannotCreate, program),
                e.getStatus());

        }
    }

    /** The configuration that runs this program, made and saved if there is none. */
    public static ILaunchConfiguration findOrCreate(File program) throws CoreException {
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationType type = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE);
        for (ILaunchConfiguration c : lm.getLaunchConfigurations(type)) {
            if (program.getPath().equals(c.getAttribute(ManaCore.ATTR_PROGRAM, ""))) {
                return c;
            }
        }
        ILaunchConfigurationWorkingCopy wc = type.newInstance(null,
            lm.generateLaunchConfigurationName(program.getName()));
        wc.setAttribute(ManaCore.ATTR_PROGRAM, program.getPath());
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, program.getParent());
        wc.setAttribute(ManaCore.ATTR_RANKS, ManaCore.DEFAULT_RANKS);
        wc.setAttribute(ManaCore.ATTR_DEBUG_RANKS, DebugRanks.ALL); // Debug As: stop at main in every rank
        wc.setMappedResources(null);
        return wc.doSave();
    }
}
