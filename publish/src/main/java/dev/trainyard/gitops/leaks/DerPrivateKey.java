package dev.trainyard.gitops.leaks;

import java.util.Optional;

/**
 * Recognises the start of a private key in DER (binary ASN.1), as base64 of a key without its PEM
 * armor decodes to. The shapes: PKCS#8 {@code PrivateKeyInfo} (RFC 5208: SEQUENCE { INTEGER 0|1,
 * SEQUENCE AlgorithmIdentifier, OCTET STRING }), PKCS#1 {@code RSAPrivateKey} (RFC 8017 A.1.2:
 * SEQUENCE { INTEGER 0, INTEGER modulus, ... }; OpenSSL's DSA keys share the shape and are named
 * RSA) and SEC1 {@code ECPrivateKey} (RFC 5915: SEQUENCE { INTEGER 1, OCTET STRING of 24 to 66
 * bytes, ... }). Certificates and public keys start with SEQUENCE { SEQUENCE ... }, so they never
 * match. Random bytes match with odds of about 1 in 10^10 per position.
 */
final class DerPrivateKey {
  /**
   * The smallest key body: a SEC1 P-256 key without its optional fields (as the JDK writes it) has
   * 37.
   */
  private static final int MIN_CONTENT = 34;

  private static final int MAX_CONTENT = 1 << 16;

  private DerPrivateKey() {}

  /** The kind of the private key whose DER starts at {@code at} in {@code b}, if one does. */
  static Optional<String> at(byte[] b, int at) {
    if (at + 8 > b.length || b[at] != 0x30) {
      return Optional.empty();
    }
    int[] length = length(b, at + 1);
    if (length == null || length[0] < MIN_CONTENT || length[0] > MAX_CONTENT) {
      return Optional.empty();
    }
    int q = at + 1 + length[1];
    if (q + 4 > b.length || b[q] != 0x02 || b[q + 1] != 0x01 || (b[q + 2] != 0 && b[q + 2] != 1)) {
      return Optional.empty();
    }
    int version = b[q + 2];
    int next = b[q + 3] & 0xff;
    if (next == 0x30 && q + 5 < b.length && b[q + 5] == 0x06) {
      return Optional.of("PKCS#8 private key");
    }
    if (next == 0x02 && version == 0) {
      return Optional.of("RSA private key (PKCS#1)");
    }
    int secretLength = q + 4 < b.length ? b[q + 4] & 0xff : 0;
    if (next == 0x04 && version == 1 && secretLength >= 24 && secretLength <= 66) {
      return Optional.of("EC private key (SEC1)");
    }
    return Optional.empty();
  }

  /**
   * {content length, bytes of the length field} of a DER length at {@code at}, or null when
   * malformed.
   */
  private static int[] length(byte[] b, int at) {
    int first = b[at] & 0xff;
    if (first < 0x80) {
      return new int[] {first, 1};
    }
    int bytes = first & 0x7f;
    if (bytes == 0 || bytes > 2 || at + bytes >= b.length) {
      return null;
    }
    int value = 0;
    for (int i = 1; i <= bytes; i++) {
      value = (value << 8) | (b[at + i] & 0xff);
    }
    return new int[] {value, 1 + bytes};
  }
}
