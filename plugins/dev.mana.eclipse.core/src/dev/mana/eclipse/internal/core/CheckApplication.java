package dev.mana.eclipse.internal.core;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import org.eclipse.equinox.app.IApplication;
import org.eclipse.equinox.app.IApplicationContext;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.wiring.BundleRevision;

import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.MpiLauncher;
import dev.mana.eclipse.core.RuntimeCheck;

/**
 * {@code eclipse -application dev.mana.eclipse.core.check [-bundles] [-mpi openmpi|mpich]}: prints the
 * runtime check (what is missing: the runtime's programs, the MPI), and with {@code -bundles} checks
 * that every bundle of the installation resolved and that the MANA bundles start. Exits 0 when all is
 * well, 1 otherwise; the last line is {@code MANA CHECK: OK} or {@code MANA CHECK: FAILED}.
 */
public final class CheckApplication implements IApplication {

    @Override
    public Object start(IApplicationContext context) {
        String[] args = (String[]) context.getArguments().get(IApplicationContext.APPLICATION_ARGS);
        boolean bundles = false;
        MpiImplementation mpi = MpiImplementation.AUTO;
        for (int i = 0; args != null && i < args.length; i++) {
            if (args[i].equals("-bundles")) {
                bundles = true;
            } else if (args[i].equals("-mpi") && i + 1 < args.length) {
                mpi = MpiImplementation.fromName(args[++i]);
            }
        }
        List<String> problems = new ArrayList<>();
        if (bundles) {
            problems.addAll(checkBundles());
        }
        File rt = ManaRuntime.locate();
        RuntimeCheck check = ManaRuntime.check(rt, mpi, MpiLauncher.MPIRUN, null);
        System.out.print(check.report());
        System.out.print(dev.mana.eclipse.core.DebuggerCheck.here().report()); // warnings only: Debug mode needs it
        if (rt == null || !new File(rt, "bin/mana_launch").canExecute()) {
            problems.add("the MANA runtime is not usable: " + (check.errors().isEmpty() ? "" : check.errors().get(0)));
        }
        for (String p : problems) {
            System.out.println("Problem: " + p);
        }
        boolean ok = problems.isEmpty() && check.isOk();
        System.out.println(ok ? "MANA CHECK: OK" : "MANA CHECK: FAILED");
        return ok ? IApplication.EXIT_OK : Integer.valueOf(1);
    }

    private static List<String> checkBundles() {
        List<String> problems = new ArrayList<>();
        Bundle self = FrameworkUtil.getBundle(CheckApplication.class);
        int resolved = 0;
        int started = 0;
        for (Bundle b : self.getBundleContext().getBundles()) {
            boolean fragment = (b.adapt(BundleRevision.class).getTypes() & BundleRevision.TYPE_FRAGMENT) != 0;
            if (b.getState() == Bundle.INSTALLED) {
                problems.add("bundle " + b.getSymbolicName() + " " + b.getVersion() + " did not resolve");
                continue;
            }
            resolved++;
            if (b.getSymbolicName().startsWith("dev.mana.") && !fragment) {
                try {
                    b.start(Bundle.START_TRANSIENT);
                    if (b.getState() != Bundle.ACTIVE) {
                        problems.add("bundle " + b.getSymbolicName() + " is not active after start");
                    } else {
                        started++;
                    }
                } catch (BundleException | RuntimeException e) {
                    problems.add("bundle " + b.getSymbolicName() + " failed to start: " + e);
                }
            }
            if (b.getSymbolicName().startsWith("dev.mana.")) {
                System.out.println("MANA bundle " + b.getSymbolicName() + " " + b.getVersion() + ": "
                    + (fragment ? "fragment, resolved" : stateName(b.getState())));
            }
        }
        System.out.println("Bundles resolved: " + resolved + "; MANA bundles started: " + started);
        if (started < 3) {
            problems.add("expected the MANA bundles dev.mana.eclipse.core, dev.mana.eclipse.ui and dev.mana.coordinator "
                + "to be installed and started, started " + started);
        }
        return problems;
    }

    private static String stateName(int s) {
        return switch (s) {
            case Bundle.ACTIVE -> "active";
            case Bundle.RESOLVED -> "resolved";
            case Bundle.STARTING -> "starting";
            default -> "state " + s;
        };
    }

    @Override
    public void stop() {
        // nothing to stop
    }
}
