package dev.trainyard.compiler.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.platform.Platform.SecretsMode;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** platform.yaml's {@code secrets.policy} words. */
class SecretsModeTest {
  @Test
  @DisplayName(
      "each policy parses from the word platform.yaml uses for it, and id() gives that word back")
  void roundTrip() {
    assertEquals(Optional.of(SecretsMode.PLAIN), SecretsMode.parse("plain"));
    assertEquals(Optional.of(SecretsMode.SEALED_SECRETS), SecretsMode.parse("sealed-secrets"));
    assertEquals(Optional.of(SecretsMode.SOPS_AGE), SecretsMode.parse("sops-age"));
    for (SecretsMode mode : SecretsMode.values()) {
      assertEquals(Optional.of(mode), SecretsMode.parse(mode.id()));
    }
    assertEquals("sops-age", SecretsMode.SOPS_AGE.id());
  }

  @Test
  @DisplayName("any other word, a different case included, is no policy")
  void unknown() {
    assertEquals(Optional.empty(), SecretsMode.parse("vault"));
    assertEquals(Optional.empty(), SecretsMode.parse("Plain"));
    assertEquals(Optional.empty(), SecretsMode.parse(""));
  }
}
