package dev.trainyard.compiler.secrets;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * One SOPS value cipher under a file's 32-byte data key, as getsops/sops v3.13.3 {@code
 * aes/cipher.go}: AES-256-GCM with a random 32-byte IV, 16-byte tag, the additional data given by
 * the caller (the key path joined by {@code :} plus a trailing {@code :}, or {@code lastmodified}
 * for the MAC), written as {@code ENC[AES256_GCM,data:<b64>,iv:<b64>,tag:<b64>,type:<str|bool>]}
 * with padded standard base64. An empty string stays empty and is not encrypted (sops does the
 * same).
 */
final class SopsValueCipher {
  private static final int IV_BYTES = 32;
  private static final int TAG_BYTES = 16;
  private final byte[] dataKey;
  private final SecureRandom random;

  SopsValueCipher(byte[] dataKey, SecureRandom random) {
    this.dataKey = dataKey.clone();
    this.random = random;
  }

  /**
   * The ENC[...] text of a value.
   *
   * @param plaintext the value's bytes as sops' {@code ToBytes} gives them (UTF-8; booleans
   *     "True"/"False")
   * @param type {@code str} or {@code bool}
   * @param additionalData the GCM additional data
   */
  String encrypt(byte[] plaintext, String type, String additionalData) {
    if (plaintext.length == 0) {
      return "";
    }
    try {
      byte[] iv = new byte[IV_BYTES];
      random.nextBytes(iv);
      Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
      gcm.init(
          Cipher.ENCRYPT_MODE,
          new SecretKeySpec(dataKey, "AES"),
          new GCMParameterSpec(TAG_BYTES * 8, iv));
      gcm.updateAAD(additionalData.getBytes(StandardCharsets.UTF_8));
      byte[] sealed = gcm.doFinal(plaintext);
      Base64.Encoder b64 = Base64.getEncoder();
      return "ENC[AES256_GCM,data:"
          + b64.encodeToString(Arrays.copyOf(sealed, sealed.length - TAG_BYTES))
          + ",iv:"
          + b64.encodeToString(iv)
          + ",tag:"
          + b64.encodeToString(Arrays.copyOfRange(sealed, sealed.length - TAG_BYTES, sealed.length))
          + ",type:"
          + type
          + "]";
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is missing from the JDK", e);
    }
  }
}
