package dev.mana.gdb.mi;

import dev.mana.gdb.mi.command.CliKill;
import dev.mana.gdb.mi.command.MiCommand;
import dev.mana.gdb.mi.command.MiExecInterrupt;
import dev.mana.gdb.mi.command.MiGdbExit;
import dev.mana.gdb.mi.command.MiGdbSet;
import dev.mana.gdb.mi.command.MiInterpreterExec;
import dev.mana.gdb.mi.command.MiTargetDetach;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A session with one real {@code gdb --interpreter=mi3} process.
 *
 * <p>Commands get a token each and a {@link CompletableFuture} of their {@link MiResponse}; a reader
 * thread parses every line GDB writes, completes the future with the matching token and hands async
 * records to listeners as {@link GdbEvent}s. The session runs GDB with {@code mi-async on}, so
 * commands (an interrupt, a detach) are accepted while the inferior runs.
 *
 * <p>{@link #close()} leaves no gdb behind and no inferior stopped: an attached process is detached
 * (it runs on) or killed, per {@link Options#killOnClose}, then GDB is asked to exit, and killed if it
 * does not within the time-out; the process is always reaped.
 */
public final class GdbMi implements AutoCloseable {

    /** How to start GDB. */
    public record Options(String gdbPath, List<String> extraArgs, Duration defaultTimeout, boolean killOnClose,
                          Consumer<String> transcript) {
        public Options {
            extraArgs = List.copyOf(extraArgs);
        }

        public static Options defaults() {
            return new Options("gdb", List.of(), Duration.ofSeconds(30), false, null);
        }

        public Options withGdb(String path) {
            return new Options(path, extraArgs, defaultTimeout, killOnClose, transcript);
        }

        public Options withTimeout(Duration d) {
            return new Options(gdbPath, extraArgs, d, killOnClose, transcript);
        }

        public Options withKillOnClose(boolean kill) {
            return new Options(gdbPath, extraArgs, defaultTimeout, kill, transcript);
        }

        /** Receives every line sent ({@code "> "...}) and received, raw: for logs and recorded test corpora. */
        public Options withTranscript(Consumer<String> t) {
            return new Options(gdbPath, extraArgs, defaultTimeout, killOnClose, t);
        }

        public Options withArgs(List<String> args) {
            return new Options(gdbPath, args, defaultTimeout, killOnClose, transcript);
        }
    }

    private final Process process;
    private final OutputStream stdin;
    private final Options options;
    private final AtomicLong nextToken = new AtomicLong(1);
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final List<Consumer<GdbEvent>> listeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<MiRecord.Stream>> streamListeners = new CopyOnWriteArrayList<>();
    private final StringBuilder console = new StringBuilder();
    private final StringBuilder log = new StringBuilder();
    private final StringBuilder stderrTail = new StringBuilder();
    private final Thread reader;
    private final Thread errReader;
    private final CompletableFuture<Integer> exited = new CompletableFuture<>();
    private volatile String inferiorPid;
    private volatile boolean running;
    private volatile boolean closed;

    private record Pending(String command, CompletableFuture<MiResponse> future) {
    }

    private GdbMi(Process process, Options options) {
        this.process = process;
        this.options = options;
        this.stdin = process.getOutputStream();
        this.reader = new Thread(this::readLoop, "gdb-mi-reader-" + process.pid());
        this.errReader = new Thread(this::readStderr, "gdb-mi-stderr-" + process.pid());
        reader.setDaemon(true);
        errReader.setDaemon(true);
    }

    /** Starts GDB and waits until it answers a first command (settings for a scripted session). */
    public static GdbMi start(Options options) throws IOException, MiException {
        List<String> cmd = new ArrayList<>();
        cmd.add(options.gdbPath());
        cmd.add("--interpreter=mi3");
        cmd.add("-nx");
        cmd.add("-q");
        cmd.addAll(options.extraArgs());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new IOException("cannot start " + options.gdbPath() + " (is gdb installed?): " + e.getMessage(), e);
        }
        GdbMi gdb = new GdbMi(p, options);
        gdb.reader.start();
        gdb.errReader.start();
        boolean ok = false;
        try {
            // mi-async before any target exists; no pagination, no confirmations, no network look-ups
            gdb.execute(new MiGdbSet("mi-async on"));
            gdb.execute(new MiGdbSet("confirm off"));
            gdb.execute(new MiGdbSet("pagination off"));
            gdb.execute(new MiGdbSet("width 0"));
            gdb.execute(new MiGdbSet("debuginfod enabled off"));
            ok = true;
            return gdb;
        } finally {
            if (!ok) {
                gdb.close();
            }
        }
    }

    /** Pid of gdb itself. */
    public long gdbPid() {
        return process.pid();
    }

    /** Pid of the inferior (after attach), or null. */
    public String inferiorPid() {
        return inferiorPid;
    }

    /** Whether GDB last reported the inferior running. */
    public boolean isRunning() {
        return running;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Receives every event, on the reader thread, in gdb's order. That thread also delivers every answer: a
     * listener must not wait for a lock that another thread may hold while it waits for an answer of this
     * session (both would wait until that answer's time-out).
     */
    public void addListener(Consumer<GdbEvent> l) {
        listeners.add(l);
    }

    public void removeListener(Consumer<GdbEvent> l) {
        listeners.remove(l);
    }

    /**
     * Receives every stream record ({@code ~} console, {@code @} target, {@code &} log) as it arrives, on
     * the reader thread: what a gdb console shows. The text still goes into the response of the command
     * it belongs to as well.
     */
    public void addStreamListener(Consumer<MiRecord.Stream> l) {
        streamListeners.add(l);
    }

    public void removeStreamListener(Consumer<MiRecord.Stream> l) {
        streamListeners.remove(l);
    }

    /**
     * A future of the next event that matches; register it <em>before</em> the command that causes it.
     * Completes exceptionally when GDB exits first.
     */
    public <T extends GdbEvent> CompletableFuture<T> expect(Class<T> type, Predicate<? super T> match) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Consumer<GdbEvent> l = new Consumer<>() {
            @Override
            public void accept(GdbEvent e) {
                if (e instanceof GdbEvent.GdbExited && !type.isInstance(e)) {
                    f.completeExceptionally(new MiException(null, "gdb exited" + stderrSuffix()));
                } else if (type.isInstance(e) && match.test(type.cast(e))) {
                    f.complete(type.cast(e));
                }
            }
        };
        f.whenComplete((v, t) -> removeListener(l));
        addListener(l);
        if (exited.isDone() && !f.isDone()) {
            f.completeExceptionally(new MiException(null, "gdb exited" + stderrSuffix()));
        }
        return f;
    }

    /** Waits for a future from {@link #expect} with a time-out. */
    public <T> T await(CompletableFuture<T> f, Duration timeout, String what) throws MiException {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new MiException.Timeout(null, "no " + what + " within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof MiException m) {
                throw m;
            }
            throw new MiException(null, what + ": " + c, c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MiException(null, "interrupted while waiting for " + what, e);
        }
    }

    /**
     * Sends a command. MI commands start with '-'; anything else is run as a CLI command through
     * {@code -interpreter-exec console}. The future completes with the response (also for
     * {@code ^error}), or exceptionally when GDB exits first.
     */
    public CompletableFuture<MiResponse> send(String command) {
        if (command.indexOf('\n') >= 0 || command.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("a command is one line: " + command);
        }
        String mi = command.startsWith("-") ? command : MiInterpreterExec.console(command).line();
        long token = nextToken.getAndIncrement();
        CompletableFuture<MiResponse> f = new CompletableFuture<>();
        pending.put(token, new Pending(command, f));
        if (exited.isDone()) {
            pending.remove(token);
            f.completeExceptionally(new MiException(command, "gdb has exited" + stderrSuffix()));
            return f;
        }
        String line = token + mi + "\n";
        try {
            synchronized (stdin) {
                transcript("> " + token + mi);
                stdin.write(line.getBytes(StandardCharsets.UTF_8));
                stdin.flush();
            }
        } catch (IOException e) {
            pending.remove(token);
            f.completeExceptionally(new MiException(command, "cannot write to gdb: " + e.getMessage() + stderrSuffix(), e));
        }
        return f;
    }

    /** Sends a command object (its {@link MiCommand#text()}), as {@link #send(String)}. */
    public CompletableFuture<MiResponse> send(MiCommand<?> command) {
        return send(command.text());
    }

    /** Sends, waits with the default time-out and reads the answer; {@code ^error} throws. */
    public <R> R run(MiCommand<R> command) throws MiException {
        return run(command, options.defaultTimeout());
    }

    /** Sends, waits and reads the answer; {@code ^error} throws {@link MiException} with GDB's message. */
    public <R> R run(MiCommand<R> command, Duration timeout) throws MiException {
        return command.result(execute(command, timeout));
    }

    /** Sends and waits with the default time-out; {@code ^error} throws. */
    public MiResponse execute(MiCommand<?> command) throws MiException {
        return execute(command.text());
    }

    /** Sends and waits; {@code ^error} throws {@link MiException} with GDB's message. */
    public MiResponse execute(MiCommand<?> command, Duration timeout) throws MiException {
        return execute(command.text(), timeout);
    }

    /** Sends and waits; returns {@code ^error} responses instead of throwing. */
    public MiResponse executeAllowError(MiCommand<?> command, Duration timeout) throws MiException {
        return executeAllowError(command.text(), timeout);
    }

    /** Sends and waits with the default time-out; {@code ^error} throws. */
    public MiResponse execute(String command) throws MiException {
        return execute(command, options.defaultTimeout());
    }

    /** Sends and waits; {@code ^error} throws {@link MiException} with GDB's message. */
    public MiResponse execute(String command, Duration timeout) throws MiException {
        MiResponse r = executeAllowError(command, timeout);
        if (r.isError()) {
            throw new MiException(command, r.errorMessage());
        }
        return r;
    }

    /** Sends and waits; returns {@code ^error} responses instead of throwing. */
    public MiResponse executeAllowError(String command, Duration timeout) throws MiException {
        CompletableFuture<MiResponse> f = send(command);
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new MiException.Timeout(command, "gdb did not answer within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof MiException m) {
                throw m;
            }
            throw new MiException(command, String.valueOf(c), c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MiException(command, "interrupted", e);
        }
    }

    private void readLoop() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.ISO_8859_1), 1 << 16)) {
            String line;
            while ((line = r.readLine()) != null) {
                transcript(line);
                MiRecord rec;
                try {
                    rec = MiParser.parse(line);
                } catch (MiParseException e) {
                    // never lose the session over one odd line: keep it as text
                    rec = new MiRecord.Other(MiParser.decodeOther(line));
                }
                dispatch(rec);
            }
        } catch (IOException e) {
            // gdb's stdout closed: the process is ending
        } finally {
            int status;
            try {
                status = process.waitFor();
            } catch (InterruptedException e) {
                status = -1;
            }
            exited.complete(status);
            for (Long t : List.copyOf(pending.keySet())) {
                Pending p = pending.remove(t);
                if (p != null) {
                    p.future().completeExceptionally(new MiException(p.command(),
                            "gdb exited (status " + status + ") before answering" + stderrSuffix()));
                }
            }
            fire(new GdbEvent.GdbExited(status));
        }
    }

    private void dispatch(MiRecord rec) {
        if (rec instanceof MiRecord.Result res) {
            String con;
            String lg;
            synchronized (console) {
                con = console.toString();
                lg = log.toString();
                console.setLength(0);
                log.setLength(0);
            }
            Pending p = res.token() == null ? null : pending.remove(res.token());
            if (p != null) {
                if (res.resultClass().equals("running")) {
                    running = true;
                }
                p.future().complete(new MiResponse(res, con, lg));
            }
        } else if (rec instanceof MiRecord.Stream st) {
            synchronized (console) {
                (st.kind() == MiRecord.StreamKind.LOG ? log : console).append(st.text());
            }
            for (Consumer<MiRecord.Stream> l : streamListeners) {
                try {
                    l.accept(st);
                } catch (RuntimeException ex) {
                    // a listener's bug must not stop the reader
                }
            }
        } else if (rec instanceof MiRecord.Async a) {
            GdbEvent e = GdbEvent.of(a);
            if (e instanceof GdbEvent.Running) {
                running = true;
            } else if (e instanceof GdbEvent.Stopped) {
                running = false;
            } else if (e instanceof GdbEvent.ProcessChanged pc) {
                inferiorPid = pc.started() ? pc.pid() : null;
                if (!pc.started()) {
                    running = false;
                }
            }
            fire(e);
        }
    }

    private void fire(GdbEvent e) {
        for (Consumer<GdbEvent> l : listeners) {
            try {
                l.accept(e);
            } catch (RuntimeException ex) {
                // a listener's bug must not stop the reader
            }
        }
    }

    private void readStderr() {
        try (InputStream in = process.getErrorStream()) {
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) > 0) {
                synchronized (stderrTail) {
                    stderrTail.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                    if (stderrTail.length() > 4096) {
                        stderrTail.delete(0, stderrTail.length() - 4096);
                    }
                }
            }
        } catch (IOException e) {
            // gone
        }
    }

    private String stderrSuffix() {
        synchronized (stderrTail) {
            String s = stderrTail.toString().strip();
            return s.isEmpty() ? "" : "; gdb's stderr: " + s;
        }
    }

    private void transcript(String line) {
        Consumer<String> t = options.transcript();
        if (t != null) {
            t.accept(line);
        }
    }

    /** A future completed with gdb's exit status when the process has ended. */
    public CompletableFuture<Integer> exitFuture() {
        return exited;
    }

    /**
     * Ends the session: interrupts a running inferior, detaches from it (or kills it with
     * {@code killOnClose}), asks gdb to exit, kills it after the time-out and reaps it.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Duration t = Duration.ofSeconds(5);
        try {
            if (process.isAlive() && inferiorPid != null) {
                if (running) {
                    CompletableFuture<GdbEvent.Stopped> stop = expect(GdbEvent.Stopped.class, s -> true);
                    executeAllowError(MiExecInterrupt.all(), t);
                    try {
                        await(stop, t, "stop after interrupt");
                    } catch (MiException e) {
                        // fall through: detach/kill will say what is wrong
                    }
                }
                if (inferiorPid != null) {
                    executeAllowError(options.killOnClose() ? new CliKill() : new MiTargetDetach(), t);
                }
            }
            if (process.isAlive()) {
                send(new MiGdbExit());
            }
        } catch (MiException | RuntimeException e) {
            // we are closing anyway; the process is killed below if it did not exit
        }
        try {
            stdin.close();
        } catch (IOException ignored) {
            // gone already
        }
        try {
            if (!process.waitFor(t.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroy();
                if (!process.waitFor(2, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            }
            reader.join(2000);
            errReader.join(2000);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
