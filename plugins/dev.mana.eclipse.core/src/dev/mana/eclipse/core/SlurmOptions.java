package dev.mana.eclipse.core;

import java.util.ArrayList;
import java.util.Arrays;
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
 * @param placement the tasks on each of the allocation's nodes in order when they differ (1+3: {@code [1, 3]}; a
 *        batch job only); empty = {@code tasksPerNode} on every node. Non-empty, it has {@code nodes} entries and
 *        {@code tasksPerNode} is its largest.
 */
public record SlurmOptions(SlurmSubmit submit, String partition, int nodes, int tasksPerNode, String timeLimit,
        String nodeList, List<String> arguments, List<String> commandPrefix, List<Integer> placement) {

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
        placement = List.copyOf(placement == null ? List.of() : placement);
        if (!placement.isEmpty()) {
            tasksPerNode = placement.stream().mapToInt(Integer::intValue).max().getAsInt();
        }
    }

    /** The same tasks on every node. */
    public SlurmOptions(SlurmSubmit submit, String partition, int nodes, int tasksPerNode, String timeLimit,
            String nodeList, List<String> arguments, List<String> commandPrefix) {
        this(submit, partition, nodes, tasksPerNode, timeLimit, nodeList, arguments, commandPrefix, List.of());
    }

    /** The ranks of the job: nodes times tasks per node, or the placement's sum. */
    public int ranks() {
        return placement.isEmpty() ? nodes * tasksPerNode : placement.stream().mapToInt(Integer::intValue).sum();
    }

    /** The tasks per node as the Slurm group's field shows them: {@code "2"}, or the placement, {@code "1,3"}. */
    public String tasksPerNodeText() {
        return placement.isEmpty() ? Integer.toString(tasksPerNode)
            : String.join(",", placement.stream().map(String::valueOf).toList());
    }

    /** The same options on another allocation: other node count, tasks per node and node list (a restart elsewhere). */
    public SlurmOptions onAllocation(int newNodes, int newTasksPerNode, String newNodeList) {
        return new SlurmOptions(submit, partition, newNodes, newTasksPerNode, timeLimit, newNodeList, arguments,
            commandPrefix);
    }

    /**
     * The same options on another allocation whose tasks per node are typed as in the Slurm group's field:
     * {@code "2"} on every node, or {@code "1,3"} per node in order (its count of numbers is the node count).
     */
    public SlurmOptions onAllocation(int newNodes, String tasksPerNodeField, String newNodeList) {
        List<Integer> p = placementOf(tasksPerNodeField);
        int even = p.isEmpty() ? Integer.parseInt(tasksPerNodeField.split(",")[0].trim()) : 0;
        return new SlurmOptions(submit, partition, newNodes, even, timeLimit, newNodeList, arguments, commandPrefix, p);
    }

    /**
     * The placement a tasks-per-node field gives: empty for one number (the same on every node) or for numbers
     * that are all equal, else each node's tasks in order. Throws NumberFormatException on what is not a list
     * of whole numbers (see {@link #problems(String, String, String, String, String)}).
     */
    public static List<Integer> placementOf(String tasksPerNodeField) {
        String t = tasksPerNodeField.trim();
        if (!t.contains(",")) {
            Integer.parseInt(t);
            return List.of();
        }
        List<Integer> l = new ArrayList<>();
        for (String part : t.split(",", -1)) {
            l.add(Integer.parseInt(part.trim()));
        }
        return l.stream().distinct().count() == 1 ? List.of() : List.copyOf(l);
    }

    /** The ranks that a node count and a tasks-per-node field give, or -1 where they are not valid. */
    public static int ranksOf(String nodes, String tasksPerNodeField) {
        if (!problems(nodes, tasksPerNodeField, "", "", "").isEmpty()) {
            return -1;
        }
        String t = tasksPerNodeField.trim();
        if (t.contains(",")) {
            int sum = 0;
            for (String part : t.split(",")) {
                sum += Integer.parseInt(part.trim());
            }
            return sum;
        }
        return Integer.parseInt(nodes.trim()) * Integer.parseInt(t);
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
            ManaJobSettings.split(cfg.getAttribute(ManaCore.ATTR_SLURM_COMMAND_PREFIX, "")),
            placementAttribute(cfg.getAttribute(ManaCore.ATTR_SLURM_PLACEMENT, "")));
    }

    /** The placement attribute's numbers ("1,3"); what is not a number becomes 0, which {@link #problems()} names. */
    private static List<Integer> placementAttribute(String a) {
        if (a.isBlank()) {
            return List.of();
        }
        List<Integer> l = new ArrayList<>();
        for (String part : a.split(",", -1)) {
            try {
                l.add(Integer.parseInt(part.trim()));
            } catch (NumberFormatException e) {
                l.add(0);
            }
        }
        return l;
    }

    /** What is wrong with these options, one sentence each (empty: nothing). */
    public List<String> problems() {
        List<String> p = problems(Integer.toString(nodes), tasksPerNodeText(), partition, timeLimit, nodeList);
        if (!placement.isEmpty() && submit != SlurmSubmit.SBATCH) {
            p.add("Tasks per node '" + tasksPerNodeText() + "' differ between nodes: such a placement is made for a batch "
                + "job (sbatch) only; an interactive srun step takes the same tasks on every node.");
        }
        return p;
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
        String tpn = tasksPerNode.trim();
        if (tpn.contains(",")) {
            String[] each = tpn.split(",", -1);
            if (Arrays.stream(each).anyMatch(e -> positive(e) < 1)) {
                p.add("Tasks per node must be a whole number of at least 1, or one such number per node in order (e.g. "
                    + "1,3) (got '" + tpn + "').");
            } else if (n >= 1 && each.length != n) {
                p.add("Tasks per node '" + tpn + "' names " + each.length + " node(s) for a job of " + n + " nodes.");
            }
        } else if (positive(tasksPerNode) < 1) {
            p.add("Tasks per node must be a whole number of at least 1 (got '" + tpn + "').");
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
