package dev.trainyard.compiler.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.manifest.CanonicalJson;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PlainSecretSealerTest {

  @Test
  @DisplayName(
      "plain policy writes a v1 Secret with base64 data, sorted keys and the given metadata")
  void writesPlainSecret() throws Exception {
    UnsealedSecret secret =
        new UnsealedSecret(
            "team-a",
            "demo-ssh",
            "kubernetes.io/ssh-auth",
            Map.of("app", "demo"),
            Map.of("trainyard.dev/commit", "9fceb02"),
            Map.of("ssh-publickey", "ssh-ed25519 AAAA x", "ssh-privatekey", "key\n"),
            true);

    String json = CanonicalJson.mapper().writeValueAsString(new PlainSecretSealer().seal(secret));

    assertEquals(
        "{\"apiVersion\":\"v1\",\"data\":{\"ssh-privatekey\":\"a2V5Cg==\","
            + "\"ssh-publickey\":\"c3NoLWVkMjU1MTkgQUFBQSB4\"},\"immutable\":true,\"kind\":\"Secret\","
            + "\"metadata\":{\"annotations\":{\"trainyard.dev/commit\":\"9fceb02\"},\"labels\":{\"app\":\"demo\"},"
            + "\"name\":\"demo-ssh\",\"namespace\":\"team-a\"},\"type\":\"kubernetes.io/ssh-auth\"}",
        json);
  }

  @Test
  @DisplayName(
      "empty labels and annotations are left out and a mutable Secret has no immutable field")
  void omitsEmptyParts() throws Exception {
    UnsealedSecret secret =
        new UnsealedSecret("ns", "s", "Opaque", Map.of(), Map.of(), Map.of("k", "v"), false);

    String json = CanonicalJson.mapper().writeValueAsString(new PlainSecretSealer().seal(secret));

    assertEquals(
        "{\"apiVersion\":\"v1\",\"data\":{\"k\":\"dg==\"},\"kind\":\"Secret\","
            + "\"metadata\":{\"name\":\"s\",\"namespace\":\"ns\"},\"type\":\"Opaque\"}",
        json);
  }
}
