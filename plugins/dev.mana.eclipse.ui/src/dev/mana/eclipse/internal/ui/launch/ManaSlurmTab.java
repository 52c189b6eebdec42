package dev.mana.eclipse.internal.ui.launch;

import java.util.List;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.ui.AbstractLaunchConfigurationTab;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Group;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.PlatformUI;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.SlurmOptions;
import dev.mana.eclipse.core.SlurmSubmit;
import dev.mana.eclipse.internal.ui.IManaHelpContexts;

/**
 * The job on a Slurm cluster: sbatch (a batch script the plug-in writes; its coordinator runs in the job) or an
 * srun step; partition, nodes, tasks per node (the job's ranks are their product), time limit, node list, extra
 * sbatch/srun arguments, and the command the Slurm commands run through. The attributes are the core's
 * ({@link SlurmOptions}); the fields are text so a bad value is named, not silently clamped.
 */
public final class ManaSlurmTab extends AbstractLaunchConfigurationTab {
    Button enabled;
    Button sbatch;
    Button srun;
    Text partition;
    Text nodes;
    Text tasksPerNode;
    Label ranks;
    Text timeLimit;
    Text nodeList;
    Text arguments;
    Text commandPrefix;

    @Override
    public void createControl(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        c.setLayout(new GridLayout(1, false));
        setControl(c);
        PlatformUI.getWorkbench().getHelpSystem().setHelp(c, IManaHelpContexts.MPI_TAB);

        enabled = new Button(c, SWT.CHECK);
        enabled.setText(Messages.ManaSlurmTab_enabled);
        enabled.addListener(SWT.Selection, e -> changed());

        Group g = TabSupport.group(c, Messages.ManaSlurmTab_group, 2);
        new Label(g, SWT.NONE).setText(Messages.ManaSlurmTab_submit);
        Composite radios = new Composite(g, SWT.NONE);
        radios.setLayout(new GridLayout(2, false));
        sbatch = new Button(radios, SWT.RADIO);
        sbatch.setText(Messages.ManaSlurmTab_sbatch);
        sbatch.setToolTipText(Messages.ManaSlurmTab_sbatchTip);
        srun = new Button(radios, SWT.RADIO);
        srun.setText(Messages.ManaSlurmTab_srun);
        srun.setToolTipText(Messages.ManaSlurmTab_srunTip);
        sbatch.addListener(SWT.Selection, e -> changed());
        srun.addListener(SWT.Selection, e -> changed());
        new Label(g, SWT.NONE).setText(Messages.ManaSlurmTab_partition);
        partition = TabSupport.text(g, 1, this::changed);
        partition.setMessage(Messages.ManaSlurmTab_partitionHint);
        new Label(g, SWT.NONE).setText(Messages.ManaSlurmTab_nodes);
        nodes = TabSupport.text(g, 1, this::changed);
        new Label(g, SWT.NONE).setText(Messages.ManaSlurmTab_tasksPerNode);
        tasksPerNode = TabSupport.text(g, 1, this::changed);
        new Label(g, SWT.NONE);
        ranks = new Label(g, SWT.NONE);
        ranks.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        new Label(g, SWT.NONE).setText(Messages.ManaSlurmTab_timeLimit);
        timeLimit = TabSupport.text(g, 1, this::changed);
        timeLimit.setMessage(Messages.ManaSlurmTab_timeLimitHint);
        new Label(g, SWT.NONE).setText(Messages.ManaSlurmTab_nodeList);
        nodeList = TabSupport.text(g, 1, this::changed);
        nodeList.setMessage(Messages.ManaSlurmTab_nodeListHint);
        new Label(g, SWT.NONE).setText(Messages.ManaSlurmTab_arguments);
        arguments = TabSupport.text(g, 1, this::changed);
        arguments.setMessage(Messages.ManaSlurmTab_argumentsHint);
        new Label(g, SWT.NONE).setText(Messages.ManaSlurmTab_commandPrefix);
        commandPrefix = TabSupport.text(g, 1, this::changed);
        commandPrefix.setMessage(Messages.ManaSlurmTab_commandPrefixHint);
        commandPrefix.setToolTipText(Messages.ManaSlurmTab_commandPrefixTip);
    }

    private void changed() {
        boolean on = enabled.getSelection();
        for (org.eclipse.swt.widgets.Control w : List.of(sbatch, srun, partition, nodes, tasksPerNode, timeLimit, nodeList,
                arguments, commandPrefix)) {
            w.setEnabled(on);
        }
        int n = parse(nodes.getText());
        int t = parse(tasksPerNode.getText());
        ranks.setText(n > 0 && t > 0 ? NLS.bind(Messages.ManaSlurmTab_ranks, Integer.toString(n * t)) : "");
        scheduleUpdateJob();
        updateLaunchConfigurationDialog();
    }

    private static int parse(String s) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public void setDefaults(ILaunchConfigurationWorkingCopy wc) {
        // absent attributes: not on Slurm (ManaJobSettings.from)
    }

    @Override
    public void initializeFrom(ILaunchConfiguration cfg) {
        try {
            enabled.setSelection(cfg.getAttribute(ManaCore.ATTR_SLURM, false));
            boolean b = SlurmSubmit.fromName(cfg.getAttribute(ManaCore.ATTR_SLURM_SUBMIT, "")) == SlurmSubmit.SBATCH;
            sbatch.setSelection(b);
            srun.setSelection(!b);
            partition.setText(cfg.getAttribute(ManaCore.ATTR_SLURM_PARTITION, ""));
            nodes.setText(Integer.toString(cfg.getAttribute(ManaCore.ATTR_SLURM_NODES, SlurmOptions.DEFAULT_NODES)));
            tasksPerNode.setText(Integer.toString(
                cfg.getAttribute(ManaCore.ATTR_SLURM_TASKS_PER_NODE, SlurmOptions.DEFAULT_TASKS_PER_NODE)));
            timeLimit.setText(cfg.getAttribute(ManaCore.ATTR_SLURM_TIME_LIMIT, ""));
            nodeList.setText(cfg.getAttribute(ManaCore.ATTR_SLURM_NODE_LIST, ""));
            arguments.setText(cfg.getAttribute(ManaCore.ATTR_SLURM_ARGUMENTS, ""));
            commandPrefix.setText(cfg.getAttribute(ManaCore.ATTR_SLURM_COMMAND_PREFIX, ""));
            changed();
        } catch (CoreException e) {
            setErrorMessage(e.getMessage());
        }
    }

    @Override
    public void performApply(ILaunchConfigurationWorkingCopy wc) {
        TabSupport.put(wc, ManaCore.ATTR_SLURM, enabled.getSelection(), false);
        TabSupport.put(wc, ManaCore.ATTR_SLURM_SUBMIT, (sbatch.getSelection() ? SlurmSubmit.SBATCH : SlurmSubmit.SRUN)
            .name(), SlurmSubmit.SBATCH.name());
        TabSupport.put(wc, ManaCore.ATTR_SLURM_PARTITION, partition.getText().trim(), "");
        // a value that is not a number is not written (the tab says so and the launch is refused meanwhile)
        int n = parse(nodes.getText());
        if (n > 0) {
            TabSupport.put(wc, ManaCore.ATTR_SLURM_NODES, n, SlurmOptions.DEFAULT_NODES);
        }
        int t = parse(tasksPerNode.getText());
        if (t > 0) {
            TabSupport.put(wc, ManaCore.ATTR_SLURM_TASKS_PER_NODE, t, SlurmOptions.DEFAULT_TASKS_PER_NODE);
        }
        TabSupport.put(wc, ManaCore.ATTR_SLURM_TIME_LIMIT, timeLimit.getText().trim(), "");
        TabSupport.put(wc, ManaCore.ATTR_SLURM_NODE_LIST, nodeList.getText().trim(), "");
        TabSupport.put(wc, ManaCore.ATTR_SLURM_ARGUMENTS, arguments.getText().trim(), "");
        TabSupport.put(wc, ManaCore.ATTR_SLURM_COMMAND_PREFIX, commandPrefix.getText().trim(), "");
    }

    @Override
    public boolean isValid(ILaunchConfiguration cfg) {
        setErrorMessage(null);
        if (!enabled.getSelection()) {
            return true;
        }
        List<String> p = SlurmOptions.problems(nodes.getText(), tasksPerNode.getText(), partition.getText(),
            timeLimit.getText(), nodeList.getText());
        if (!p.isEmpty()) {
            setErrorMessage(p.get(0));
            return false;
        }
        return true;
    }

    @Override
    public String getName() {
        return Messages.ManaSlurmTab_name;
    }

    @Override
    public String getId() {
        return "dev.mana.eclipse.ui.slurmTab";
    }
}
