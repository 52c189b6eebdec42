package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mana.eclipse.core.CheckpointImages;
import dev.mana.eclipse.core.CoordinatorEndpoint;
import dev.mana.eclipse.core.ManaCommand;
import dev.mana.eclipse.core.ManaCommandBuilder;
import dev.mana.eclipse.core.ManaJobSettings;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.MpiLauncher;
import dev.mana.eclipse.core.SlurmOptions;
import dev.mana.eclipse.core.SlurmSubmit;

/** The Slurm launch's command lines (srun step, sbatch submission) and the batch script, exactly. */
class SlurmCommandBuilderTest {

    static final File RT = new File("/opt/mana");
    static final CoordinatorEndpoint EP = new CoordinatorEndpoint("login1", 40123, "s3cret", new File("/ws/.mana.rc"));

    static SlurmOptions slurm(SlurmSubmit submit) {
        return new SlurmOptions(submit, "batch", 2, 2, "0:30:00", "node[1-2]", List.of("--exclusive"), List.of());
    }

    static ManaJobSettings settings(MpiImplementation mpi, SlurmOptions slurm, boolean restart, int interval) {
        return new ManaJobSettings(new File("/home/u/app/ring"), List.of("--iters", "10", "two words"),
            new File("/home/u/app"), 1, mpi, MpiLauncher.MPIRUN, List.of(), new File("/home/u/ckpt"), interval, restart,
            new File("/home/u/ckpt-old"), false, CheckpointImages.DEFAULT, Map.of("HOME", "/home/u"), false, false,
            "localhost", 7779, null, "ring job", null).withSlurm(slurm);
    }

    @Test
    void ranksFollowTheAllocation() {
        ManaJobSettings s = settings(MpiImplementation.OPEN_MPI, slurm(SlurmSubmit.SBATCH), false, 0);
        assertEquals(4, s.ranks());
        assertTrue(s.slurmBatch());
        ManaJobSettings moved = s.withSlurm(s.slurm().onAllocation(1, 4, "node3"));
        assertEquals(4, moved.ranks());
        assertEquals("node3", moved.slurm().nodeList());
        assertEquals(1, moved.slurm().nodes());
        assertFalse(settings(MpiImplementation.OPEN_MPI, slurm(SlurmSubmit.SRUN), false, 0).slurmBatch());
    }

    @Test
    void interactiveSrunStep() {
        ManaCommand c = new ManaCommandBuilder(settings(MpiImplementation.OPEN_MPI, slurm(SlurmSubmit.SRUN), false, 0),
            RT, EP).runAsRoot(true).build();
        assertEquals(List.of("srun", "-N", "2", "--ntasks-per-node=2", "-p", "batch", "-t", "0:30:00", "-w", "node[1-2]",
            "--mpi=pmix", "--label", "--exclusive", "/opt/mana/bin/mana_launch", "--ckptdir", "/home/u/ckpt",
            "-h", "login1", "-p", "40123", "/home/u/app/ring", "--iters", "10", "two words"), c.commandLine());
        assertEquals("login1", c.environment().get("MANA_COORD_HOST"));
        assertEquals("1", c.environment().get("OMPI_ALLOW_RUN_AS_ROOT"), "Open MPI ranks as root under srun too");
    }

    @Test
    void interactiveSrunStepThroughAPrefixRestartingWithMpich() {
        SlurmOptions o = new SlurmOptions(SlurmSubmit.SRUN, "", 1, 3, "", "", List.of(), List.of("/c/bin/on", "head"));
        ManaCommand c = new ManaCommandBuilder(settings(MpiImplementation.MPICH, o, true, 0), RT, EP).build();
        assertEquals(List.of("/c/bin/on", "head", "srun", "-N", "1", "--ntasks-per-node=3", "--mpi=pmi2", "--label",
            "/opt/mana/bin/mana_restart", "--restartdir", "/home/u/ckpt-old", "--ckptdir", "/home/u/ckpt",
            "-h", "login1", "-p", "40123"), c.commandLine());
    }

    @Test
    void interactiveStepWithItsCoordinatorOnTheCluster() {
        SlurmOptions o = new SlurmOptions(SlurmSubmit.SRUN, "", 2, 2, "", "node1,node2", List.of(), List.of("/c/bin/on", "head"));
        ManaCommandBuilder b = new ManaCommandBuilder(settings(MpiImplementation.MPICH, o, false, 5), RT, null)
            .clusterStatusFile("/home/u/app/.mana-srun-x.rc");
        ManaCommand coord = b.coordinatorOnCluster();
        assertEquals(List.of("/c/bin/on", "head", "/opt/mana/bin/mana_coordinator", "-p", "0", "-i", "5", "--status-file",
            "/home/u/app/.mana-srun-x.rc"), coord.commandLine());
        assertFalse(coord.environment().containsKey("MANA_RC"));
        ManaCommand step = b.build();
        assertEquals(List.of("/c/bin/on", "head", "srun", "-N", "2", "--ntasks-per-node=2", "-w", "node1,node2", "--mpi=pmi2",
            "--label", "/opt/mana/bin/mana_launch", "--ckptdir", "/home/u/ckpt", "/home/u/app/ring", "--iters", "10",
            "two words"), step.commandLine(), "no -h/-p: the ranks read the status file");
        assertEquals("/home/u/app/.mana-srun-x.rc", step.environment().get("MANA_RC"));
        assertFalse(step.environment().containsKey("MANA_COORD_HOST"));
        assertFalse(step.environment().containsKey("MANA_COORD_PORT"));
        // no interval: the coordinator checkpoints on request only
        assertFalse(new ManaCommandBuilder(settings(MpiImplementation.MPICH, o, false, 0), RT, null)
            .clusterStatusFile("/x.rc").coordinatorOnCluster().commandLine().contains("-i"));
    }

    @Test
    void theUsersMpiChoiceWins() {
        SlurmOptions o = new SlurmOptions(SlurmSubmit.SRUN, "", 1, 1, "", "", List.of("--mpi=pmix_v4"), List.of());
        List<String> l = new ManaCommandBuilder(settings(MpiImplementation.OPEN_MPI, o, false, 0), RT, EP).build()
            .commandLine();
        assertEquals(1, l.stream().filter(a -> a.startsWith("--mpi")).count());
        assertTrue(l.contains("--mpi=pmix_v4"));
    }

    @Test
    void sbatchSubmission() {
        SlurmOptions o = new SlurmOptions(SlurmSubmit.SBATCH, "", 2, 2, "", "", List.of("--qos=low"),
            List.of("/c/bin/on", "head"));
        ManaJobSettings s = settings(MpiImplementation.OPEN_MPI, o, false, 0);
        ManaCommand c = new ManaCommandBuilder(s, RT, null).sbatch(new File("/home/u/app/job.sbatch"));
        assertEquals(List.of("/c/bin/on", "head", "sbatch", "--parsable", "--qos=low", "/home/u/app/job.sbatch"),
            c.commandLine());
        assertEquals("/home/u", c.environment().get("HOME"));
        assertEquals("ring job", c.environment().get("MANA_JOB"));
        assertFalse(c.environment().containsKey("MANA_COORD_HOST"), "the job's ranks find their own coordinator");
        assertFalse(c.environment().containsKey("MANA_RC"));
        assertEquals(new File("/home/u/app/mana-ring_job-%j.out"), new ManaCommandBuilder(s, RT, null).batchOutputPattern());
        assertEquals(new File("/home/u/app/mana-ring_job-77.out"), new ManaCommandBuilder(s, RT, null).batchOutput("77"));
    }

    @Test
    void batchScriptOfALaunch() {
        String script = new ManaCommandBuilder(settings(MpiImplementation.OPEN_MPI, slurm(SlurmSubmit.SBATCH), false, 60),
            RT, null).batchScript();
        assertEquals("""
            #!/bin/bash
            # MANA job 'ring job': launch of /home/u/app/ring
            # written by the Eclipse plug-in dev.mana.eclipse.core; submitted with sbatch --parsable --exclusive THIS-FILE
            #SBATCH --job-name=ring_job
            #SBATCH --nodes=2
            #SBATCH --ntasks-per-node=2
            #SBATCH --partition=batch
            #SBATCH --time=0:30:00
            #SBATCH --nodelist=node[1-2]
            #SBATCH --output=/home/u/app/mana-ring_job-%j.out
            #SBATCH --chdir=/home/u/app
            set -u
            # the coordinator, on the job's first node (here): it detaches, writes
            # ~/.mana-slurm-$SLURM_JOB_ID.rc and exits once the job's last rank has gone
            /opt/mana/bin/mana_coordinator -p 0 -i 60 || exit 1
            rc=$HOME/.mana-slurm-$SLURM_JOB_ID.rc
            n=600
            until grep -q '^Secret:' "$rc" 2>/dev/null; do
                n=$((n - 1)); [ $n -gt 0 ] || { echo "mana: no coordinator status file $rc after 30 s" >&2; exit 1; }
                sleep 0.05
            done
            echo "mana: coordinator of job $SLURM_JOB_ID on $(hostname) ($rc)"
            exec srun --mpi=pmix --label /opt/mana/bin/mana_launch --ckptdir /home/u/ckpt /home/u/app/ring --iters 10 'two words'
            """, script);
    }

    @Test
    void batchScriptOfARestartOnANewAllocation() {
        ManaJobSettings s = settings(MpiImplementation.MPICH, slurm(SlurmSubmit.SBATCH), true, 0);
        s = s.withSlurm(s.slurm().onAllocation(2, 2, "node3,node4"));
        String script = new ManaCommandBuilder(s, RT, null).batchScript();
        assertTrue(script.contains("# MANA job 'ring job': restart from /home/u/ckpt-old\n"), script);
        assertTrue(script.contains("#SBATCH --nodelist=node3,node4\n"), script);
        assertTrue(script.contains("\n/opt/mana/bin/mana_coordinator -p 0 || exit 1\n"), script);
        assertTrue(script.endsWith("\nexec srun --mpi=pmi2 --label /opt/mana/bin/mana_restart --restartdir /home/u/ckpt-old"
            + " --ckptdir /home/u/ckpt\n"), script);
    }

    @Test
    void batchScriptOfARestartPlacedOneAndThree() {
        ManaJobSettings s = settings(MpiImplementation.MPICH, slurm(SlurmSubmit.SBATCH), true, 0);
        s = s.withSlurm(s.slurm().onAllocation(2, " 1, 3", "node3,node4"));
        assertEquals(List.of(1, 3), s.slurm().placement());
        assertEquals(4, s.ranks(), "the ranks follow the placement");
        assertEquals("1,3", s.slurm().tasksPerNodeText());
        assertEquals(List.of(), s.slurm().problems());
        String script = new ManaCommandBuilder(s, RT, null).batchScript();
        assertTrue(script.contains("\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=3    # the most of placement 1,3: "
            + "every node can take its share\n"), script);
        assertTrue(script.contains("""
            # placement 1,3: the allocation's nodes in order take these ranks (srun -m arbitrary)
            place=(1 3)
            hosts=${TMPDIR:-/tmp}/mana-slurm-$SLURM_JOB_ID.hosts
            i=0
            for h in $(scontrol show hostnames "$SLURM_JOB_NODELIST"); do
                for ((k = 0; k < ${place[i]}; k++)); do echo "$h"; done
                i=$((i + 1))
            done > "$hosts" || { echo "mana: cannot write $hosts" >&2; exit 1; }
            [ "$i" = 2 ] || { echo "mana: the allocation has $i node(s), the placement 2" >&2; exit 1; }
            export SLURM_HOSTFILE=$hosts
            unset SLURM_NTASKS_PER_NODE
            """), script);
        assertTrue(script.endsWith("\nexec srun -n 4 -m arbitrary --mpi=pmi2 --label /opt/mana/bin/mana_restart "
            + "--restartdir /home/u/ckpt-old --ckptdir /home/u/ckpt\n"), script);
        // the same numbers on every node are no placement; an interactive step cannot take one
        assertEquals(List.of(), s.slurm().onAllocation(2, "2,2", "").placement());
        assertEquals(2, s.slurm().onAllocation(2, "2,2", "").tasksPerNode());
        SlurmOptions srun = new SlurmOptions(SlurmSubmit.SRUN, "", 2, 3, "", "", List.of(), List.of(), List.of(1, 3));
        assertEquals(List.of("Tasks per node '1,3' differ between nodes: such a placement is made for a batch job (sbatch) "
            + "only; an interactive srun step takes the same tasks on every node."), srun.problems());
    }

    @Test
    void validation() {
        assertEquals(List.of(), SlurmOptions.problems("2", "1,3", "", "", ""));
        assertEquals(4, SlurmOptions.ranksOf("2", "1,3"));
        assertEquals(6, SlurmOptions.ranksOf("3", "2"));
        assertEquals(-1, SlurmOptions.ranksOf("3", "1,3"));
        assertEquals(List.of("Tasks per node '1,3' names 2 node(s) for a job of 3 nodes."),
            SlurmOptions.problems("3", "1,3", "", "", ""));
        assertEquals(List.of("Tasks per node must be a whole number of at least 1, or one such number per node in order "
            + "(e.g. 1,3) (got '1,,3')."), SlurmOptions.problems("3", "1,,3", "", "", ""));
        assertEquals(List.of(), SlurmOptions.problems("2", "4", "debug", "1-12:00:00", "node[1-2]"));
        assertEquals(List.of(), SlurmOptions.problems("1", "1", "", "90", ""));
        assertEquals(List.of(), SlurmOptions.problems("2", "1", "", "30:00", "a,b"));
        assertEquals(List.of("Nodes must be a whole number of at least 1 (got '0')."),
            SlurmOptions.problems("0", "1", "", "", ""));
        assertEquals(List.of("Tasks per node must be a whole number of at least 1 (got 'x')."),
            SlurmOptions.problems("1", "x", "", "", ""));
        assertEquals(List.of("Partition 'my part' is not a partition name (letters, digits, '_', '-', '.')."),
            SlurmOptions.problems("1", "1", "my part", "", ""));
        assertEquals(List.of("Time limit '1h' is not one of Slurm's forms: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, "
            + "D-HH:MM:SS."), SlurmOptions.problems("1", "1", "", "1h", ""));
        assertEquals(List.of("Time limit 0 would let the job no time at all: leave it empty for the partition's limit."),
            SlurmOptions.problems("1", "1", "", "0", ""));
        assertEquals(List.of("Node list 'node1' names 1 node(s) for a job of 2 nodes."),
            SlurmOptions.problems("2", "1", "", "", "node1"));
        assertEquals(List.of("Node list 'node 1' is not a list of host names (e.g. node[1-2] or node3,node4)."),
            SlurmOptions.problems("1", "1", "", "", "node 1"));
    }
}
