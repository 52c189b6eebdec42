package dev.mana.eclipse.internal.core;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.Charset;

import org.eclipse.debug.core.model.IStreamMonitor;
import org.eclipse.debug.core.model.IStreamsProxy2;

/** Streams of a MANA job's launcher process, with uniform per-rank prefixes. */
public final class ManaStreamsProxy implements IStreamsProxy2 {
    private final LineStreamMonitor out;
    private final LineStreamMonitor err;
    private final OutputStream in;
    private final Charset charset;

    public ManaStreamsProxy(Process p, Charset cs) {
        this.charset = cs;
        out = new LineStreamMonitor(p.getInputStream(), cs, "MANA job output");
        err = new LineStreamMonitor(p.getErrorStream(), cs, "MANA job errors");
        in = p.getOutputStream();
        out.start();
        err.start();
    }

    @Override
    public IStreamMonitor getErrorStreamMonitor() {
        return err;
    }

    @Override
    public IStreamMonitor getOutputStreamMonitor() {
        return out;
    }

    public LineStreamMonitor output() {
        return out;
    }

    @Override
    public void write(String input) throws IOException {
        in.write(input.getBytes(charset));
        in.flush();
    }

    @Override
    public void closeInputStream() throws IOException {
        in.close();
    }

    /** Waits until both streams are read to their end. */
    public void join(long millis) throws InterruptedException {
        out.join(millis);
        err.join(millis);
    }
}
