package dev.mana.eclipse.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.ILaunchConfiguration;

/**
 * How a job writes its checkpoint images: incremental, forked, compressed. Set at launch only; a restarted
 * job keeps what it was launched with (the runtime records it), so these become mana_launch flags and never
 * mana_restart ones.
 *
 * @param incremental {@code --incremental}: images hold the pages written since the previous one
 * @param forked {@code --forked}: a copy-on-write writer process writes the image while the program runs
 * @param compression {@code --compress=LEVEL}, or none
 */
public record CheckpointImages(boolean incremental, boolean forked, ImageCompression compression) {

    /** Every option off: the command line of a configuration that predates them. */
    public static final CheckpointImages DEFAULT = new CheckpointImages(false, false, ImageCompression.OFF);

    public CheckpointImages {
        Objects.requireNonNull(compression, "compression");
    }

    /** Reads the three attributes; an absent one is off. */
    public static CheckpointImages from(ILaunchConfiguration cfg) throws CoreException {
        return new CheckpointImages(
            cfg.getAttribute(ManaCore.ATTR_INCREMENTAL, false),
            cfg.getAttribute(ManaCore.ATTR_FORKED, false),
            ImageCompression.fromValue(cfg.getAttribute(ManaCore.ATTR_COMPRESS, ImageCompression.OFF.value())));
    }

    /**
     * Both incremental and forked: the runtime writes incremental images with the program stopped and warns,
     * so forked has no effect. Not an error: the flags are still passed as chosen, the runtime decides.
     */
    public boolean forkedIgnored() {
        return incremental && forked;
    }

    /** The mana_launch flags, in the order its usage lists them; none when every option is off. */
    public List<String> launchFlags() {
        List<String> flags = new ArrayList<>(3);
        if (incremental) {
            flags.add("--incremental");
        }
        if (forked) {
            flags.add("--forked");
        }
        if (compression != ImageCompression.OFF) {
            flags.add("--compress=" + compression.value());
        }
        return flags;
    }
}
