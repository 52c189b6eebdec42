package dev.mana.coordinator;

import dev.mana.coordinator.protocol.Protocol;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where a client finds the coordinator: host, port and secret, resolved as §2 of the protocol says,
 * field by field: explicit values; the environment ({@code MANA_COORD_HOST}, {@code MANA_COORD_PORT},
 * {@code MANA_COORD_SECRET}, with {@code DMTCP_COORD_HOST}/{@code DMTCP_COORD_PORT} as aliases); the
 * status file ({@code $MANA_RC}, else {@code ~/.mana.rc} or {@code ~/.mana-slurm-$SLURM_JOB_ID.rc});
 * then {@code localhost:7779} with no secret.
 *
 * @param source what the address came from, for messages ("flags", "environment", a file path, "default")
 */
public record CoordinatorAddress(String host, int port, String secret, String source) {

    public CoordinatorAddress {
        if (host == null || host.isBlank()) host = "localhost";
        if (secret == null) secret = "";
    }

    public static CoordinatorAddress of(String host, int port, String secret) {
        return new CoordinatorAddress(host, port, secret, "explicit");
    }

    /** Resolves from the process environment and the user's home. */
    public static CoordinatorAddress resolve(String explicitHost, Integer explicitPort) throws CoordinatorException {
        Map<String, String> env = System.getenv();
        return resolve(explicitHost, explicitPort, env, StatusFile.userHome(env));
    }

    public static CoordinatorAddress resolve(String explicitHost, Integer explicitPort, Map<String, String> env,
                                             Path home) throws CoordinatorException {
        String host = blankToNull(explicitHost);
        Integer port = explicitPort;
        String source = host != null || port != null ? "flags" : null;

        String envHost = firstSet(env, "MANA_COORD_HOST", "DMTCP_COORD_HOST");
        String envPort = firstSet(env, "MANA_COORD_PORT", "DMTCP_COORD_PORT");
        String secret = blankToNull(env.get("MANA_COORD_SECRET"));
        if (host == null && envHost != null) { host = envHost; source = source == null ? "environment" : source; }
        if (port == null && envPort != null) {
            try {
                port = Integer.parseInt(envPort.trim());
            } catch (NumberFormatException e) {
                throw new CoordinatorException("bad coordinator port in the environment: " + envPort);
            }
            source = source == null ? "environment" : source;
        }
        if (host == null || port == null || secret == null) {
            Path rc = StatusFile.clientPath(env, home);
            if (Files.isRegularFile(rc)) {
                StatusFile sf;
                try {
                    sf = StatusFile.read(rc);
                } catch (IOException e) {
                    throw new CoordinatorException("cannot read " + rc + ": " + e.getMessage(), null, e);
                }
                if (host == null && !sf.host().isEmpty()) { host = sf.host(); source = source == null ? rc.toString() : source; }
                if (port == null && sf.port() > 0) { port = sf.port(); source = source == null ? rc.toString() : source; }
                if (secret == null && !sf.secret().isEmpty()) secret = sf.secret();
            } else if (env.get("MANA_RC") != null && !env.get("MANA_RC").isBlank()) {
                throw new CoordinatorException("MANA_RC names " + rc + ", which does not exist");
            }
        }
        return new CoordinatorAddress(host == null ? "localhost" : host, port == null ? Protocol.DEFAULT_PORT : port,
                secret == null ? "" : secret, source == null ? "default" : source);
    }

    private static String firstSet(Map<String, String> env, String... names) {
        for (String n : names) {
            String v = blankToNull(env.get(n));
            if (v != null) return v;
        }
        return null;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    @Override public String toString() { return host + ":" + port; }
}
