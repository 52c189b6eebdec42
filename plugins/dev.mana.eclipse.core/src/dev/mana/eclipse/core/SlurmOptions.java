package dev.mana.eclipse.core;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.ILaunchConfiguration;

/**
 * Where and how a job runs on a Slurm cluster (the launch configuration's Slurm group).
 *
 * @param submit interactive {@code srun} step or {@code sbatch} batch job
 * @param partition {@code -p}; empty = the cluster's default partition
 * @param nodes {@code -N}
 * @param tasksPerNode {@code --ntasks-per-node}; the job has {@code nodes * tasksPerNode} ranks
 * @param timeLimit {@code -t} in Slurm's formats; empty = the partition's limit
 * @param nodeList {@code -w}; empty = whatever nodes Slurm gives
 * @param arguments extra arguments of sbatch (batch) or srun (interactive)
 * @param commandPrefix what the Slurm commands run through (a wrapper reaching the login node); empty = here
 */
public record SlurmOptions(SlurmSubmit submit, String partition, int nodes, int tasksPerNode, String timeLimit,
        String nodeList, List<String> arguments, List<String> commandPrefix) {

    public static final int DEFAULT_NODES = 2;
    public static final int DEFAULT_TASKS_PER_NODE = 2;

    private static final Pattern PARTITION = Pattern.compile("[A-Za-z0-9_.-]+");
    /** minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS (Slurm's -t), or UNLIMITED/INFINITE. */
    private static final Pattern TIME = Pattern.compile(
        "\\d+|\\d+:\\d{1,2}|\\d+:\\d{1,2}:\\d{1,2}|\\d+-\\d{1,2}|\\d+-\\d{1,2}:\\d{1,2}|\\d+-\\d{1,2}:\\d{1,2}:\\d{1,2}"
            + "|UNLIMITED|INFINITE|unlimited|infinite");
    /** host names, comma-separated, with Slurm's ranges ({@code node[1-3,5]}). */
    private static final Pattern NODE_LIST = Pattern.compile("[A-Za-z0-9_.\\-\\[\\],]+");

    public SlurmOptions {
        submit = submit == null ? SlurmSubmit.SBATCH : submit;
        partition = partition == null ? "" : partition.trim();
        timeLimit = timeLimit == null ? "" : timeLimit.trim();
        nodeList = nodeList == null ? "" : nodeList.trim();
        arguments = List.copyOf(arguments == null ? List.of() : arguments);
        commandPrefix = List.copyOf(commandPrefix == null ? List.of() : commandPrefix);
    }

    /** The ranks of the job: nodes times tasks per node. */
    public int ranks() {
        return nodes * tasksPerNode;
    }

    /** The same options on another allocation: other node count, tasks per node and node list (a restart elsewhere). */
    public SlurmOptions onAllocation(int newNodes, int newTasksPerNode, String newNodeList) {
        return new SlurmOptions(submit, partition, newNodes, newTasksPerNode, timeLimit, newNodeList, arguments,
            commandPrefix);
    }

    /** The configuration's Slurm options, or null when it does not target a Slurm cluster. */
    public static SlurmOptions from(ILaunchConfiguration cfg) throws CoreException {
        if (!cfg.getAttribute(ManaCore.ATTR_SLURM, false)) {
            return null;
        }
        return new SlurmOptions(
            SlurmSubmit.fromName(cfg.getAttribute(ManaCore.ATTR_SLURM_SUBMIT, SlurmSubmit.SBATCH.name())),
            cfg.getAttribute(ManaCore.ATTR_SLURM_PARTITION, ""),
            cfg.getAttribute(ManaCore.ATTR_SLURM_NODES, DEFAULT_NODES),
            cfg.getAttribute(ManaCore.ATTR_SLURM_TASKS_PER_NODE, DEFAULT_TASKS_PER_NODE),
            cfg.getAttribute(ManaCore.ATTR_SLURM_TIME_LIMIT, ""),
            cfg.getAttribute(ManaCore.ATTR_SLURM_NODE_LIST, ""),
            ManaJobSettings.split(cfg.getAttribute(ManaCore.ATTR_SLURM_ARGUMENTS, "")),
            ManaJobSettings.split(cfg.getAttribute(ManaCore.ATTR_SLURM_COMMAND_PREFIX, "")));
    }

    /** What is wrong with these options, one sentence each (empty: nothing). */
    public List<String> problems() {
        return problems(Integer.toString(nodes), Integer.toString(tasksPerNode), partition, timeLimit, nodeList);
    }

    /**
     * What is wrong with the Slurm group's fields as typed (the launch tab's validation and the launch's), one
     * sentence each that says what is expected.
     */
    public static List<String> problems(String nodes, String tasksPerNode, String partition, String timeLimit,
            String nodeList) {
        List<String> p = new ArrayList<>();
        int n = positive(nodes);
        if (n < 1) {
            p.add("Nodes must be a whole number of at least 1 (got '" + nodes.trim() + "').");
        }
        if (positive(tasksPerNode) < 1) {
            p.add("Tasks per node must be a whole number of at least 1 (got '" + tasksPerNode.trim() + "').");
        }
        String part = partition.trim();
        if (!part.isEmpty() && !PARTITION.matcher(part).matches()) {
            p.add("Partition '" + part + "' is not a partition name (letters, digits, '_', '-', '.').");
        }
        String t = timeLimit.trim();
        if (!t.isEmpty() && !TIME.matcher(t).matches()) {
            p.add("Time limit '" + t + "' is not one of Slurm's forms: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, "
                + "D-HH:MM:SS.");
        } else if (!t.isEmpty() && t.matches("0+")) {
            p.add("Time limit 0 would let the job no time at all: leave it empty for the partition's limit.");
        }
        String l = nodeList.trim();
        if (!l.isEmpty() && !NODE_LIST.matcher(l).matches()) {
            p.add("Node list '" + l + "' is not a list of host names (e.g. node[1-2] or node3,node4).");
        } else if (!l.isEmpty() && n >= 1 && !l.contains("[") && l.split(",").length < n) {
            p.add("Node list '" + l + "' names " + l.split(",").length + " node(s) for a job of " + n + " nodes.");
        }
        return p;
    }

    /** The number a field holds, or -1 when it is no positive whole number. */
    private static int positive(String s) {
        try {
            int v = Integer.parseInt(s.trim());
            return v >= 1 ? v : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
