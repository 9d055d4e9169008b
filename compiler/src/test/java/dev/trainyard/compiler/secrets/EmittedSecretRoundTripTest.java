package dev.trainyard.compiler.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SSH Secret as the compiler writes it into the GitOps tree (through {@code YamlWriter}, not
 * just the sealer's tree) decrypts with the real {@code sops} for a recipient made by the real
 * {@code age-keygen}, and holds a key pair {@code ssh-keygen} accepts.
 */
class EmittedSecretRoundTripTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "an MPI job's emitted SOPS Secret decrypts with real sops, and its private key derives its public key")
  void sopsFileFromTheTreeDecrypts() throws Exception {
    Path keys = Files.createDirectories(temp.resolve("keys"));
    SecretTools.run(
        keys, Map.of(), "", List.of(SecretTools.built("age-keygen").toString(), "-o", "age.key"));
    String recipient =
        Files.readString(keys.resolve("age.key"))
            .lines()
            .filter(l -> l.startsWith("# public key: "))
            .findFirst()
            .orElseThrow()
            .substring("# public key: ".length());
    TrainProject p =
        TrainProject.create(
                temp.resolve("repo"), "runtime: deepspeed\nrun: python train.py\nnodes: 2\n")
            .withPlatform(
                "apiVersion: trainyard.dev/v1\nkind: Platform\nclusters: [{name: local}]\n"
                    + "namespaces: [{name: default, cluster: local}]\n"
                    + "secrets: {policy: sops-age, sopsAge: {recipients: ["
                    + recipient
                    + "]}}\n"
                    + "queues:\n  resourceFlavors: [{name: f}]\n"
                    + "  clusterQueues: [{name: default, flavors: [{name: f, quota: {cpu: \"64\", memory: 256Gi}}]}]\n"
                    + "  localQueues: [{name: default, namespace: default, clusterQueue: default}]\n");
    CompileResult result = p.compile();
    Map.Entry<String, String> secret =
        TrainProject.tree(result).files().entrySet().stream()
            .filter(e -> e.getKey().contains("/secret-"))
            .findFirst()
            .orElseThrow(
                () ->
                    new AssertionError(
                        "no Secret in "
                            + TrainProject.tree(result).files().keySet()
                            + " "
                            + result.diagnostics()));
    Path file =
        Files.writeString(temp.resolve("secret.yaml"), secret.getValue(), StandardCharsets.UTF_8);
    String plain =
        SecretTools.run(
            temp,
            Map.of("SOPS_AGE_KEY_FILE", keys.resolve("age.key").toString()),
            "",
            List.of(
                SecretTools.built("sops").toString(),
                "--decrypt",
                "--output-type",
                "json",
                file.toString()));
    JsonNode data = CanonicalJson.mapper().readTree(plain).path("data");
    String privateKey =
        new String(
            Base64.getDecoder().decode(data.path("ssh-privatekey").asText()),
            StandardCharsets.UTF_8);
    String publicKey =
        new String(
            Base64.getDecoder().decode(data.path("ssh-publickey").asText()),
            StandardCharsets.UTF_8);
    Path keyFile = temp.resolve("id_key");
    Files.writeString(keyFile, privateKey, StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
    String derived =
        SecretTools.run(
            temp,
            Map.of(),
            "",
            List.of(
                SecretTools.system("ssh-keygen", "openssh-client").toString(),
                "-y",
                "-f",
                keyFile.toString()));
    assertEquals(publicKey.split(" ")[1], derived.trim().split(" ")[1]);
    assertTrue(secret.getValue().contains("ENC[AES256_GCM,"), "values are encrypted in the file");
  }
}
