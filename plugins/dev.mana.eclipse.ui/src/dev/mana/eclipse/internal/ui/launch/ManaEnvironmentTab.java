package dev.mana.eclipse.internal.ui.launch;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.debug.internal.ui.launchConfigurations.EnvironmentVariable;
import org.eclipse.debug.ui.EnvironmentTab;
import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.LabelProvider;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.dialogs.ListSelectionDialog;

import dev.mana.eclipse.core.ManaEnvironmentVariable;
import dev.mana.eclipse.internal.ui.IManaHelpContexts;

/** The platform's Environment tab, plus a "MANA..." button that offers MANA's variables with their meaning. */
@SuppressWarnings("restriction")
public final class ManaEnvironmentTab extends EnvironmentTab {
    Button manaButton;

    @Override
    public void createControl(Composite parent) {
        super.createControl(parent);
        PlatformUI.getWorkbench().getHelpSystem().setHelp(getControl(), IManaHelpContexts.ENVIRONMENT_TAB);
    }

    @Override
    protected void createTableButtons(Composite parent) {
        super.createTableButtons(parent);
        manaButton = createPushButton(parent, Messages.ManaEnvironmentTab_mana, null);
        manaButton.setToolTipText(Messages.ManaEnvironmentTab_manaTip);
        manaButton.setLayoutData(new GridData(SWT.FILL, SWT.TOP, false, false));
        manaButton.addListener(SWT.Selection, e -> chooseManaVariables());
    }

    /** Variables the user may set (those the IDE sets itself are left out). */
    static List<ManaEnvironmentVariable> offered() {
        List<ManaEnvironmentVariable> l = new ArrayList<>();
        for (ManaEnvironmentVariable v : ManaEnvironmentVariable.ALL) {
            if (!v.defaultValue().isEmpty()) {
                l.add(v);
            }
        }
        return l;
    }

    private void chooseManaVariables() {
        ListSelectionDialog d = ListSelectionDialog.of(offered())
            .contentProvider(ArrayContentProvider.getInstance())
            .labelProvider(new LabelProvider() {
                @Override
                public String getText(Object o) {
                    ManaEnvironmentVariable v = (ManaEnvironmentVariable) o;
                    return NLS.bind(Messages.ManaEnvironmentTab_variable, v.name(), v.description());
                }
            })
            .message(Messages.ManaEnvironmentTab_chooseMessage)
            .title(Messages.ManaEnvironmentTab_chooseTitle)

            .create(getShell());
        if (d.open() == ListSelectionDialog.OK) {
            List<EnvironmentVariable> add = new ArrayList<>();
            for (Object o : d.getResult()) {
                ManaEnvironmentVariable v = (ManaEnvironmentVariable) o;
                add.add(new EnvironmentVariable(v.name(), v.defaultValue()));
            }
            addVariables(add);
            updateLaunchConfigurationDialog();
        }
    }
}
