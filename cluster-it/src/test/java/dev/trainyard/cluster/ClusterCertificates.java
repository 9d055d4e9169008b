package dev.trainyard.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The test cluster's PKI, generated at test time with the {@code openssl} CLI into one directory:
 *
 * <pre>
 * ca.crt ca.key            self-signed CA, trusted by every client and by the API server for webhooks
 * apiserver.crt/.key      serving cert, SANs IP:127.0.0.1, localhost, kubernetes.default.svc
 * admin.crt/.key          client cert, O=system:masters (RBAC superuser)
 * sa.key sa.pub           service-account token signing pair
 * webhook/tls.crt/.key    serving cert for controller webhooks on 127.0.0.1 (controller-runtime cert dir)
 * </pre>
 *
 * Keys are ECDSA P-256 (RSA keygen costs seconds on a loaded 2-core box) except the admin client
 * key (RSA 2048, for any fabric8 client reading the kubeconfig); certs are valid 2 days. Source of
 * the layout: reference/k8s-test-harness.md section 5.
 *
 * @param dir directory holding the files above
 */
record ClusterCertificates(Path dir) {

  private static final String DAYS = "2";
  private static final List<String> EC =
      List.of("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1");

  /**
   * The admin key stays RSA: fabric8 7.6.1 reads PKCS#8 client keys as RSA unless told otherwise.
   */
  private static final List<String> RSA = List.of("-newkey", "rsa:2048");

  /** Generates all files; needs {@code openssl} on PATH (Debian package {@code openssl}). */
  static ClusterCertificates generate(Path dir) {
    ClusterCertificates certs = new ClusterCertificates(dir);
    certs.createAuthority();
    certs.issue(
        "apiserver",
        "/CN=kube-apiserver",
        "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,"
            + "DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local\n"
            + "extendedKeyUsage=serverAuth\n",
        EC);
    certs.issue(
        "admin", "/O=system:masters/CN=trainyard-admin", "extendedKeyUsage=clientAuth\n", RSA);
    certs.issue(
        "webhook/tls",
        "/CN=127.0.0.1",
        "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
        EC);
    certs.openssl(
        "genpkey",
        "-algorithm",
        "EC",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-out",
        "sa.key");
    certs.openssl("pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub");
    return certs;
  }

  Path file(String name) {
    return dir.resolve(name);
  }

  /**
   * Directory with {@code tls.crt} and {@code tls.key}, as controller-runtime's webhook server
   * expects.
   */
  Path webhookCertDir() {
    return dir.resolve("webhook");
  }

  /** The CA as a base64 PEM, the form {@code clientConfig.caBundle} takes. */
  String caBundle() {
    try {
      return Base64.getEncoder().encodeToString(Files.readAllBytes(file("ca.crt")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void createAuthority() {
    try {
      Files.createDirectories(webhookCertDir());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        DAYS,
        "-subj",
        "/CN=trainyard-test-ca",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt");
  }

  private void issue(String base, String subject, String extensions, List<String> keyType) {
    Path extFile = dir.resolve(base + ".ext");
    try {
      Files.writeString(extFile, extensions, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> request = new ArrayList<>(List.of("req", "-nodes", "-subj", subject));
    request.addAll(keyType);
    request.addAll(List.of("-keyout", base + ".key", "-out", base + ".csr"));
    openssl(request.toArray(String[]::new));
    openssl(
        "x509",
        "-req",
        "-in",
        base + ".csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        DAYS,
        "-extfile",
        extFile.toString(),
        "-out",
        base + ".crt");
  }

  private void openssl(String... args) {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    try {
      Process process =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(
            "openssl failed: " + String.join(" ", command) + "\n" + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run openssl (apt-get install openssl)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running openssl", e);
    }
  }
}
