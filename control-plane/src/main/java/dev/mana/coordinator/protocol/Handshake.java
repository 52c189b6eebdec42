package dev.mana.coordinator.protocol;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The authentication of MNCP v2 (protocol §2): each side proves it knows the secret with an
 * HMAC-SHA256 over both sides' fresh nonces, so the secret never crosses the network and a proof
 * seen on the wire is worth nothing on another connection.
 *
 * <pre>
 *   client proof      = HMAC-SHA256(secret, "MNCP2 client"      || coordinator nonce || client nonce)
 *   coordinator proof = HMAC-SHA256(secret, "MNCP2 coordinator" || coordinator nonce || client nonce)
 * </pre>
 * The secret is the UTF-8 bytes of the status file's {@code Secret:} value (the empty secret is an
 * empty key: HMAC is defined for it).
 */
public final class Handshake {
    private Handshake() {}

    private static final byte[] CLIENT = "MNCP2 client".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] COORDINATOR = "MNCP2 coordinator".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A fresh random nonce. */
    public static byte[] nonce() {
        byte[] n = new byte[Protocol.NONCE_SIZE];
        RANDOM.nextBytes(n);
        return n;
    }

    /** What the client sends in AUTH. */
    public static byte[] clientProof(byte[] secret, byte[] coordinatorNonce, byte[] clientNonce) {
        return mac(secret, CLIENT, coordinatorNonce, clientNonce);
    }

    /** What the coordinator sends in AUTH_OK. */
    public static byte[] coordinatorProof(byte[] secret, byte[] coordinatorNonce, byte[] clientNonce) {
        return mac(secret, COORDINATOR, coordinatorNonce, clientNonce);
    }

    /** Constant-time comparison of a received proof with the expected one. */
    public static boolean matches(byte[] expected, byte[] received) {
        return MessageDigest.isEqual(expected, received);
    }

    public static byte[] secretBytes(String secret) {
        return (secret == null ? "" : secret).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] mac(byte[] secret, byte[] label, byte[] a, byte[] b) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            // SecretKeySpec refuses an empty key; HMAC pads any key to the block size with zeros, so a
            // single zero byte is the same key as the empty one
            m.init(new SecretKeySpec(secret.length == 0 ? new byte[1] : secret, "HmacSHA256"));
            m.update(label);
            m.update(a);
            m.update(b);
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this Java runtime", e);
        }
    }
}
