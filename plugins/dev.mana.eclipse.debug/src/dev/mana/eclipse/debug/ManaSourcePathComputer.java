package dev.mana.eclipse.debug;

import dev.mana.eclipse.core.ManaCore;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.sourcelookup.ISourceContainer;
import org.eclipse.debug.core.sourcelookup.ISourcePathComputerDelegate;
import org.eclipse.debug.core.sourcelookup.containers.DirectorySourceContainer;
import org.eclipse.debug.core.sourcelookup.containers.WorkspaceSourceContainer;

/**
 * The default source lookup path of a MANA MPI Job configuration: the program's folder (with its subfolders),
 * then the workspace. Nothing is read here: folders are searched when a frame's source is looked for.
 */
public final class ManaSourcePathComputer implements ISourcePathComputerDelegate {
    public static final String ID = ManaDebugModel.ID + ".sourcePathComputer";

    @Override
    public ISourceContainer[] computeSourceContainers(ILaunchConfiguration cfg, IProgressMonitor monitor)
            throws CoreException {
        List<ISourceContainer> out = new ArrayList<>();
        String program = cfg.getAttribute(ManaCore.ATTR_PROGRAM, "");
        if (!program.isBlank() && new File(program).isAbsolute() && new File(program).getParentFile() != null) {
            out.add(new DirectorySourceContainer(new File(program).getParentFile(), true));
        }
        out.add(new WorkspaceSourceContainer());
        return out.toArray(new ISourceContainer[0]);
    }
}
