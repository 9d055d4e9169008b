package dev.trainyard.compiler.secrets;

import com.exceptionfactory.jagged.bech32.Bech32;
import com.exceptionfactory.jagged.bech32.Bech32Address;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
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
                      + "`: "
                      + why(text == null ? "" : text.strip()))
              .withHint(
                  "copy the `Public key:` line that `age-keygen` printed (not the AGE-SECRET-KEY line)");
      return StageResult.failed(List.of(diagnostic));
    }
    return StageResult.of(new AgeRecipient(text.strip(), key), List.of());
  }

  /** The Bech32 alphabet (BIP 173), in which every character after {@code age1} is written. */
  private static final String CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

  /** Why {@code text} is no recipient, for the diagnostic (e.g. a mistyped character). */
  static String why(String text) {
    if (text.isEmpty()) {
      return "it is empty";
    }
    if (!text.toLowerCase(Locale.ROOT).equals(text)) {
      return "it has upper-case letters";
    }
    if (!text.startsWith("age1")) {
      return "it does not start with `age1`";
    }
    String data = text.substring(4);
    for (char c : data.toCharArray()) {
      if (CHARSET.indexOf(c) < 0) {
        return "`" + c + "` is not a Bech32 character";
      }
    }
    if (data.length() != 58) {
      return "it has " + data.length() + " characters after `age1`";
    }
    try {
      Bech32.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      return "its checksum does not match (a mistyped or lost character)";
    }
    return "it does not spell a 32-byte X25519 key";
  }

  /**
   * The 32-byte key, or null when {@code text} is not a valid lower-case {@code age1} Bech32 string
   * (Jagged's BIP 173 decoder checks the characters, separator and checksum).
   */
  private static byte[] decode(String text) {
    if (!text.toLowerCase(Locale.ROOT).equals(text)) {
      return null;
    }
    try {
      Bech32Address address = Bech32.getDecoder().decode(text);
      byte[] key = address.getData();
      // Jagged's decoder lets non-zero padding bits through; age's does not: only the canonical
      // spelling of the key is a recipient.
      boolean canonical = Bech32.getEncoder().encode(HRP, key).toString().equals(text);
      return HRP.contentEquals(address.getHumanReadablePart()) && key.length == 32 && canonical
          ? key
          : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
