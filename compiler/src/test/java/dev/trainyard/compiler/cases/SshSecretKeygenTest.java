package dev.trainyard.compiler.cases;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The emitted plain SSH Secret read by OpenSSH's own {@code ssh-keygen} (Debian {@code
 * openssh-client}).
 */
class SshSecretKeygenTest {
  @TempDir Path dir;

  @Test
  @DisplayName(
      "ssh-keygen -y derives, from the private key in the emitted Secret, exactly the public key in the same Secret")
  void privateKeyMatchesPublicKey() throws IOException {
    ToolRun.require("ssh-keygen", "openssh-client");
    JsonNode secret =
        TrainProject.object(
            TrainProject.create(
                    dir.resolve("repo"), "runtime: mpi\nnodes: 2\nrun: python train.py\n")
                .compile(),
            "Secret");
    assertEquals("kubernetes.io/ssh-auth", secret.path("type").asText());
    Path key = dir.resolve("id_trainyard");
    Files.write(
        key, Base64.getDecoder().decode(secret.path("data").path("ssh-privatekey").asText()));
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    String publicKey =
        new String(
            Base64.getDecoder().decode(secret.path("data").path("ssh-publickey").asText()),
            StandardCharsets.UTF_8);

    ToolRun derived = ToolRun.run(List.of("ssh-keygen", "-y", "-f", key.toString()), dir, Map.of());

    assertEquals(0, derived.exitCode(), derived.output());
    assertEquals(typeAndKey(publicKey), typeAndKey(derived.output()));
  }

  /**
   * The first two fields of an OpenSSH public key line (type and base64 blob), without the comment.
   */
  private static List<String> typeAndKey(String line) {
    return Arrays.asList(line.strip().split("\\s+")).subList(0, 2);
  }
}
