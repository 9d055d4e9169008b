package dev.trainyard.compiler.secrets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import java.util.HexFormat;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AgeRecipientTest {
  private static final SourceLocation AT = new SourceLocation("platform.yaml", 9, 7);
  // A real recipient; its key bytes were decoded independently with BIP 173's reference Bech32
  // algorithm.
  private static final String RECIPIENT =
      "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj";

  @Test
  @DisplayName("an age1 recipient decodes to its 32-byte X25519 public key")
  void decodesRecipient() {
    StageResult<AgeRecipient> result = AgeRecipient.parse(RECIPIENT, AT, "/secrets/recipients/0");

    AgeRecipient recipient = SealedSecretSealerTest.parsed(result);
    assertEquals(RECIPIENT, recipient.text());
    assertArrayEquals(
        HexFormat.of().parseHex("132c442be010fbd57e72603328aa76e71fccc1503aae219327d14d9c9993f472"),
        recipient.publicKey());
  }

  @Test
  @DisplayName("a recipient with a broken checksum is an INVALID_PLATFORM diagnostic quoting it")
  void badChecksumIsDiagnostic() {
    String broken = RECIPIENT.substring(0, RECIPIENT.length() - 1) + "q";

    StageResult<AgeRecipient> result = AgeRecipient.parse(broken, AT, "/secrets/recipients/0");

    assertTrue(result.failed());
    Diagnostic diagnostic = result.diagnostics().get(0);
    assertEquals(DiagnosticCode.INVALID_PLATFORM, diagnostic.code());
    assertEquals("/secrets/recipients/0", diagnostic.pointer());
    assertEquals(
        "an age recipient must be `age1` followed by 58 Bech32 characters, got `"
            + broken
            + "`: its checksum does not match (a mistyped or lost character)",
        diagnostic.message());
    assertTrue(diagnostic.hint().contains("age-keygen"));
  }

  @Test
  @DisplayName("an age secret key pasted by mistake is rejected, not used")
  void secretKeyIsRejected() {
    StageResult<AgeRecipient> result =
        AgeRecipient.parse(
            "AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX",
            AT,
            "/secrets/recipients/0");

    assertTrue(result.failed());
  }
}
