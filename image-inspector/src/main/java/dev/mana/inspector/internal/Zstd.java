package dev.mana.inspector.internal;

import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.Problem;
import io.airlift.compress.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * zstd-compressed regions (docs/image-format.md, ZSTD): the payload is one or more zstd frames whose content is
 * the region's stored pages. Decoded by aircompressor (a pure-Java zstd decoder from Maven Central,
 * docs/dependencies.md), never by hand.
 */
final class Zstd {
    private Zstd() {
    }

    /** Decompresses {@code in} into {@code out}; returns the bytes it held (more than out's length: corrupt). */
    static int decompress(byte[] in, byte[] out) throws ImageException {
        try (InputStream z = new ZstdInputStream(new ByteArrayInputStream(in))) {
            int n = 0;
            while (n < out.length) {
                int r = z.read(out, n, out.length - n);
                if (r < 0) {
                    return n;
                }
                n += r;
            }
            return z.read() < 0 ? n : n + 1;
        } catch (IOException | RuntimeException e) {
            throw Fail.corrupt("compressed payload: %s", e.getMessage());
        }
    }

    /**
     * The verifier's extent for a compressed payload [s, e): its bytes are collected as they stream by, then
     * decompressed; the content must be {@code stored} bytes whose CRC-32C is {@code expect}.
     */
    static SequentialVerifier.Extent crcExtent(long s, long e, long expect, long stored, String what, int region,
                                               List<Problem> problems) {
        return new SequentialVerifier.Extent(s, e) {
            final ByteArrayOutputStream buf = new ByteArrayOutputStream((int) Math.min(e - s, 1 << 20));
            boolean tooBig = e - s > Integer.MAX_VALUE - 8;

            @Override
            void accept(long pos, ByteBuffer piece) {
                if (tooBig) {
                    return;
                }
                byte[] b = new byte[piece.remaining()];
                piece.duplicate().get(b);
                buf.write(b, 0, b.length);
            }

            @Override
            void finish() {
                if (tooBig) {
                    problems.add(new Problem(ErrorKind.UNSUPPORTED, what + ": a compressed payload of more than 2 GiB is "
                            + "not checked by this reader", region));
                    return;
                }
                CRC32C crc = new CRC32C();
                long n = 0;
                byte[] out = new byte[1 << 20];
                try (InputStream z = new ZstdInputStream(new ByteArrayInputStream(buf.toByteArray()))) {
                    for (int r; (r = z.read(out)) >= 0;) {
                        crc.update(out, 0, r);
                        n += r;
                    }
                } catch (IOException | RuntimeException ex) {
                    problems.add(new Problem(ErrorKind.CORRUPT, what + ": compressed payload: " + ex.getMessage(), region));
                    return;
                } catch (NoClassDefFoundError ex) {
                    problems.add(new Problem(ErrorKind.UNSUPPORTED, what + ": zstd-compressed, and the zstd library "
                            + "(aircompressor) is not on the class path", region));
                    return;
                }
                if (n != stored) {
                    problems.add(new Problem(ErrorKind.CORRUPT, String.format(
                            "%s: the compressed payload holds %d bytes, stored_bytes is %d", what, n, stored), region));
                } else if (crc.getValue() != expect) {
                    problems.add(new Problem(ErrorKind.CORRUPT, String.format(
                            "%s: checksum mismatch (stored 0x%08x, computed 0x%08x)", what, expect, crc.getValue()), region));
                }
            }
        };
    }
}
