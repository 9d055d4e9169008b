package dev.trainyard.compiler.secrets;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.util.List;
import java.util.Objects;

/**
 * The sealed-secrets controller's public certificate from {@code platform.yaml}, as printed by
 * {@code kubeseal --fetch-cert}: one PEM {@code CERTIFICATE} block holding an RSA key (the
 * controller makes 4096-bit keys and renews them every 30 days; any RSA size of at least 2048 bits
 * is accepted).
 *
 * <pre>
 * secrets:
 *   policy: sealed-secrets
 *   certificate: |
 *     -----BEGIN CERTIFICATE-----
 *     MIIErTCCApWgAwIBAgIQ...
 * </pre>
 *
 * @param publicKey the RSA key that wraps each value's session key
 */
public record SealingCertificate(RSAPublicKey publicKey) {
  private static final int MIN_BITS = 2048;

  public SealingCertificate {
    Objects.requireNonNull(publicKey, "publicKey");
  }

  /**
   * Parses the PEM text; a bad certificate is the platform engineer's mistake, so it is reported as
   * {@link DiagnosticCode#INVALID_PLATFORM} at {@code at}/{@code pointer}, never thrown.
   *
   * @param pem the certificate text from {@code platform.yaml}
   * @param at where the certificate's value starts in {@code platform.yaml}
   * @param pointer the JSON pointer of the field, e.g. {@code /secrets/certificate}
   */
  public static StageResult<SealingCertificate> parse(
      String pem, SourceLocation at, String pointer) {
    if (pem == null || !pem.contains("-----BEGIN CERTIFICATE-----")) {
      return problem(
          at,
          pointer,
          "the sealed-secrets certificate must be a PEM `CERTIFICATE` block, got " + excerpt(pem));
    }
    try {
      X509Certificate certificate =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(
                      new ByteArrayInputStream(pem.strip().getBytes(StandardCharsets.US_ASCII)));
      if (!(certificate.getPublicKey() instanceof RSAPublicKey key)) {
        return problem(
            at,
            pointer,
            "the sealed-secrets certificate must hold an RSA key, got "
                + certificate.getPublicKey().getAlgorithm());
      }
      if (key.getModulus().bitLength() < MIN_BITS) {
        return problem(
            at,
            pointer,
            "the sealed-secrets certificate's RSA key must have at least "
                + MIN_BITS
                + " bits, got "
                + key.getModulus().bitLength());
      }
      return StageResult.of(new SealingCertificate(key), List.of());
    } catch (CertificateException | IllegalArgumentException e) {
      return problem(at, pointer, "the sealed-secrets certificate cannot be read: " + reason(e));
    }
  }

  /**
   * What the JDK's X.509 parser found, in words: its messages name Java internals ("Unable to
   * initialize, java.io.IOException: extra data at the end").
   */
  static String reason(Exception e) {
    String said = String.valueOf(e.getMessage());
    if (said.contains("base64")) {
      return "its body holds characters that are not base64";
    }
    if (said.contains("not enough content") || said.contains("Not enough length")) {
      return "it ends before the certificate does (a truncated copy?)";
    }
    return "its body is not a DER-encoded X.509 certificate";
  }

  private static StageResult<SealingCertificate> problem(
      SourceLocation at, String pointer, String message) {
    Diagnostic diagnostic =
        Diagnostic.error(DiagnosticCode.INVALID_PLATFORM, at, pointer, message)
            .withHint(
                "paste the output of `kubeseal --fetch-cert` (the controller's current certificate)");
    return StageResult.failed(List.of(diagnostic));
  }

  private static String excerpt(String text) {
    if (text == null || text.isBlank()) {
      return "an empty value";
    }
    String line = text.strip().lines().findFirst().orElse("");
    return "`" + (line.length() > 40 ? line.substring(0, 40) + "…" : line) + "`";
  }
}
