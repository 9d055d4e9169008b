package dev.trainyard.gitops.leaks;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Text in UTF-16 or UTF-32, as Windows editors and PowerShell's {@code Out-File} write it: a key's
 * ASCII characters are then interleaved with NUL bytes and no byte-wise search finds them.
 * Recognised by a byte order mark (Unicode 15, §23.8: {@code FE FF}, {@code FF FE}, {@code 00 00 FE
 * FF}, {@code FF FE 00 00}), or without one by the NUL pattern of mostly-ASCII text: in the first
 * {@value #SAMPLE} bytes, at least 90% of the positions that hold the high bytes of each code unit
 * are NUL and at most 10% of the low bytes are. Random or binary bytes (DER, ciphertext) do not
 * have that pattern.
 *
 * <p>UTF-8 and the single-byte code pages (ISO-8859-x, Windows-125x) need no decoding: a key's
 * characters are ASCII there, byte for byte. Out of scope, and not found: keys inside compressed or
 * archived data (gzip, zip, a base64 of either), encrypted data, or other text encodings (hex,
 * base32, quoted-printable, UTF-7, EBCDIC); such files do not belong in a GitOps tree Argo CD or
 * Flux applies.
 */
final class WideText {
  /** Bytes inspected for the NUL pattern: enough for a YAML header, cheap for a large binary. */
  static final int SAMPLE = 4096;

  private static final Charset UTF_32BE = Charset.forName("UTF-32BE");
  private static final Charset UTF_32LE = Charset.forName("UTF-32LE");

  /** Decoded text and the name of the encoding it was in, e.g. {@code UTF-16LE}. */
  record Decoded(String encoding, String text) {}

  private WideText() {}

  /**
   * The decoded text of {@code b} (byte order mark dropped) when it is UTF-16 or UTF-32, else
   * empty.
   */
  static Optional<Decoded> decode(byte[] b) {
    if (starts(b, 0, 0, 0xFE, 0xFF)) {
      return decoded(b, 4, UTF_32BE);
    }
    if (starts(b, 0xFF, 0xFE, 0, 0)) {
      return decoded(b, 4, UTF_32LE);
    }
    if (starts(b, 0xFE, 0xFF)) {
      return decoded(b, 2, StandardCharsets.UTF_16BE);
    }
    if (starts(b, 0xFF, 0xFE)) {
      return decoded(b, 2, StandardCharsets.UTF_16LE);
    }
    return unmarked(b);
  }

  private static Optional<Decoded> unmarked(byte[] b) {
    if (interleaved(b, 4, 0)) {
      return decoded(b, 0, UTF_32LE);
    }
    if (interleaved(b, 4, 3)) {
      return decoded(b, 0, UTF_32BE);
    }
    if (interleaved(b, 2, 0)) {
      return decoded(b, 0, StandardCharsets.UTF_16LE);
    }
    if (interleaved(b, 2, 1)) {
      return decoded(b, 0, StandardCharsets.UTF_16BE);
    }
    return Optional.empty();
  }

  /**
   * Whether code units of {@code width} bytes hold ASCII: the bytes other than the one at {@code
   * ascii} (the low byte's index in a unit: 0 little-endian, width-1 big-endian) are NUL, the low
   * byte mostly is not.
   */
  private static boolean interleaved(byte[] b, int width, int ascii) {
    int units = Math.min(b.length, SAMPLE) / width;
    if (units < 2) {
      return false;
    }
    int highNul = 0;
    int lowNul = 0;
    for (int u = 0; u < units; u++) {
      for (int i = 0; i < width; i++) {
        boolean nul = b[u * width + i] == 0;
        if (i == ascii) {
          lowNul += nul ? 1 : 0;
        } else {
          highNul += nul ? 1 : 0;
        }
      }
    }
    return highNul * 10 >= units * (width - 1) * 9 && lowNul * 10 <= units;
  }

  private static Optional<Decoded> decoded(byte[] b, int skip, Charset charset) {
    return Optional.of(new Decoded(charset.name(), new String(b, skip, b.length - skip, charset)));
  }

  private static boolean starts(byte[] b, int... prefix) {
    if (b.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if ((b[i] & 0xff) != prefix[i]) {
        return false;
      }
    }
    return true;
  }
}
