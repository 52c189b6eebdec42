package dev.mana.eclipse.internal.ui.launch;

import java.io.File;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.osgi.util.NLS;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.ui.AbstractLaunchConfigurationTab;
import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Group;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.PlatformUI;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.internal.ui.IManaHelpContexts;
import dev.mana.eclipse.internal.ui.ManaUIPlugin;

/** Program, arguments and working directory. */
public final class ManaMainTab extends AbstractLaunchConfigurationTab {
    Text program;
    Text arguments;
    Text workingDirectory;

    @Override
    public void createControl(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        c.setLayout(new GridLayout(1, false));
        setControl(c);
        PlatformUI.getWorkbench().getHelpSystem().setHelp(c, IManaHelpContexts.MAIN_TAB);

        Group g = TabSupport.group(c, Messages.ManaMainTab_program, 1);
        program = TabSupport.text(g, 1, this::changed);
        program.setMessage(Messages.ManaMainTab_programHint);
        program.setData("name", "program");
        TabSupport.browseButtons(g, program, false, Messages.ManaMainTab_programBrowse);

        Group a = TabSupport.group(c, Messages.ManaMainTab_arguments, 1);
        arguments = new Text(a, SWT.MULTI | SWT.WRAP | SWT.BORDER | SWT.V_SCROLL);
        GridData gd = new GridData(SWT.FILL, SWT.FILL, true, false);
        gd.heightHint = 60;
        arguments.setLayoutData(gd);
        arguments.addModifyListener(e -> changed());
        arguments.setData("name", "arguments");
        Composite vb = new Composite(a, SWT.NONE);
        vb.setLayout(new GridLayout(1, false));
        vb.setLayoutData(new GridData(SWT.END, SWT.TOP, true, false));
        TabSupport.button(vb, Messages.ManaMainTab_variables, () -> TabSupport.variables(arguments));

        Group w = TabSupport.group(c, Messages.ManaMainTab_workingDirectory, 1);
        workingDirectory = TabSupport.text(w, 1, this::changed);
        workingDirectory.setMessage(Messages.ManaMainTab_workingDirectoryHint);
        workingDirectory.setData("name", "workingDirectory");
        TabSupport.browseButtons(w, workingDirectory, true, Messages.ManaMainTab_workingDirectoryBrowse);
    }

    private void changed() {
        scheduleUpdateJob();
        updateLaunchConfigurationDialog();
    }

    @Override
    public void setDefaults(ILaunchConfigurationWorkingCopy wc) {
        // defaults are absent attributes (see ManaJobSettings.from), so new configurations stay clean
    }

    @Override
    public void initializeFrom(ILaunchConfiguration cfg) {
        try {
            program.setText(cfg.getAttribute(ManaCore.ATTR_PROGRAM, ""));
            arguments.setText(cfg.getAttribute(ManaCore.ATTR_ARGUMENTS, ""));
            workingDirectory.setText(cfg.getAttribute(ManaCore.ATTR_WORKING_DIRECTORY, ""));
        } catch (CoreException e) {
            setErrorMessage(e.getMessage());
        }
    }

    @Override
    public void performApply(ILaunchConfigurationWorkingCopy wc) {
        TabSupport.put(wc, ManaCore.ATTR_PROGRAM, program.getText().trim(), "");
        TabSupport.put(wc, ManaCore.ATTR_ARGUMENTS, arguments.getText(), "");
        TabSupport.put(wc, ManaCore.ATTR_WORKING_DIRECTORY, workingDirectory.getText().trim(), "");
    }

    @Override
    public boolean isValid(ILaunchConfiguration cfg) {
        setErrorMessage(null);
        setMessage(null);
        String p = program.getText().trim();
        if (p.isEmpty()) {
            setMessage(Messages.ManaMainTab_chooseProgram);
            return false;
        }
        if (!p.contains("${")) {
            File f = new File(p);
            String wd = workingDirectory.getText().trim();
            if (!f.isAbsolute() && !wd.isEmpty() && !wd.contains("${")) {
                f = new File(wd, p);
            }
            if (f.isAbsolute() && !f.isFile()) {
                setErrorMessage(NLS.bind(Messages.ManaMainTab_programMissing, f));
                return false;
            }
            if (f.isAbsolute() && !f.canExecute()) {
                setErrorMessage(NLS.bind(Messages.ManaMainTab_programNotExecutable, f));
                return false;
            }
        }
        String wd = workingDirectory.getText().trim();
        if (!wd.isEmpty() && !wd.contains("${") && !new File(wd).isDirectory()) {
            setErrorMessage(NLS.bind(Messages.ManaMainTab_workingDirectoryMissing, wd));
            return false;
        }
        return true;
    }

    @Override
    public String getName() {
        return Messages.ManaMainTab_name;

    }

    @Override
    public String getId() {
        return "dev.mana.eclipse.ui.mainTab";
    }

    @Override
    public Image getImage() {
        return ManaUIPlugin.image(ManaUIPlugin.IMG_JOB);
    }
}
