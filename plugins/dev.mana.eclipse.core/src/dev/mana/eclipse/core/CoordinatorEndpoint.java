package dev.mana.eclipse.core;

import java.io.File;

/**
 * Where the ranks and the IDE find a coordinator.
 *
 * @param host host name
 * @param port TCP port
 * @param secret authentication secret (may be empty: no secret)
 * @param statusFile a status file ({@code .mana.rc} format, mode 0600) that names it, or null
 */
public record CoordinatorEndpoint(String host, int port, String secret, File statusFile) {
    @Override
    public String toString() {
        return host + ":" + port;
    }
}
