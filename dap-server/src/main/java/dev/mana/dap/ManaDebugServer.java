package dev.mana.dap;

import dev.mana.dap.session.LaunchSpec;
import dev.mana.dap.session.RankSession;
import dev.mana.dap.session.Sessions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.eclipse.lsp4j.debug.Breakpoint;
import org.eclipse.lsp4j.debug.Capabilities;
import org.eclipse.lsp4j.debug.ConfigurationDoneArguments;
import org.eclipse.lsp4j.debug.ContinueArguments;
import org.eclipse.lsp4j.debug.ContinueResponse;
import org.eclipse.lsp4j.debug.DisconnectArguments;
import org.eclipse.lsp4j.debug.EvaluateArguments;
import org.eclipse.lsp4j.debug.EvaluateResponse;
import org.eclipse.lsp4j.debug.InitializeRequestArguments;
import org.eclipse.lsp4j.debug.NextArguments;
import org.eclipse.lsp4j.debug.OutputEventArguments;
import org.eclipse.lsp4j.debug.PauseArguments;
import org.eclipse.lsp4j.debug.Scope;
import org.eclipse.lsp4j.debug.ScopesArguments;
import org.eclipse.lsp4j.debug.ScopesResponse;
import org.eclipse.lsp4j.debug.SetBreakpointsArguments;
import org.eclipse.lsp4j.debug.SetBreakpointsResponse;
import org.eclipse.lsp4j.debug.SetExceptionBreakpointsArguments;
import org.eclipse.lsp4j.debug.SetExceptionBreakpointsResponse;
import org.eclipse.lsp4j.debug.SetFunctionBreakpointsArguments;
import org.eclipse.lsp4j.debug.SetFunctionBreakpointsResponse;
import org.eclipse.lsp4j.debug.SetVariableArguments;
import org.eclipse.lsp4j.debug.SetVariableResponse;
import org.eclipse.lsp4j.debug.StackTraceArguments;
import org.eclipse.lsp4j.debug.StackTraceResponse;
import org.eclipse.lsp4j.debug.StepInArguments;
import org.eclipse.lsp4j.debug.StepOutArguments;
import org.eclipse.lsp4j.debug.TerminateArguments;
import org.eclipse.lsp4j.debug.Thread;
import org.eclipse.lsp4j.debug.ThreadsResponse;
import org.eclipse.lsp4j.debug.Variable;
import org.eclipse.lsp4j.debug.VariablesArguments;
import org.eclipse.lsp4j.debug.VariablesResponse;
import org.eclipse.lsp4j.debug.services.IDebugProtocolClient;
import org.eclipse.lsp4j.debug.services.IDebugProtocolServer;
import org.eclipse.lsp4j.jsonrpc.ResponseErrorException;
import org.eclipse.lsp4j.jsonrpc.messages.ResponseError;
import org.eclipse.lsp4j.jsonrpc.messages.ResponseErrorCode;

/**
 * The DAP front of {@code mana-dap}: one instance per client connection, debugging one rank. It checks
 * and unpacks requests and hands them to the {@link RankSession} of the rank; the work itself (gdb,
 * the runtime's commands) lives in {@code dev.mana.dap.session}.
 *
 * <p>Every request runs on one worker thread, in arrival order, as do the session's gdb events: LSP4J
 * reads messages on its own thread, which must not wait for gdb, and a client expects a {@code stopped}
 * event that gdb sent before a response to come before that response.
 *
 * <p>The order of a session, as DAP has it: {@code initialize}; {@code launch} or {@code attach} (the
 * rank is started and attached, stopped); the {@code initialized} event; breakpoints;
 * {@code configurationDone} (the rank goes, its restart pause released); ...; {@code disconnect}.
 */
public final class ManaDebugServer implements IDebugProtocolServer {
    private final Path defaultRoot;
    private final ExecutorService worker;
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private volatile IDebugProtocolClient client;
    // worker thread only
    private RankSession session;
    private LaunchSpec spec;
    private int lineBase = 1;

    /** @param defaultRoot the MANA installation ({@code bin/mana_restart}...) unless a launch names another */
    public ManaDebugServer(Path defaultRoot) {
        this.defaultRoot = defaultRoot;
        this.worker = Executors.newSingleThreadExecutor(r -> {
            java.lang.Thread t = new java.lang.Thread(r, "mana-dap-worker");
            t.setDaemon(true);
            return t;
        });
    }

    /** The client's side of the connection (LSP4J's remote proxy): events go there. */
    public void connect(IDebugProtocolClient client) {
        this.client = client;
    }

    /** Completes when the client has disconnected (or the connection ended). */
    public CompletableFuture<Void> ended() {
        return ended;
    }

    // ---- requests -------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Capabilities> initialize(InitializeRequestArguments args) {
        if (args != null && Boolean.FALSE.equals(args.getLinesStartAt1())) {
            lineBase = 0; // read by the worker later: the executor's hand-off orders it
        }
        Capabilities c = new Capabilities();
        c.setSupportsConfigurationDoneRequest(true);
        c.setSupportsFunctionBreakpoints(true);
        c.setSupportsConditionalBreakpoints(true);
        c.setSupportsHitConditionalBreakpoints(true);
        c.setSupportsEvaluateForHovers(true);
        c.setSupportsTerminateRequest(true);
        c.setSupportTerminateDebuggee(true);
        c.setSupportsSteppingGranularity(true);
        c.setSupportsDelayedStackTraceLoading(true);
        c.setSupportsSetVariable(true);
        return CompletableFuture.completedFuture(c);
    }

    @Override
    public CompletableFuture<Void> launch(Map<String, Object> args) {
        return startSession("launch", args, false);
    }

    @Override
    public CompletableFuture<Void> attach(Map<String, Object> args) {
        return startSession("attach", args, true);
    }

    private CompletableFuture<Void> startSession(String request, Map<String, Object> args, boolean attach) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        try {
            worker.execute(() -> {
                try {
                    if (session != null) {
                        throw new IllegalStateException("this connection debugs rank " + session.rank() + " already");
                    }
                    LaunchSpec s = attach ? LaunchSpec.forAttach(args, defaultRoot) : LaunchSpec.forLaunch(args, defaultRoot);
                    session = Sessions.open(s, client, worker, lineBase, this::output);
                    spec = s;
                    session.start();
                    // completing sends the response (LSP4J answers inside complete()); then the client may
                    // configure: breakpoints go into the gdb attached above, before the rank runs
                    f.complete(null);
                    client.initialized();
                } catch (Exception e) {
                    f.completeExceptionally(error(request, e));
                }
            });
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(error(request, new IllegalStateException("the adapter is shutting down")));
        }
        return f;
    }

    @Override
    public CompletableFuture<SetBreakpointsResponse> setBreakpoints(SetBreakpointsArguments args) {
        return onWorker("setBreakpoints", () -> {
            String path = args.getSource() == null ? null : args.getSource().getPath();
            if (path == null) {
                throw new IllegalArgumentException("a breakpoint needs a source with a path");
            }
            List<Breakpoint> bs = session().setBreakpoints(path, args.getBreakpoints());
            SetBreakpointsResponse r = new SetBreakpointsResponse();
            r.setBreakpoints(bs.toArray(new Breakpoint[0]));
            return r;
        });
    }

    @Override
    public CompletableFuture<SetFunctionBreakpointsResponse> setFunctionBreakpoints(SetFunctionBreakpointsArguments args) {
        return onWorker("setFunctionBreakpoints", () -> {
            List<Breakpoint> bs = session().setFunctionBreakpoints(args.getBreakpoints());
            SetFunctionBreakpointsResponse r = new SetFunctionBreakpointsResponse();
            r.setBreakpoints(bs.toArray(new Breakpoint[0]));
            return r;
        });
    }

    /** No exception filters are offered; clients send this anyway (VS Code does): an empty answer. */
    @Override
    public CompletableFuture<SetExceptionBreakpointsResponse> setExceptionBreakpoints(SetExceptionBreakpointsArguments args) {
        return CompletableFuture.completedFuture(new SetExceptionBreakpointsResponse());
    }

    @Override
    public CompletableFuture<Void> configurationDone(ConfigurationDoneArguments args) {
        return onWorker("configurationDone", () -> {
            session().configurationDone(spec.stopOnEntry());
            return null;
        });
    }

    @Override
    public CompletableFuture<ThreadsResponse> threads() {
        return onWorker("threads", () -> {
            ThreadsResponse r = new ThreadsResponse();
            r.setThreads(session().threads().toArray(new Thread[0]));
            return r;
        });
    }

    @Override
    public CompletableFuture<StackTraceResponse> stackTrace(StackTraceArguments args) {
        return onWorker("stackTrace", () -> session().stackTrace(args.getThreadId(), args.getStartFrame(), args.getLevels()));
    }

    @Override
    public CompletableFuture<ScopesResponse> scopes(ScopesArguments args) {
        return onWorker("scopes", () -> {
            ScopesResponse r = new ScopesResponse();
            r.setScopes(session().scopes(args.getFrameId()).toArray(new Scope[0]));
            return r;
        });
    }

    @Override
    public CompletableFuture<VariablesResponse> variables(VariablesArguments args) {
        return onWorker("variables", () -> {
            VariablesResponse r = new VariablesResponse();
            r.setVariables(session().variables(args.getVariablesReference(), args.getStart(), args.getCount())
                    .toArray(new Variable[0]));
            return r;
        });
    }

    @Override
    public CompletableFuture<SetVariableResponse> setVariable(SetVariableArguments args) {
        return onWorker("setVariable", () -> session().setVariable(args.getVariablesReference(), args.getName(),
                args.getValue()));
    }

    @Override
    public CompletableFuture<EvaluateResponse> evaluate(EvaluateArguments args) {
        return onWorker("evaluate", () -> session().evaluate(args.getExpression(), args.getFrameId(), args.getContext()));
    }

    @Override
    public CompletableFuture<ContinueResponse> continue_(ContinueArguments args) {
        return onWorker("continue", () -> {
            session().continueAll();
            ContinueResponse r = new ContinueResponse();
            r.setAllThreadsContinued(true); // all-stop: every thread of the rank runs
            return r;
        });
    }

    @Override
    public CompletableFuture<Void> next(NextArguments args) {
        return onWorker("next", () -> {
            session().next(args.getThreadId(), args.getGranularity());
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> stepIn(StepInArguments args) {
        return onWorker("stepIn", () -> {
            session().stepIn(args.getThreadId(), args.getGranularity());
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> stepOut(StepOutArguments args) {
        return onWorker("stepOut", () -> {
            session().stepOut(args.getThreadId());
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> pause(PauseArguments args) {
        return onWorker("pause", () -> {
            session().pause();
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> terminate(TerminateArguments args) {
        return onWorker("terminate", () -> {
            session().terminate();
            return null;
        });
    }

    /**
     * Detaches and leaves the rank running, unless the client asks to terminate it
     * ({@code terminateDebuggee}): a rank is part of a job, and killing it is never the quiet default.
     */
    @Override
    public CompletableFuture<Void> disconnect(DisconnectArguments args) {
        CompletableFuture<Void> f = onWorker("disconnect", () -> {
            if (session != null) {
                session.disconnect(args != null && Boolean.TRUE.equals(args.getTerminateDebuggee()));
            }
            return null;
        });
        f.whenComplete((v, t) -> {
            ended.complete(null);
            worker.shutdown();
        });
        return f;
    }

    /** The connection ended without a disconnect (the client died): detach, as a disconnect would. */
    public void connectionClosed() {
        try {
            worker.execute(() -> {
                if (session != null) {
                    session.disconnect(false);
                }
            });
            worker.shutdown();
        } catch (RejectedExecutionException e) {
            // disconnected already
        }
        ended.complete(null);
    }

    // ---- helpers --------------------------------------------------------------------------------

    private RankSession session() {
        if (session == null) {
            throw new IllegalStateException("no rank yet: launch or attach first");
        }
        return session;
    }

    private void output(String category, String text) {
        IDebugProtocolClient c = client;
        if (c != null) {
            OutputEventArguments a = new OutputEventArguments();
            a.setCategory(category);
            a.setOutput(text);
            c.output(a);
        }
    }

    /** Work that may throw anything checked. */
    @FunctionalInterface
    private interface Job<T> {
        T run() throws Exception;
    }

    private <T> CompletableFuture<T> onWorker(String request, Job<T> job) {
        CompletableFuture<T> f = new CompletableFuture<>();
        try {
            worker.execute(() -> {
                try {
                    f.complete(job.run());
                } catch (Exception e) {
                    f.completeExceptionally(error(request, e));
                }
            });
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(error(request, new IllegalStateException("the session has ended")));
        }
        return f;
    }

    /** An error response whose message the client shows: the cause in one line, without a stack. */
    private static ResponseErrorException error(String request, Exception e) {
        String msg = e.getMessage() == null ? e.toString() : e.getMessage();
        ResponseErrorCode code = e instanceof IllegalArgumentException ? ResponseErrorCode.InvalidParams
                : ResponseErrorCode.InternalError;
        return new ResponseErrorException(new ResponseError(code, request + ": " + msg, null));
    }
}
