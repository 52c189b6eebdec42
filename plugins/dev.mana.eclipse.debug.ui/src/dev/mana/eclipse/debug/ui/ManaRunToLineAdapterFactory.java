package dev.mana.eclipse.debug.ui;

import org.eclipse.core.runtime.IAdapterFactory;
import org.eclipse.debug.ui.actions.IRunToLineTarget;
import org.eclipse.ui.texteditor.ITextEditor;

/** Gives text editors their Run to Line target for MANA ranks (the platform asks the editor for one). */
public final class ManaRunToLineAdapterFactory implements IAdapterFactory {
    private static final ManaRunToLineTarget TARGET = new ManaRunToLineTarget();

    @Override
    public <T> T getAdapter(Object adaptable, Class<T> type) {
        return adaptable instanceof ITextEditor && type == IRunToLineTarget.class ? type.cast(TARGET) : null;
    }

    @Override
    public Class<?>[] getAdapterList() {
        return new Class<?>[] {IRunToLineTarget.class};
    }
}
