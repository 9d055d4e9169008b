package dev.trainyard.compiler.secrets;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Locale;

/**
 * An age X25519 recipient from {@code platform.yaml}, as printed by {@code age-keygen}: {@code
 * age1} + Bech32 (BIP 173, not Bech32m) of the 32-byte Curve25519 public key, e.g. {@code
 * age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p} (age spec, "X25519 recipient
 * type"; the 90-character Bech32 limit does not apply).
 *
 * @param text the recipient as written, lower case, stored verbatim in {@code sops.age[].recipient}
 * @param publicKey the 32-byte public key (little-endian u-coordinate)
 */
public record AgeRecipient(String text, byte[] publicKey) {
  private static final String HRP = "age";
  private static final String CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
  private static final int[] GENERATOR = {
    0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3
  };

  public AgeRecipient {
    publicKey = publicKey.clone();
  }

  @Override
  public byte[] publicKey() {
    return publicKey.clone();
  }

  /** Equal when the recipient text is equal (the key is a function of it). */
  @Override
  public boolean equals(Object other) {
    return other instanceof AgeRecipient recipient && recipient.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  /**
   * Parses one recipient; a malformed one is reported as {@link DiagnosticCode#INVALID_PLATFORM}.
   *
   * @param text the value from {@code platform.yaml}
   * @param at where the value starts
   * @param pointer its JSON pointer, e.g. {@code /secrets/recipients/0}
   */
  public static StageResult<AgeRecipient> parse(String text, SourceLocation at, String pointer) {
    byte[] key = decode(text == null ? "" : text.strip());
    if (key == null) {
      Diagnostic diagnostic =
          Diagnostic.error(
                  DiagnosticCode.INVALID_PLATFORM,
                  at,
                  pointer,
                  "an age recipient must be `age1` followed by 58 Bech32 characters, got `"
                      + text
                      + "`")
              .withHint(
                  "copy the `Public key:` line that `age-keygen` printed (not the AGE-SECRET-KEY line)");
      return StageResult.failed(List.of(diagnostic));
    }
    return StageResult.of(new AgeRecipient(text.strip(), key), List.of());
  }

  /** The 32-byte key, or null when {@code text} is not a valid age1 Bech32 string. */
  private static byte[] decode(String text) {
    String lower = text.toLowerCase(Locale.ROOT);
    int separator = lower.lastIndexOf('1');
    if (!lower.equals(text)
        || separator != HRP.length()
        || !lower.startsWith(HRP)
        || lower.length() < 10) {
      return null;
    }
    int[] values = new int[lower.length() - separator - 1];
    for (int i = 0; i < values.length; i++) {
      values[i] = CHARSET.indexOf(lower.charAt(separator + 1 + i));
      if (values[i] < 0) {
        return null;
      }
    }
    if (polymod(values) != 1) {
      return null;
    }
    byte[] key = fiveToEightBits(values, values.length - 6);
    return key != null && key.length == 32 ? key : null;
  }

  private static int polymod(int[] data) {
    int checksum = 1;
    int[] prefix = new int[HRP.length() * 2 + 1];
    for (int i = 0; i < HRP.length(); i++) {
      prefix[i] = HRP.charAt(i) >> 5;
      prefix[HRP.length() + 1 + i] = HRP.charAt(i) & 31;
    }
    for (int[] part : new int[][] {prefix, data}) {
      for (int value : part) {
        int top = checksum >>> 25;
        checksum = ((checksum & 0x1ffffff) << 5) ^ value;
        for (int bit = 0; bit < 5; bit++) {
          checksum ^= ((top >>> bit) & 1) == 1 ? GENERATOR[bit] : 0;
        }
      }
    }
    return checksum;
  }

  /** Regroups 5-bit values into bytes; null if the padding is over 4 bits or not zero. */
  private static byte[] fiveToEightBits(int[] values, int count) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int accumulator = 0;
    int bits = 0;
    for (int i = 0; i < count; i++) {
      accumulator = (accumulator << 5) | values[i];
      bits += 5;
      if (bits >= 8) {
        bits -= 8;
        out.write((accumulator >>> bits) & 0xff);
      }
    }
    boolean cleanPadding = bits < 5 && (accumulator & ((1 << bits) - 1)) == 0;
    return cleanPadding ? out.toByteArray() : null;
  }
}
