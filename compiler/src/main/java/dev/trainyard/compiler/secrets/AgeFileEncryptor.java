package dev.trainyard.compiler.secrets;

import com.exceptionfactory.jagged.RecipientStanzaWriter;
import com.exceptionfactory.jagged.framework.armor.ArmoredEncryptingChannelFactory;
import com.exceptionfactory.jagged.x25519.X25519RecipientStanzaWriterFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;

/**
 * Encrypts a small payload to age X25519 recipients and ASCII-armors it, as SOPS stores a data key
 * in {@code sops.age[].enc}: an age v1 file (the age spec, C2SP {@code age.md}) written by Jagged
 * ({@code com.exceptionfactory.jagged}), so the header, stanzas, HKDF, ChaCha20-Poly1305, payload
 * chunks and armor are the library's, and the real {@code age} and {@code sops} decrypt it ({@code
 * SopsAgeSealerTest}).
 *
 * <pre>
 * -----BEGIN AGE ENCRYPTED FILE-----
 * YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IFgyNTUxOSB...   (64-column padded base64, LF)
 * -----END AGE ENCRYPTED FILE-----
 * </pre>
 *
 * Jagged draws the file key, the ephemeral shares and the payload nonce from its own {@code
 * SecureRandom}: each call gives a different file, even under a seeded random elsewhere.
 */
final class AgeFileEncryptor {
  private AgeFileEncryptor() {}

  /**
   * The armored age file of {@code payload} for all {@code recipients}, LF line ends.
   *
   * @throws IllegalArgumentException without a recipient
   */
  static String encrypt(byte[] payload, List<AgeRecipient> recipients) {
    if (recipients.isEmpty()) {
      throw new IllegalArgumentException("an age file needs a recipient");
    }
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    try {
      List<RecipientStanzaWriter> stanzas = new ArrayList<>();
      for (AgeRecipient recipient : recipients) {
        stanzas.add(X25519RecipientStanzaWriterFactory.newRecipientStanzaWriter(recipient.text()));
      }
      try (WritableByteChannel channel =
          new ArmoredEncryptingChannelFactory()
              .newEncryptingChannel(Channels.newChannel(file), stanzas)) {
        ByteBuffer buffer = ByteBuffer.wrap(payload);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(
          "X25519 or ChaCha20-Poly1305 is missing from the JDK, or a recipient skipped AgeRecipient.parse",
          e);
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory failed", e);
    }
    return file.toString(StandardCharsets.US_ASCII);
  }
}
