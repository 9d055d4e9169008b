package dev.trainyard.compiler.secrets;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.SecureRandom;
import java.security.spec.NamedParameterSpec;
import java.security.spec.XECPrivateKeySpec;
import java.security.spec.XECPublicKeySpec;
import java.util.Base64;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts a small payload (at most one 64 KiB chunk) to age X25519 recipients and ASCII-armors it,
 * as SOPS stores a data key in {@code sops.age[].enc}. Format per the age v1 spec and
 * filippo.io/age v1.3.2 ({@code x25519.go Wrap}, {@code primitives.go}, {@code internal/format},
 * {@code armor}):
 *
 * <pre>
 * age-encryption.org/v1
 * -> X25519 &lt;raw base64 of the ephemeral share&gt;
 * &lt;raw base64 of ChaCha20-Poly1305(HKDF(shared, share||recipient, "age-encryption.org/v1/X25519"), 0, file key)&gt;
 * --- &lt;raw base64 HMAC-SHA-256(HKDF(file key, "", "header"), header up to "---")&gt;
 * &lt;16-byte nonce&gt;&lt;ChaCha20-Poly1305(HKDF(file key, nonce, "payload"), 0^11||01, payload)&gt;
 * </pre>
 *
 * then armored between {@code -----BEGIN/END AGE ENCRYPTED FILE-----} as padded base64 in 64-column
 * lines. Randomness, in age's order: the 16-byte file key, one 32-byte ephemeral scalar per
 * recipient, the nonce.
 */
final class AgeFileEncryptor {
  private static final int CHUNK_SIZE = 64 * 1024;
  private static final int COLUMNS = 64;
  private static final BigInteger BASEPOINT = BigInteger.valueOf(9);
  private static final Base64.Encoder RAW = Base64.getEncoder().withoutPadding();

  private AgeFileEncryptor() {}

  /** The armored age file of {@code payload} for all {@code recipients}, LF line ends. */
  static String encrypt(byte[] payload, List<AgeRecipient> recipients, SecureRandom random) {
    if (payload.length > CHUNK_SIZE || recipients.isEmpty()) {
      throw new IllegalArgumentException("age payload must fit one chunk and have a recipient");
    }
    try {
      byte[] fileKey = randomBytes(random, 16);
      StringBuilder header = new StringBuilder("age-encryption.org/v1\n");
      for (AgeRecipient recipient : recipients) {
        header.append(stanza(fileKey, recipient.publicKey(), random));
      }
      header.append("---");
      byte[] mac =
          HkdfSha256.hmac(
              HkdfSha256.derive32(fileKey, new byte[0], "header"),
              header.toString().getBytes(StandardCharsets.US_ASCII));
      header.append(' ').append(RAW.encodeToString(mac)).append('\n');
      byte[] nonce = randomBytes(random, 16);
      byte[] lastChunkNonce = new byte[12];
      lastChunkNonce[11] = 1;
      byte[] body = chacha(HkdfSha256.derive32(fileKey, nonce, "payload"), lastChunkNonce, payload);
      ByteArrayOutputStream file = new ByteArrayOutputStream();
      file.writeBytes(header.toString().getBytes(StandardCharsets.US_ASCII));
      file.writeBytes(nonce);
      file.writeBytes(body);
      return armor(file.toByteArray());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("X25519 or ChaCha20-Poly1305 is missing from the JDK", e);
    }
  }

  private static String stanza(byte[] fileKey, byte[] recipient, SecureRandom random)
      throws GeneralSecurityException {
    byte[] ephemeral = randomBytes(random, 32);
    byte[] share = x25519(ephemeral, BASEPOINT);
    byte[] shared = x25519(ephemeral, littleEndian(recipient));
    byte[] salt = new byte[64];
    System.arraycopy(share, 0, salt, 0, 32);
    System.arraycopy(recipient, 0, salt, 32, 32);
    byte[] wrapKey = HkdfSha256.derive32(shared, salt, "age-encryption.org/v1/X25519");
    byte[] wrapped = chacha(wrapKey, new byte[12], fileKey);
    return "-> X25519 "
        + RAW.encodeToString(share)
        + "\n"
        + wrapLines(RAW.encodeToString(wrapped), true);
  }

  private static byte[] x25519(byte[] scalar, BigInteger u) throws GeneralSecurityException {
    KeyFactory factory = KeyFactory.getInstance("XDH");
    KeyAgreement agreement = KeyAgreement.getInstance("XDH");
    agreement.init(
        factory.generatePrivate(new XECPrivateKeySpec(NamedParameterSpec.X25519, scalar)));
    agreement.doPhase(
        factory.generatePublic(new XECPublicKeySpec(NamedParameterSpec.X25519, u)), true);
    return agreement.generateSecret();
  }

  private static BigInteger littleEndian(byte[] bytes) {
    byte[] bigEndian = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      bigEndian[i] = bytes[bytes.length - 1 - i];
    }
    return new BigInteger(1, bigEndian);
  }

  private static byte[] chacha(byte[] key, byte[] nonce, byte[] plaintext)
      throws GeneralSecurityException {
    Cipher cipher = Cipher.getInstance("ChaCha20-Poly1305");
    cipher.init(
        Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "ChaCha20"), new IvParameterSpec(nonce));
    return cipher.doFinal(plaintext);
  }

  /**
   * 64-column lines, each ending in LF. A stanza body's last line must be shorter than 64 columns,
   * so a body that fills its last line gets an empty line after it ({@code stanzaBody}).
   */
  private static String wrapLines(String text, boolean stanzaBody) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length(); i += COLUMNS) {
      out.append(text, i, Math.min(text.length(), i + COLUMNS)).append('\n');
    }
    if (stanzaBody && text.length() % COLUMNS == 0) {
      out.append('\n');
    }
    return out.toString();
  }

  private static String armor(byte[] file) {
    return "-----BEGIN AGE ENCRYPTED FILE-----\n"
        + wrapLines(Base64.getEncoder().encodeToString(file), false)
        + "-----END AGE ENCRYPTED FILE-----\n";
  }

  private static byte[] randomBytes(SecureRandom random, int count) {
    byte[] bytes = new byte[count];
    random.nextBytes(bytes);
    return bytes;
  }
}
