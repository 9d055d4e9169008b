package dev.trainyard.controller;

import dev.trainyard.controller.forge.GitHubApp;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.function.LongSupplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The progress endpoint's TLS certificate: {@code tls.crt} (PEM, the leaf first, then any
 * intermediates) and {@code tls.key} (PEM, PKCS#8 {@code PRIVATE KEY} of RSA, EC or Ed25519, or
 * PKCS#1 {@code RSA PRIVATE KEY}) in one folder, the layout of a {@code kubernetes.io/tls} Secret
 * mounted as a volume (cert-manager writes it). Read again, for new handshakes, when either file
 * changes (checked at most every {@link #RECHECK_NANOS} ns), so a rotated certificate is served
 * without a restart; an unreadable new pair keeps the old one.
 */
final class ServingCertificate extends X509ExtendedKeyManager {

  static final long RECHECK_NANOS = 30_000_000_000L;
  private final Path folder;
  private final LongSupplier nanoTime;
  private volatile X509ExtendedKeyManager current;
  private volatile String stamp;
  private volatile long checked;

  /**
   * Reads the pair in {@code folder}.
   *
   * @throws UncheckedIOException "cannot read the progress endpoint's certificate in FOLDER: …"
   */
  ServingCertificate(Path folder, LongSupplier nanoTime) {
    this.folder = folder;
    this.nanoTime = nanoTime;
    this.current = read(folder);
    this.stamp = stamp(folder);
    this.checked = nanoTime.getAsLong();
  }

  /** A TLS context serving this certificate, re-read as the files change. */
  SSLContext context() {
    try {
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(new KeyManager[] {this}, null, null);
      return tls;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no TLS", e);
    }
  }

  private X509ExtendedKeyManager keys() {
    long now = nanoTime.getAsLong();
    if (now - checked >= RECHECK_NANOS) {
      checked = now;
      String seen = stamp(folder);
      if (!seen.equals(stamp)) {
        try {
          current = read(folder);
          stamp = seen;
        } catch (UncheckedIOException e) {
          System.getLogger(ServingCertificate.class.getName())
              .log(System.Logger.Level.WARNING, e.getMessage() + "; keeping the previous one");
        }
      }
    }
    return current;
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return keys().chooseEngineServerAlias(keyType, issuers, engine);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return keys().chooseServerAlias(keyType, issuers, socket);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return keys().getServerAliases(keyType, issuers);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return current.getCertificateChain(alias);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return current.getPrivateKey(alias);
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return new String[0];
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return null;
  }

  /** The files' modification times: a Secret volume's update swaps them. */
  private static String stamp(Path folder) {
    try {
      return Files.getLastModifiedTime(folder.resolve("tls.crt"))
          + "/"
          + Files.getLastModifiedTime(folder.resolve("tls.key"));
    } catch (IOException e) {
      return "";
    }
  }

  static X509ExtendedKeyManager read(Path folder) {
    try {
      List<? extends Certificate> chain =
          List.copyOf(
              CertificateFactory.getInstance("X.509")
                  .generateCertificates(
                      new ByteArrayInputStream(Files.readAllBytes(folder.resolve("tls.crt")))));
      if (chain.isEmpty()) {
        throw new GeneralSecurityException("tls.crt holds no certificate");
      }
      PrivateKey key = key(Files.readString(folder.resolve("tls.key"), StandardCharsets.US_ASCII));
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] none = new char[0];
      store.setKeyEntry("progress", key, none, chain.toArray(Certificate[]::new));
      KeyManagerFactory keys = KeyManagerFactory.getInstance("SunX509");
      keys.init(store, none);
      return (X509ExtendedKeyManager) keys.getKeyManagers()[0];
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      throw new UncheckedIOException(
          new IOException(
              "cannot read the progress endpoint's certificate in "
                  + folder
                  + " (tls.crt and tls.key, PEM): "
                  + e.getMessage(),
              e));
    }
  }

  /** The private key in PEM {@code text}. */
  static PrivateKey key(String text) throws GeneralSecurityException {
    byte[] der;
    if (text.contains("-----BEGIN PRIVATE KEY-----")) {
      der = body(text, "PRIVATE KEY");
    } else if (text.contains("-----BEGIN RSA PRIVATE KEY-----")) {
      der = GitHubApp.pkcs8(body(text, "RSA PRIVATE KEY"));
    } else {
      throw new GeneralSecurityException(
          "tls.key is neither PKCS#8 (BEGIN PRIVATE KEY) nor PKCS#1 RSA (BEGIN RSA PRIVATE KEY);"
              + " convert it with `openssl pkcs8 -topk8 -nocrypt`, or set cert-manager's"
              + " privateKey.encoding: PKCS8");
    }
    GeneralSecurityException last = null;
    for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw new GeneralSecurityException("tls.key is not an RSA, EC or Ed25519 key", last);
  }

  private static byte[] body(String text, String label) {
    String begin = "-----BEGIN " + label + "-----";
    int from = text.indexOf(begin) + begin.length();
    int to = text.indexOf("-----END " + label + "-----", from);
    if (to < 0) {
      throw new IllegalArgumentException("tls.key has no END " + label + " line");
    }
    return Base64.getMimeDecoder().decode(text.substring(from, to));
  }
}
