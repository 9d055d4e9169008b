package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.forge.GitHubApp;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The endpoint's certificate as cert-manager and openssl write it, and its rotation. */
class ServingCertificateTest {

  @TempDir Path dir;

  static String serial(ServingCertificate c) {
    X509Certificate[] chain =
        c.getCertificateChain(
            c.chooseServerAlias("EC", null, null) == null
                ? c.chooseServerAlias("RSA", null, null)
                : c.chooseServerAlias("EC", null, null));
    return chain[0].getSerialNumber().toString(16);
  }

  @Test
  @DisplayName("a PKCS#8 EC key and a PKCS#1 RSA key are both served")
  void keyFormats() throws Exception {
    Path ec = TestCertificates.ec(dir.resolve("ec"));
    assertTrue(Files.readString(ec.resolve("tls.key")).contains("BEGIN PRIVATE KEY"));
    ServingCertificate e = new ServingCertificate(ec, () -> 0L);
    assertEquals("EC", e.getPrivateKey(e.chooseServerAlias("EC", null, null)).getAlgorithm());
    Path rsa = TestCertificates.rsaPkcs1(dir.resolve("rsa"));
    assertTrue(Files.readString(rsa.resolve("tls.key")).contains("BEGIN RSA PRIVATE KEY"));
    ServingCertificate r = new ServingCertificate(rsa, () -> 0L);
    String alias = r.chooseServerAlias("RSA", null, null);
    assertEquals("RSA", r.getPrivateKey(alias).getAlgorithm());
    assertEquals(1, r.getCertificateChain(alias).length);
    assertEquals(1, r.getServerAliases("RSA", null).length);
    assertEquals(0, r.getClientAliases("RSA", null).length);
    assertNull(r.chooseClientAlias(new String[] {"RSA"}, null, null));
    SSLContext tls = r.context();
    assertEquals("TLS", tls.getProtocol());
  }

  @Test
  @DisplayName(
      "a new pair in the folder is served after the next check; an unreadable one keeps the old")
  void rotation() throws Exception {
    Path live = TestCertificates.ec(dir.resolve("live"));
    Path next = TestCertificates.ec(dir.resolve("next"));
    AtomicLong nanos = new AtomicLong(5_000_000_000_000L);
    ServingCertificate c = new ServingCertificate(live, nanos::get);
    String first = serial(c);
    for (String f : new String[] {"tls.crt", "tls.key"}) {
      Files.copy(next.resolve(f), live.resolve(f), StandardCopyOption.REPLACE_EXISTING);
      Files.setLastModifiedTime(live.resolve(f), FileTime.fromMillis(1_000_000));
    }
    nanos.addAndGet(ServingCertificate.RECHECK_NANOS - 1);
    assertEquals(first, serial(c), "not checked before RECHECK_NANOS");
    nanos.addAndGet(1);
    String second = serial(c);
    assertNotEquals(first, second);
    Files.writeString(live.resolve("tls.key"), "garbage");
    Files.setLastModifiedTime(live.resolve("tls.key"), FileTime.fromMillis(2_000_000));
    nanos.addAndGet(ServingCertificate.RECHECK_NANOS);
    assertEquals(second, serial(c), "an unreadable pair keeps the served one");
  }

  @Test
  @DisplayName(
      "a missing file, a SEC1 EC key or no certificate: one message naming the folder and the fix")
  void unreadable() throws Exception {
    Path ec = TestCertificates.ec(dir.resolve("sec1"));
    UncheckedIOException missing =
        assertThrows(
            UncheckedIOException.class,
            () -> new ServingCertificate(dir.resolve("none"), () -> 0L));
    assertTrue(
        missing
            .getMessage()
            .startsWith(
                "java.io.IOException: cannot read the progress endpoint's certificate in "
                    + dir.resolve("none")),
        missing.getMessage());
    Files.writeString(
        ec.resolve("tls.key"),
        "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n");
    UncheckedIOException sec1 =
        assertThrows(UncheckedIOException.class, () -> new ServingCertificate(ec, () -> 0L));
    assertTrue(sec1.getMessage().contains("openssl pkcs8 -topk8 -nocrypt"), sec1.getMessage());
    Files.writeString(ec.resolve("tls.key"), "-----BEGIN PRIVATE KEY-----\nAAAA\n");
    assertTrue(
        assertThrows(UncheckedIOException.class, () -> new ServingCertificate(ec, () -> 0L))
            .getMessage()
            .contains("no END PRIVATE KEY line"));
    Files.writeString(
        ec.resolve("tls.key"), "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
    assertTrue(
        assertThrows(UncheckedIOException.class, () -> new ServingCertificate(ec, () -> 0L))
            .getMessage()
            .contains("not an RSA, EC or Ed25519 key"));
    Files.writeString(ec.resolve("tls.crt"), "");
    assertTrue(
        assertThrows(UncheckedIOException.class, () -> new ServingCertificate(ec, () -> 0L))
            .getMessage()
            .contains("tls.crt holds no certificate"));
  }

  @Test
  @DisplayName(
      "DER lengths of the PKCS#1 → PKCS#8 wrapping (GitHubApp's, which tls.key shares): short form below 128, long form with 1 to 4 length bytes")
  void der() {
    int[][] cases = {
      {1, 0x01},
      {127, 0x7f},
      {128, 0x81, 0x80},
      {200, 0x81, 200},
      {255, 0x81, 0xff},
      {256, 0x82, 0x01, 0x00},
      {300, 0x82, 0x01, 0x2c},
      {65535, 0x82, 0xff, 0xff},
      {65536, 0x83, 0x01, 0x00, 0x00},
      {70_000, 0x83, 0x01, 0x11, 0x70},
      {0xffffff, 0x83, 0xff, 0xff, 0xff},
      {0x1000000, 0x84, 0x01, 0x00, 0x00, 0x00},
    };
    for (int[] c : cases) {
      byte[] expected = new byte[c.length - 1];
      for (int i = 1; i < c.length; i++) {
        expected[i - 1] = (byte) c[i];
      }
      assertArrayEquals(expected, GitHubApp.length(c[0]), "n=" + c[0]);
    }
  }

  @Test
  @DisplayName("a handshake with the served context presents the folder's certificate")
  void handshake() throws Exception {
    Path ec = TestCertificates.ec(dir.resolve("hs"));
    ServingCertificate c = new ServingCertificate(ec, () -> 0L);
    try (ProgressEndpoint endpoint =
            new ProgressEndpoint(
                new InetSocketAddress("127.0.0.1", 0),
                c.context(),
                new ProgressEndpoint.Parts(
                    t -> PodTokenReview.Identity.INVALID,
                    (ns, n) -> Optional.empty(),
                    new PushedProgress(),
                    k -> {},
                    Clock.systemUTC(),
                    code -> {}));
        SSLSocket s =
            (SSLSocket)
                TestCertificates.trusting(ec)
                    .getSocketFactory()
                    .createSocket("127.0.0.1", endpoint.port())) {
      s.startHandshake();
      assertEquals(
          serial(c),
          ((X509Certificate) s.getSession().getPeerCertificates()[0])
              .getSerialNumber()
              .toString(16));
    }
  }
}
