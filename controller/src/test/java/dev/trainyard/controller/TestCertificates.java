package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Serving certificates for 127.0.0.1 made by the real {@code openssl} CLI (as cert-manager's
 * Secrets hold them: {@code tls.crt}, {@code tls.key}), and a client TLS context trusting one.
 */
public final class TestCertificates {

  private TestCertificates() {}

  /** A self-signed P-256 certificate for IP 127.0.0.1 in {@code dir}; the key PKCS#8. */
  public static Path ec(Path dir) throws Exception {
    Files.createDirectories(dir);
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        "tls.key",
        "-out",
        "tls.crt",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1");
    return dir;
  }

  /** A self-signed RSA certificate for 127.0.0.1 in {@code dir}; the key PKCS#1. */
  public static Path rsaPkcs1(Path dir) throws Exception {
    Files.createDirectories(dir);
    openssl(dir, "genrsa", "-traditional", "-out", "tls.key", "2048");
    openssl(
        dir,
        "req",
        "-x509",
        "-key",
        "tls.key",
        "-out",
        "tls.crt",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1");
    return dir;
  }

  /** A client context trusting only {@code dir}'s {@code tls.crt}. */
  public static SSLContext trusting(Path dir) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(dir.resolve("tls.crt"))) {
      trust.setCertificateEntry(
          "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, tmf.getTrustManagers(), null);
    return tls;
  }

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    assertEquals(0, p.exitValue(), "openssl " + String.join(" ", args) + ":\n" + out);
  }
}
