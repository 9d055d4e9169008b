package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
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
  @DisplayName("DER lengths: short form below 128 bytes, long form with 1 or 2 length bytes")
  void der() {
    assertArrayEquals(new byte[] {0x04, 0x01, 0x07}, ServingCertificate.der(0x04, new byte[] {7}));
    byte[] mid = ServingCertificate.der(0x30, new byte[200]);
    assertArrayEquals(new byte[] {0x30, (byte) 0x81, (byte) 200}, java.util.Arrays.copyOf(mid, 3));
    assertEquals(203, mid.length);
    byte[] big = ServingCertificate.der(0x30, new byte[300]);
    assertArrayEquals(new byte[] {0x30, (byte) 0x82, 0x01, 0x2c}, java.util.Arrays.copyOf(big, 4));
    byte[] edge = ServingCertificate.der(0x30, new byte[128]);
    assertArrayEquals(new byte[] {0x30, (byte) 0x81, (byte) 128}, java.util.Arrays.copyOf(edge, 3));
    byte[] small = ServingCertificate.der(0x30, new byte[127]);
    assertEquals(127, small[1]);
    assertArrayEquals(
        new byte[] {0x30, (byte) 0x81, (byte) 0xff},
        java.util.Arrays.copyOf(ServingCertificate.der(0x30, new byte[255]), 3));
    assertArrayEquals(
        new byte[] {0x30, (byte) 0x82, 0x01, 0x00},
        java.util.Arrays.copyOf(ServingCertificate.der(0x30, new byte[256]), 4));
    assertArrayEquals(
        new byte[] {0x30, (byte) 0x82, (byte) 0xff, (byte) 0xff},
        java.util.Arrays.copyOf(ServingCertificate.der(0x30, new byte[65535]), 4));
    assertArrayEquals(
        new byte[] {0x30, (byte) 0x83, 0x01, 0x00, 0x00},
        java.util.Arrays.copyOf(ServingCertificate.der(0x30, new byte[65536]), 5));
    assertArrayEquals(
        new byte[] {0x30, (byte) 0x83, (byte) 0xff, (byte) 0xff, (byte) 0xff},
        java.util.Arrays.copyOf(ServingCertificate.der(0x30, new byte[0xffffff]), 5));
    assertArrayEquals(
        new byte[] {0x30, (byte) 0x84, 0x01, 0x00, 0x00, 0x00},
        java.util.Arrays.copyOf(ServingCertificate.der(0x30, new byte[0x1000000]), 6));
    byte[] huge = ServingCertificate.der(0x30, new byte[70_000]);
    assertArrayEquals(
        new byte[] {0x30, (byte) 0x83, 0x01, 0x11, 0x70}, java.util.Arrays.copyOf(huge, 5));
  }

  @Test
  @DisplayName("a handshake with the served context presents the folder's certificate")
  void handshake() throws Exception {
    Path ec = TestCertificates.ec(dir.resolve("hs"));
    ServingCertificate c = new ServingCertificate(ec, () -> 0L);
    try (ProgressEndpoint endpoint =
            new ProgressEndpoint(
                new java.net.InetSocketAddress("127.0.0.1", 0),
                c.context(),
                new ProgressEndpoint.Parts(
                    t -> PodTokenReview.Identity.INVALID,
                    (ns, n) -> java.util.Optional.empty(),
                    new PushedProgress(),
                    k -> {},
                    java.time.Clock.systemUTC(),
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
