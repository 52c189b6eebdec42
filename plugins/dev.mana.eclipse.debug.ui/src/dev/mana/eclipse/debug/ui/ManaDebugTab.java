package dev.mana.eclipse.debug.ui;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.debug.ManaDebugLaunchDelegate;
import dev.mana.eclipse.internal.debug.ui.Messages;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.ui.AbstractLaunchConfigurationTab;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Spinner;
import org.eclipse.swt.widgets.Text;

/**
 * The Debug tab of "MANA MPI Job" configurations (shown in Debug mode): the restart pause level of the
 * debugged ranks (restarts; a launch stops them at main) and which ranks to debug.
 */
public final class ManaDebugTab extends AbstractLaunchConfigurationTab {
    Spinner level;
    Text ranks;
    private int jobRanks = ManaCore.DEFAULT_RANKS;

    @Override
    public void createControl(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        c.setLayout(new GridLayout(2, false));
        setControl(c);
        Label intro = new Label(c, SWT.WRAP);
        intro.setText(Messages.ManaDebugTab_intro);
        GridData span = new GridData(SWT.FILL, SWT.TOP, true, false, 2, 1);
        span.widthHint = 420;
        intro.setLayoutData(span);
        new Label(c, SWT.NONE).setText(Messages.ManaDebugTab_pauseLevel);
        level = new Spinner(c, SWT.BORDER);
        level.setMinimum(2);
        level.setMaximum(4);
        level.addModifyListener(e -> changed());
        new Label(c, SWT.NONE).setText(NLS.bind(Messages.ManaDebugTab_ranks, ManaDebugLaunchDelegate.MAX_DEBUGGED_RANKS));
        ranks = new Text(c, SWT.BORDER);
        ranks.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        ranks.addModifyListener(e -> changed());
    }

    private void changed() {
        updateLaunchConfigurationDialog();
    }

    @Override
    public void setDefaults(ILaunchConfigurationWorkingCopy wc) {
        wc.setAttribute(ManaDebugLaunchDelegate.ATTR_PAUSE_LEVEL, 2);
        wc.setAttribute(ManaDebugLaunchDelegate.ATTR_DEBUG_RANKS, "0");
        useManaSourceLookup(wc);
    }

    /** The Source tab edits the MANA source lookup director's path (the launch type, in core, names none). */
    static void useManaSourceLookup(ILaunchConfigurationWorkingCopy wc) {
        wc.setAttribute(org.eclipse.debug.core.ILaunchConfiguration.ATTR_SOURCE_LOCATOR_ID,
                dev.mana.eclipse.debug.ManaSourceLookupDirector.ID);
    }

    @Override
    public void initializeFrom(ILaunchConfiguration cfg) {
        try {
            level.setSelection(cfg.getAttribute(ManaDebugLaunchDelegate.ATTR_PAUSE_LEVEL, 2));
            ranks.setText(cfg.getAttribute(ManaDebugLaunchDelegate.ATTR_DEBUG_RANKS, "0"));
            jobRanks = cfg.getAttribute(ManaCore.ATTR_RANKS, ManaCore.DEFAULT_RANKS);
        } catch (CoreException e) {
            setErrorMessage(e.getMessage());
        }
    }

    @Override
    public void performApply(ILaunchConfigurationWorkingCopy wc) {
        wc.setAttribute(ManaDebugLaunchDelegate.ATTR_PAUSE_LEVEL, level.getSelection());
        wc.setAttribute(ManaDebugLaunchDelegate.ATTR_DEBUG_RANKS, ranks.getText().trim());
        useManaSourceLookup(wc);
    }

    @Override
    public boolean isValid(ILaunchConfiguration cfg) {
        setErrorMessage(null);
        try {
            int n = cfg.getAttribute(ManaCore.ATTR_RANKS, jobRanks);
            ManaDebugLaunchDelegate.parseRanks(ranks.getText(), n);
            return true;
        } catch (CoreException e) {
            setErrorMessage(e.getStatus().getMessage());
            return false;
        }
    }

    @Override
    public String getName() {
        return Messages.ManaDebugTab_name;

    }

    @Override
    public String getId() {
        return "dev.mana.eclipse.debug.ui.debugTab";
    }
}
