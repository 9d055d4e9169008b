package dev.trainyard.compiler.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which plain env values are credentials: token shapes (gitleaks' rules) and credential names. */
class CredentialPatternsTest {
  private static final String LETTERS34 = "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh";
  private static final String ALNUM36 = "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5";

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "a GitHub token, ghp_" + ALNUM36,
    "a GitHub token, gho_" + ALNUM36,
    "a Hugging Face access token, hf_" + LETTERS34,
    "an AWS access key id, AKIAQYLPMN5HFIQR7XYZ",
    "a GitLab token, glpat-Ab3dE5gH7jK9mN1pQ3sT",
    "a Slack token, xoxb-1234567890-abcdefghij",
    "an age secret key, AGE-SECRET-KEY-1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE"
  })
  @DisplayName("a token shape is a credential whatever the variable is called")
  void shapes(String what, String value) {
    assertEquals(Optional.of("its value is " + what), CredentialPatterns.match("X", value));
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({
    "WANDB_API_KEY, 9f2c4e7a1b3d5f6e8a0c2b4d6f8e1a3c5b7d9e0f",
    "db_password, Tr0ub4dor&3x!",
    "HF_TOKEN, q8Zr2Lx0Pw4Nc7Vb",
    "MY_SECRET, s3cr3t-V4lue-99",
    "AUTH, Basic dXNlcjpwYXNz",
    "API_KEY, abcdefgh"
  })
  @DisplayName("a credential name with a literal, varied value is a credential")
  void named(String name, String value) {
    assertTrue(CredentialPatterns.match(name, value).isPresent(), name);
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({
    "WANDB_PROJECT, 9f2c4e7a1b3d5f6e8a0c2b4d6f8e1a3c5b7d9e0f",
    "HF_TOKEN, $HF_TOKEN",
    "HF_TOKEN, ${HF_TOKEN}",
    "HF_TOKEN_PATH, /var/run/secrets/hf/token",
    "TOKENIZERS_PARALLELISM, false",
    "API_KEY, aaaaaaaaaaaa",
    "API_KEY, abc123",
    "API_KEY, abcdefg",
    "API_KEY, aabbccdd",
    "AUTH_URL, https://auth.example/login",
    "NCCL_DEBUG, INFO"
  })
  @DisplayName(
      "references, paths, words, short or uniform values and other names are no credential")
  void notCredentials(String name, String value) {
    assertEquals(Optional.empty(), CredentialPatterns.match(name, value), name + "=" + value);
  }

  @Test
  @DisplayName("entropy is Shannon's, in bits per character")
  void entropy() {
    assertEquals(0.0, CredentialPatterns.entropy("aaaa"), 1e-9);
    assertEquals(1.0, CredentialPatterns.entropy("abab"), 1e-9);
    assertEquals(3.0, CredentialPatterns.entropy("abcdefgh"), 1e-9);
  }
}
