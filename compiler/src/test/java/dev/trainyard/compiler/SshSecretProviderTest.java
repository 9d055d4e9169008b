package dev.trainyard.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SSH Secret of an MPI run: fresh key material sealed per platform.yaml's policy
 * (sealed-secrets with the platform's certificate, SOPS for its age recipients, stamped by the
 * injected clock), or the committed one reused byte for byte, from a folder on disk or straight
 * from a GitOps repository.
 */
class SshSecretProviderTest {
  private static final Path GOLDEN =
      Path.of(System.getProperty("trainyard.repo.root", "..")).resolve("golden");
  private static final String MPI = "runtime: deepspeed\nrun: python train.py\nnodes: 2\n";
  @TempDir Path temp;

  private static String golden(String caseName) throws Exception {
    return Files.readString(GOLDEN.resolve(caseName).resolve("platform.yaml"));
  }

  private static Map.Entry<String, String> secretFile(CompileResult r) {
    return TrainProject.tree(r).files().entrySet().stream()
        .filter(e -> e.getKey().contains("secret-"))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no Secret in " + TrainProject.tree(r).files().keySet()));
  }

  private static Path write(Path root, CompileResult r) throws Exception {
    for (Map.Entry<String, String> f : TrainProject.tree(r).files().entrySet()) {
      Path file = root.resolve(f.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, f.getValue());
    }
    return root;
  }

  @Test
  @DisplayName(
      "policy sealed-secrets: a SealedSecret of both keys for the platform's certificate, reused byte for byte on a re-compile")
  void sealed() throws Exception {
    TrainProject p =
        TrainProject.create(temp, MPI).withPlatform(golden("deepspeed-sealed-secrets"));
    CompileResult first = p.compile();
    Map.Entry<String, String> secret = secretFile(first);
    assertTrue(
        secret.getKey().endsWith("-ssh.yaml") && secret.getKey().contains("/sealedsecret-"),
        secret.getKey());
    JsonNode object = TrainProject.parse("s", secret.getValue());
    assertEquals("SealedSecret", object.path("kind").asText());
    assertEquals(
        List.of("ssh-privatekey", "ssh-publickey"),
        List.copyOf(iterable(object.path("spec").path("encryptedData").fieldNames())));
    assertEquals(
        "kubernetes.io/ssh-auth", object.path("spec").path("template").path("type").asText());
    assertFalse(secret.getValue().contains("PRIVATE KEY"), "nothing in clear");
    CompileResult again = p.compile(Optional.of(write(temp.resolve("gitops"), first)));
    assertFalse(again.hasErrors(), again.diagnostics().toString());
    assertEquals(secret, secretFile(again));
  }

  @Test
  @DisplayName(
      "policy sops-age: a Secret whose data is SOPS-encrypted for each recipient, last modified at the injected clock's time")
  void sops() throws Exception {
    TrainProject p = TrainProject.create(temp, MPI).withPlatform(golden("mlx-sops-age"));
    Map.Entry<String, String> secret = secretFile(p.compile());
    assertTrue(secret.getKey().contains("/secret-"), secret.getKey());
    JsonNode object = TrainProject.parse("s", secret.getValue());
    assertTrue(
        object.path("data").path("ssh-privatekey").asText().startsWith("ENC[AES256_GCM,"),
        secret.getValue());
    assertEquals(
        "age15jhxq8t3j922pmhn00h3rqpellwrkqpzpfr9yn9cz8ks02hl4yws7m7tsr",
        object.path("sops").path("age").path(0).path("recipient").asText());
    assertEquals("2026-01-01T00:00:00Z", object.path("sops").path("lastmodified").asText());
  }

  @Test
  @DisplayName(
      "reading from a GitOps repository: the committed Secret is reused; a broken one is E702 at its repository path, hinting git rm")
  void fromRepository() throws Exception {
    TrainProject p = TrainProject.create(temp, MPI);
    CompileResult first = p.compile();
    Map.Entry<String, String> secret = secretFile(first);
    CompileRequest request =
        CompileRequest.builder(p.trainYaml())
            .displayPath("train.yaml")
            .existingTree(temp.resolve("not-used"))
            .build();
    Map<String, String> repo = Map.copyOf(TrainProject.tree(first).files());
    CompileResult reused =
        new Compiler(SshSecretProvider.reading(path -> Optional.ofNullable(repo.get(path))))
            .compile(request);
    assertFalse(reused.hasErrors(), reused.diagnostics().toString());
    assertEquals(secret, secretFile(reused));
    Map<String, String> broken =
        Map.of(
            secret.getKey(),
            secret.getValue().replace("type: kubernetes.io/ssh-auth", "type: Opaque"));
    CompileResult refused =
        new Compiler(SshSecretProvider.reading(path -> Optional.ofNullable(broken.get(path))))
            .compile(request);
    Diagnostic d = TrainProject.withCode(refused, DiagnosticCode.EXISTING_SECRET_INVALID).get(0);
    assertEquals(secret.getKey(), d.location().file());
    assertEquals(
        "remove "
            + secret.getKey()
            + " from the GitOps repo (git rm) and submit again for a fresh key, or submit with --rerun"
            + " (a new run, a new key)",
        d.hint());
    assertTrue(refused.tree().isEmpty());
  }

  @Test
  @DisplayName(
      "an existing tree without the run's Secret file (absent, or a folder in its place) gets a fresh key, not an error")
  void freshWhenAbsent() throws Exception {
    TrainProject p = TrainProject.create(temp, MPI);
    Map.Entry<String, String> secret = secretFile(p.compile());
    Path tree = Files.createDirectories(temp.resolve("gitops"));
    CompileResult empty = p.compile(Optional.of(tree));
    assertFalse(empty.hasErrors(), empty.diagnostics().toString());
    Files.createDirectories(tree.resolve(secret.getKey()));
    CompileResult folder = p.compile(Optional.of(tree));
    assertFalse(folder.hasErrors(), folder.diagnostics().toString());
    assertTrue(secretFile(folder).getValue().contains("ssh-privatekey: "));
  }

  @Test
  @DisplayName(
      "the system provider makes a different key pair for each compile (a strong random source)")
  void systemKeysDiffer() {
    TrainProject p = TrainProject.create(temp, MPI);
    CompileRequest request =
        CompileRequest.builder(p.trainYaml()).displayPath("train.yaml").build();
    String a = secretFile(new Compiler(SshSecretProvider.system()).compile(request)).getValue();
    String b = secretFile(new Compiler(SshSecretProvider.system()).compile(request)).getValue();
    assertFalse(a.equals(b), "two fresh key pairs");
    String seededA =
        secretFile(
                new Compiler(
                        new SshSecretProvider(
                            TrainProject.seeded(), Clock.fixed(Instant.EPOCH, ZoneOffset.UTC)))
                    .compile(request))
            .getValue();
    String seededB =
        secretFile(
                new Compiler(
                        new SshSecretProvider(
                            TrainProject.seeded(), Clock.fixed(Instant.EPOCH, ZoneOffset.UTC)))
                    .compile(request))
            .getValue();
    assertEquals(seededA, seededB, "the injected random source is the only key randomness");
  }

  private static <T> List<T> iterable(Iterator<T> it) {
    List<T> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }
}
