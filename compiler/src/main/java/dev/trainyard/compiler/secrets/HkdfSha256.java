package dev.trainyard.compiler.secrets;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HKDF with HMAC-SHA-256 (RFC 5869), for the one 32-byte output that age derives each time. */
final class HkdfSha256 {
  private HkdfSha256() {}

  /**
   * The first 32 bytes of HKDF-Expand(HKDF-Extract(salt, ikm), info).
   *
   * @param salt the salt; empty means 32 zero bytes (RFC 5869 §2.2)
   */
  static byte[] derive32(byte[] ikm, byte[] salt, String info) {
    try {
      byte[] pseudoRandomKey = hmac(salt.length == 0 ? new byte[32] : salt, ikm);
      byte[] infoBytes = info.getBytes(StandardCharsets.US_ASCII);
      byte[] block = new byte[infoBytes.length + 1];
      System.arraycopy(infoBytes, 0, block, 0, infoBytes.length);
      block[infoBytes.length] = 1;
      return hmac(pseudoRandomKey, block);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is missing from the JDK", e);
    }
  }

  /** HMAC-SHA-256 of {@code message} under {@code key}. */
  static byte[] hmac(byte[] key, byte[] message) throws GeneralSecurityException {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return mac.doFinal(message);
  }
}
