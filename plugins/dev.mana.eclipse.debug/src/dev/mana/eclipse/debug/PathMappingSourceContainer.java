package dev.mana.eclipse.debug;

import java.io.File;
import java.util.Objects;
import org.eclipse.debug.core.sourcelookup.ISourceContainerType;
import org.eclipse.debug.core.sourcelookup.containers.AbstractSourceContainer;

/**
 * A path mapping: sources compiled under {@code from} (a build machine's, a container's folder) are looked for
 * under {@code to} on this machine. {@code /build/app/src/solver.c} with {@code /build/app -> /home/me/app}
 * is {@code /home/me/app/src/solver.c}. Whole path segments only: {@code /build/app2} is not under
 * {@code /build/app}.
 */
public final class PathMappingSourceContainer extends AbstractSourceContainer {
    /** The id of its source container type. */
    public static final String TYPE_ID = ManaDebugModel.ID + ".pathMapping";

    private final String from;
    private final String to;

    public PathMappingSourceContainer(String from, String to) {
        this.from = strip(from);
        this.to = strip(to);
    }

    private static String strip(String p) {
        String s = p.trim();
        while (s.length() > 1 && s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }

    public String from() { return from; }
    public String to() { return to; }

    /** {@code name} with the {@code from} prefix replaced by {@code to}, or null when it is not under {@code from}. */
    public String map(String name) {
        if (name.equals(from)) {
            return to;
        }
        String prefix = from.endsWith("/") ? from : from + "/";
        return name.startsWith(prefix) ? (to.endsWith("/") ? to : to + "/") + name.substring(prefix.length()) : null;
    }

    @Override
    public Object[] findSourceElements(String name) {
        String mapped = map(name);
        if (mapped == null) {
            return EMPTY;
        }
        File f = new File(mapped);
        return f.isFile() ? new Object[] {ManaSourceLookupParticipant.workspaceFileOr(f)} : EMPTY;
    }

    @Override
    public String getName() {
        return from + " \u2192 " + to;
    }

    @Override
    public ISourceContainerType getType() {
        return getSourceContainerType(TYPE_ID);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathMappingSourceContainer p && p.from.equals(from) && p.to.equals(to);
    }

    @Override
    public int hashCode() {
        return Objects.hash(from, to);
    }
}
