package dev.trainyard.gitops.leaks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The DER shapes of private keys (PKCS#8, PKCS#1, SEC1) at their bounds, and what is not a key. */
class DerPrivateKeyTest {
  private static final Optional<String> PKCS8 = Optional.of("PKCS#8 private key");
  private static final Optional<String> RSA = Optional.of("RSA private key (PKCS#1)");
  private static final Optional<String> EC = Optional.of("EC private key (SEC1)");

  /** {@code header} followed by zeros up to {@code size} bytes. */
  private static byte[] der(int size, int... header) {
    byte[] b = new byte[size];
    for (int i = 0; i < header.length; i++) {
      b[i] = (byte) header[i];
    }
    return b;
  }

  @Test
  @DisplayName(
      "PKCS#8: SEQUENCE { INTEGER 0|1, SEQUENCE { OID ... } }, from 34 bytes of content; 33 is too short")
  void pkcs8() {
    assertEquals(PKCS8, DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 0));
    assertEquals(PKCS8, DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x01, 0x30, 0x0d, 0x06), 0));
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(40, 0x30, 33, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 0));
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x02, 0x30, 0x0d, 0x06), 0));
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x05), 0),
        "no OID: no algorithm");
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(40, 0x31, 34, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 0),
        "a SET is no key");
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(40, 0x30, 34, 0x03, 0x01, 0x00, 0x30, 0x0d, 0x06), 0));
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x02, 0x00, 0x30, 0x0d, 0x06), 0));
  }

  @Test
  @DisplayName("8 bytes from the start are enough to decide; 7 are not; the key may start anywhere")
  void shortInput() {
    assertEquals(PKCS8, DerPrivateKey.at(der(8, 0x30, 34, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 0));
    assertEquals(
        Optional.empty(), DerPrivateKey.at(der(7, 0x30, 34, 0x02, 0x01, 0x00, 0x30, 0x0d), 0));
    assertEquals(
        PKCS8,
        DerPrivateKey.at(
            der(43, 0x41, 0x42, 0x43, 0x30, 34, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 3));
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(9, 0x30, 0x81, 34, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 1),
        "not a SEQUENCE at 1");
  }

  @Test
  @DisplayName(
      "PKCS#1: SEQUENCE { INTEGER 0, INTEGER modulus } (version 0 only); SEC1: { INTEGER 1, OCTET STRING of 24 to 66 bytes }")
  void pkcs1AndSec1() {
    assertEquals(RSA, DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x00, 0x02), 0));
    assertEquals(Optional.empty(), DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x01, 0x02), 0));
    assertEquals(EC, DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x01, 0x04, 24), 0));
    assertEquals(EC, DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x01, 0x04, 66), 0));
    assertEquals(
        Optional.empty(), DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x01, 0x04, 23), 0));
    assertEquals(
        Optional.empty(), DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x01, 0x04, 67), 0));
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x00, 0x04, 32), 0),
        "SEC1 is version 1");
    assertEquals(
        Optional.empty(), DerPrivateKey.at(der(40, 0x30, 34, 0x02, 0x01, 0x01, 0x05, 32), 0));
  }

  @Test
  @DisplayName(
      "long-form lengths: one or two bytes (34, 256, 65,535); 0 or 3 length bytes are malformed")
  void longLengths() {
    assertEquals(
        PKCS8, DerPrivateKey.at(der(40, 0x30, 0x81, 34, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 0));
    assertEquals(
        PKCS8,
        DerPrivateKey.at(der(300, 0x30, 0x82, 0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 0));
    assertEquals(
        PKCS8,
        DerPrivateKey.at(der(40, 0x30, 0x82, 0xff, 0xff, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 0));
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(40, 0x30, 0x82, 0x00, 0x21, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 0));
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(40, 0x30, 0x80, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 0));
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(
            der(40, 0x30, 0x83, 0x00, 0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 0));
  }

  @Test
  @DisplayName(
      "with a two-byte length the shape is decided from its last byte: 8 bytes hold PKCS#1 or nothing, never read past the end")
  void twoByteLengthAtTheEnd() {
    assertEquals(
        RSA,
        DerPrivateKey.at(der(8, 0x30, 0x82, 0x00, 0x22, 0x02, 0x01, 0x00, 0x02), 0),
        "the INTEGER version ends on the last byte");
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(8, 0x30, 0x82, 0x00, 0x22, 0x02, 0x01, 0x01, 0x04), 0),
        "SEC1 without its secret's length byte is no key");
    assertEquals(
        Optional.empty(),
        DerPrivateKey.at(der(9, 0x30, 0x82, 0x00, 0x22, 0x02, 0x01, 0x00, 0x30, 0x0d), 0),
        "PKCS#8 without its OID tag is no key");
    assertEquals(
        PKCS8,
        DerPrivateKey.at(der(10, 0x30, 0x82, 0x00, 0x22, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06), 0));
    assertEquals(
        EC, DerPrivateKey.at(der(9, 0x30, 0x82, 0x00, 0x22, 0x02, 0x01, 0x01, 0x04, 32), 0));
  }
}
