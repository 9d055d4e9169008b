package dev.trainyard.gitops.leaks;

/**
 * Private key material found in one file. Never holds the key itself: only where it starts and what
 * it is.
 *
 * @param line 1-based line where the key (or the encoded text that holds it) starts
 * @param kind what was found, e.g. {@code OpenSSH private key}
 * @param encoding how it was written, outermost first, e.g. {@code PEM}, {@code base64 → PEM},
 *     {@code DER}
 */
public record KeyFinding(int line, String kind, String encoding) {
  /** {@code OpenSSH private key (base64 → PEM)}: the words a diagnostic uses. */
  public String describe() {
    return kind + " (" + encoding + ")";
  }
}
