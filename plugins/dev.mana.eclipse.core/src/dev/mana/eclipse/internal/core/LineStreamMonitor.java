package dev.mana.eclipse.internal.core;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.debug.core.IStreamListener;
import org.eclipse.debug.core.model.IFlushableStreamMonitor;

/**
 * Reads one stream of the launcher line by line, puts the uniform rank prefix in front of each
 * line, and tells the console. The IDE can add its own lines ({@link #append(String)}).
 */
public final class LineStreamMonitor implements IFlushableStreamMonitor {
    private final CopyOnWriteArrayList<IStreamListener> listeners = new CopyOnWriteArrayList<>();
    private final StringBuilder contents = new StringBuilder();
    private boolean buffered = true;
    private final Thread reader;

    public LineStreamMonitor(InputStream in, Charset cs, String name) {
        reader = new Thread(() -> read(in, cs), name);
        reader.setDaemon(true);
    }

    public void start() {
        reader.start();
    }

    private void read(InputStream in, Charset cs) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, cs))) {
            String line;
            while ((line = r.readLine()) != null) {
                append(RankOutput.normalize(line) + System.lineSeparator());
            }
        } catch (IOException e) {
            // stream closed: the process ended
        }
    }

    /** Adds text (whole lines) to the stream, as if the process had written it. */
    public void append(String text) {
        synchronized (this) {
            if (buffered) {
                contents.append(text);
            }
        }
        for (IStreamListener l : listeners) {
            l.streamAppended(text, this);
        }
    }

    /** Waits until the process's stream is read to its end. */
    public void join(long millis) throws InterruptedException {
        reader.join(millis);
    }

    @Override
    public void addListener(IStreamListener listener) {
        listeners.addIfAbsent(listener);
    }

    @Override
    public void removeListener(IStreamListener listener) {
        listeners.remove(listener);
    }

    @Override
    public synchronized String getContents() {
        return contents.toString();
    }

    @Override
    public synchronized void flushContents() {
        contents.setLength(0);
    }

    @Override
    public synchronized void setBuffered(boolean buffer) {
        buffered = buffer;
    }

    @Override
    public synchronized boolean isBuffered() {
        return buffered;
    }
}
