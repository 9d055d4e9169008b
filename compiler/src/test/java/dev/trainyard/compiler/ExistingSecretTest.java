package dev.trainyard.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.secrets.SshKeyGenerator;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's SSH Secret in the output tree is checked before it is reused; a broken one is E702 with
 * how to regenerate it.
 */
class ExistingSecretTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;
  TrainProject project;
  Path tree;
  Path secret;

  @BeforeEach
  void compileOnce() throws Exception {
    project = TrainProject.create(temp, "runtime: mpi\nrun: ./a.out\nnodes: 2\n");
    CompileResult first = project.compile();
    assertFalse(first.hasErrors(), first.diagnostics().toString());
    tree = temp.resolve("gitops");
    for (Map.Entry<String, String> f : first.tree().orElseThrow().files().entrySet()) {
      Path file = tree.resolve(f.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, f.getValue());
      if (f.getKey().contains("/secret-")) {
        secret = file;
      }
    }
  }

  private Diagnostic refusedAfter(UnaryOperator<String> edit) throws Exception {
    Files.writeString(secret, edit.apply(Files.readString(secret)));
    CompileResult r = project.compile(Optional.of(tree));
    assertTrue(r.hasErrors());
    Diagnostic d = TrainProject.withCode(r, DiagnosticCode.EXISTING_SECRET_INVALID).get(0);
    assertEquals(secret.toString(), d.location().file());
    assertEquals(
        "delete "
            + secret
            + " and compile again: a fresh key pair is generated and sealed as platform.yaml says",
        d.hint());
    return d;
  }

  @Test
  @DisplayName("an intact Secret is reused byte for byte")
  void intactReused() throws Exception {
    String before = Files.readString(secret);
    CompileResult again = project.compile(Optional.of(tree));
    assertFalse(again.hasErrors(), again.diagnostics().toString());
    assertEquals(
        before,
        again.tree().orElseThrow().files().entrySet().stream()
            .filter(e -> e.getKey().contains("/secret-"))
            .findFirst()
            .orElseThrow()
            .getValue());
  }

  @Test
  @DisplayName(
      "a merge conflict in the Secret is E702 at its line saying so (not an internal error)")
  void mergeConflict() throws Exception {
    Diagnostic d =
        refusedAfter(
            t ->
                t.replaceFirst(
                    "immutable: true\n",
                    "<<<<<<< HEAD\nimmutable: true\n=======\nimmutable: false\n>>>>>>> other\n"));
    assertTrue(
        d.message().startsWith("the run's SSH Secret cannot be read: ")
            && d.message().endsWith("(it holds a merge conflict)"),
        d.message());
    assertTrue(d.location().line() > 0);
  }

  @Test
  @DisplayName("renamed, moved, retyped, a key missing or added: E702 naming what is wrong")
  void wrongShape() throws Exception {
    assertTrue(
        refusedAfter(t -> t.replaceFirst("  name: (\\S+)-ssh", "  name: other-ssh"))
            .message()
            .contains("it is named \"other-ssh\""));
    compileOnce();
    WORDING.approve(
        refusedAfter(t -> t.replace("namespace: default", "namespace: team-b")).message());
    compileOnce();
    WORDING.approve(
        refusedAfter(t -> t.replace("type: kubernetes.io/ssh-auth", "type: Opaque")).message());
    compileOnce();
    WORDING.approve(refusedAfter(t -> t.replaceFirst("  ssh-publickey: .*\n", "")).message());
  }

  @Test
  @DisplayName("a public key that is not the private key's (a pasted key of another run) is E702")
  void publicKeyMismatch() throws Exception {
    String other =
        new SshKeyGenerator(new SecureRandom()).generate("other@run").publicKeyAuthorized();
    String b64 = Base64.getEncoder().encodeToString(other.getBytes(StandardCharsets.UTF_8));
    Diagnostic d =
        refusedAfter(
            t -> t.replaceFirst("  ssh-publickey: .*\n", "  ssh-publickey: " + b64 + "\n"));
    WORDING.approve(d.message());
    assertFalse(d.message().contains(b64.substring(20, 40)));
  }

  @Test
  @DisplayName(
      "a Secret file that is not UTF-8 (a binary pasted over it) is E702 at its byte, not an exception out of the compile")
  void notUtf8() throws Exception {
    byte[] text = Files.readAllBytes(secret);
    text[0] = (byte) 0xff;
    Files.write(secret, text);
    CompileResult r = project.compile(Optional.of(tree));
    Diagnostic d = TrainProject.withCode(r, DiagnosticCode.EXISTING_SECRET_INVALID).get(0);
    WORDING.approve(d.message());
    assertEquals(secret.toString() + ":1:1", d.location().toString());
    assertEquals(
        "delete "
            + secret
            + " and compile again: a fresh key pair is generated and sealed as platform.yaml says",
        d.hint());
    assertTrue(r.tree().isEmpty());
  }

  @Test
  @DisplayName(
      "a Secret file over the 1 MiB YAML limit is E702 saying so, without reading it into the output")
  void tooLarge() throws Exception {
    Files.writeString(secret, Files.readString(secret) + "#" + "x".repeat(1 << 20) + "\n");
    CompileResult r = project.compile(Optional.of(tree));
    Diagnostic d = TrainProject.withCode(r, DiagnosticCode.EXISTING_SECRET_INVALID).get(0);
    WORDING.approve(d.message());
    assertEquals(secret.toString(), d.location().toString());
  }
}
