package dev.mana.eclipse.internal.ui.launch;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Group;
import org.eclipse.swt.widgets.Label;

import dev.mana.eclipse.core.CheckpointImages;
import dev.mana.eclipse.core.ImageCompression;
import dev.mana.eclipse.core.ManaCore;

/**
 * The Checkpoints tab's "Checkpoint images" group: incremental, forked, compression. Its own class so the tab
 * keeps to directories and restart; the attributes and their defaults are the core's ({@link CheckpointImages}).
 */
final class ImageOptionsGroup {
    final Button incremental;
    final Button forked;
    /** One item per {@link ImageCompression}, in its order. */
    final Combo compression;

    ImageOptionsGroup(Composite parent, Runnable changed) {
        // one row (the details are in the tooltips): the tab already fills the launch dialog's default height
        Group g = TabSupport.group(parent, Messages.ImageOptionsGroup_group, 4);
        incremental = check(g, Messages.ImageOptionsGroup_incremental, Messages.ImageOptionsGroup_incrementalTip, changed);
        forked = check(g, Messages.ImageOptionsGroup_forked, Messages.ImageOptionsGroup_forkedTip, changed);
        Label l = new Label(g, SWT.NONE);
        l.setText(Messages.ImageOptionsGroup_compression);
        l.setToolTipText(Messages.ImageOptionsGroup_compressionTip);
        GridData gap = new GridData();
        gap.horizontalIndent = 12; // apart from the check boxes: it labels the combo, not them
        l.setLayoutData(gap);
        compression = new Combo(g, SWT.READ_ONLY);
        compression.setItems(Messages.ImageOptionsGroup_off, Messages.ImageOptionsGroup_fast,
            Messages.ImageOptionsGroup_strong);
        compression.setToolTipText(Messages.ImageOptionsGroup_compressionTip);
        compression.addModifyListener(e -> changed.run());
        Label note = new Label(g, SWT.WRAP);
        note.setText(Messages.ImageOptionsGroup_launchOnly);
        GridData span = new GridData(SWT.FILL, SWT.TOP, true, false);
        span.horizontalSpan = 4;
        note.setLayoutData(span);
    }

    private static Button check(Group g, String text, String tip, Runnable changed) {
        Button b = new Button(g, SWT.CHECK);
        b.setText(text);
        b.setToolTipText(tip);
        b.addListener(SWT.Selection, e -> changed.run());
        return b;
    }

    void initializeFrom(ILaunchConfiguration cfg) throws CoreException {
        CheckpointImages images = CheckpointImages.from(cfg);
        incremental.setSelection(images.incremental());
        forked.setSelection(images.forked());
        compression.select(images.compression().ordinal());
    }

    /** Writes the attributes; an option that is off is removed, so an untouched configuration stays as it was. */
    void performApply(ILaunchConfigurationWorkingCopy wc) {
        TabSupport.put(wc, ManaCore.ATTR_INCREMENTAL, incremental.getSelection(), false);
        TabSupport.put(wc, ManaCore.ATTR_FORKED, forked.getSelection(), false);
        TabSupport.put(wc, ManaCore.ATTR_COMPRESS, selected().value(), ImageCompression.OFF.value());
    }

    /** The options as chosen now. */
    CheckpointImages images() {
        return new CheckpointImages(incremental.getSelection(), forked.getSelection(), selected());
    }

    private ImageCompression selected() {
        return ImageCompression.values()[Math.max(0, compression.getSelectionIndex())];
    }

    /** The warning the tab shows for these options, or null: forked has no effect with incremental. */
    String warning() {
        return images().forkedIgnored() ? Messages.ImageOptionsGroup_forkedIgnored : null;
    }

    /**
     * A restart takes the options its images were written with (mana_restart has no such flags), so they are
     * shown but cannot be changed while the configuration restarts.
     */
    void setEnabled(boolean enabled) {
        incremental.setEnabled(enabled);
        forked.setEnabled(enabled);
        compression.setEnabled(enabled);
    }
}
