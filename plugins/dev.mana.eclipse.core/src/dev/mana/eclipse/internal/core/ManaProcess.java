package dev.mana.eclipse.internal.core;

import java.nio.charset.Charset;
import java.util.Map;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.model.IStreamsProxy;
import org.eclipse.debug.core.model.RuntimeProcess;

/**
 * The launcher process (mpirun or srun) of a MANA job. Its console shows every rank's lines with a
 * {@code [rank N]} prefix; Terminate asks the coordinator to kill the ranks before it kills mpirun.
 */
public final class ManaProcess extends RuntimeProcess {
    private ManaJob job;

    public ManaProcess(ILaunch launch, Process process, String name, Map<String, String> attributes) {
        super(launch, process, name, attributes);
    }

    void setJob(ManaJob job) {
        this.job = job;
    }

    @Override
    protected IStreamsProxy createStreamsProxy() {
        String enc = getLaunch().getAttribute(DebugPlugin.ATTR_CONSOLE_ENCODING);
        Charset cs;
        try {
            cs = enc != null ? Charset.forName(enc) : Charset.defaultCharset();
        } catch (RuntimeException e) {
            cs = Charset.defaultCharset();
        }
        return new ManaStreamsProxy(getSystemProcess(), cs);
    }

    /** The streams (for the IDE's own console lines). */
    public ManaStreamsProxy streams() {
        return (ManaStreamsProxy) getStreamsProxy();
    }

    @Override
    public void terminate() throws DebugException {
        if (getSystemProcess() instanceof SlurmBatchProcess batch) {
            // a batch job: scancel, as its time limit would (its ranks end, its coordinator with them); the
            // launch ends when Slurm says the job has, which may be a few seconds (KillWait)
            batch.destroy();
            return;
        }
        if (!isTerminated() && job != null) {
            job.killRanksQuietly();
        }
        super.terminate();
    }

    @Override
    protected void terminated() {
        IStreamsProxy p = getStreamsProxy();
        if (p instanceof ManaStreamsProxy m) {
            try {
                m.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        super.terminated();
    }

    static CoreException wrap(Exception e) {
        return new CoreException(org.eclipse.core.runtime.Status.error(e.getMessage(), e));
    }
}
