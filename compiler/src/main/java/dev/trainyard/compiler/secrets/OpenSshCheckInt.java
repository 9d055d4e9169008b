package dev.trainyard.compiler.secrets;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

/**
 * Overwrites the two "checkint" words of an unencrypted OpenSSH private key with values from our
 * own random, so that key files are reproducible from a seeded {@link SecureRandom}.
 *
 * <p>Layout (OpenSSH {@code PROTOCOL.key}): {@code "openssh-key-v1\0"}, string ciphername, string
 * kdfname, string kdfoptions, uint32 number of keys, string public key, uint32 length of the
 * private section, then the private section starting with {@code uint32 checkint; uint32 checkint}
 * (equal random values that only detect a wrong passphrase). Strings are a uint32 big-endian length
 * and the bytes.
 */
final class OpenSshCheckInt {
  /** PEM-style armor label of the openssh-key-v1 format (OpenSSH PROTOCOL.key). */
  private static final String LABEL = "OPENSSH PRIVATE KEY";

  private static final String BEGIN = "-----BEGIN " + LABEL + "-----";
  private static final String END = "-----END " + LABEL + "-----";
  private static final byte[] MAGIC = "openssh-key-v1\0".getBytes(StandardCharsets.US_ASCII);
  private static final int LINE_LENGTH = 70;

  private OpenSshCheckInt() {}

  /**
   * The same key text with both check integers set to one {@code random.nextInt()}.
   *
   * @param pem an unencrypted key ({@code ciphername none}) in the PEM-like OpenSSH armor
   * @return the armored key, 70-column base64 lines, LF, ending in a newline
   * @throws IllegalStateException if the text is not an unencrypted openssh-key-v1 key (a bug)
   */
  static String replace(String pem, SecureRandom random) {
    int begin = pem.indexOf(BEGIN);
    int end = pem.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IllegalStateException("not an OpenSSH private key");
    }
    String body = pem.substring(begin + BEGIN.length(), end).replaceAll("\\s", "");
    byte[] blob = Base64.getDecoder().decode(body);
    ByteBuffer buffer = ByteBuffer.wrap(blob);
    skipMagic(buffer);
    if (!"none".equals(readString(buffer))) {
      throw new IllegalStateException("OpenSSH private key is encrypted; expected cipher none");
    }
    readString(buffer); // kdfname
    readString(buffer); // kdfoptions
    buffer.getInt(); // number of keys
    readString(buffer); // public key
    buffer.getInt(); // length of the private section
    int checkInt = random.nextInt();
    buffer.putInt(checkInt).putInt(checkInt);
    return armor(Base64.getEncoder().encodeToString(blob));
  }

  private static void skipMagic(ByteBuffer buffer) {
    byte[] magic = new byte[MAGIC.length];
    buffer.get(magic);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new IllegalStateException("OpenSSH private key lacks the openssh-key-v1 magic");
    }
  }

  private static String readString(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.getInt()];
    buffer.get(bytes);
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  private static String armor(String base64) {
    StringBuilder out = new StringBuilder(BEGIN).append('\n');
    for (int i = 0; i < base64.length(); i += LINE_LENGTH) {
      out.append(base64, i, Math.min(base64.length(), i + LINE_LENGTH)).append('\n');
    }
    return out.append(END).append('\n').toString();
  }
}
