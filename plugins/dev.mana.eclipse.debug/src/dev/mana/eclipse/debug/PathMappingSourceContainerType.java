package dev.mana.eclipse.debug;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.sourcelookup.ISourceContainer;
import org.eclipse.debug.core.sourcelookup.containers.AbstractSourceContainerTypeDelegate;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** Saves a {@link PathMappingSourceContainer} in a launch configuration: {@code <pathMapping from=".." to=".."/>}. */
public final class PathMappingSourceContainerType extends AbstractSourceContainerTypeDelegate {
    private static final String ELEMENT = "pathMapping";

    @Override
    public ISourceContainer createSourceContainer(String memento) throws CoreException {
        Element e = parseDocument(memento);
        if (!ELEMENT.equals(e.getNodeName()) || e.getAttribute("from").isBlank() || e.getAttribute("to").isBlank()) {
            abort("not a MANA path mapping: " + memento, null);
        }
        return new PathMappingSourceContainer(e.getAttribute("from"), e.getAttribute("to"));
    }

    @Override
    public String getMemento(ISourceContainer container) throws CoreException {
        PathMappingSourceContainer p = (PathMappingSourceContainer) container;
        Document d = newDocument();
        Element e = d.createElement(ELEMENT);
        e.setAttribute("from", p.from());
        e.setAttribute("to", p.to());
        d.appendChild(e);
        return serializeDocument(d);
    }
}
