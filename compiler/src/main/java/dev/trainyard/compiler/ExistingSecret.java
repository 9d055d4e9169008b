package dev.trainyard.compiler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.secrets.SshKeyGenerator;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * A run's SSH Secret found in the GitOps tree, checked before it is reused byte for byte: readable
 * YAML (not a merge conflict), the object this run expects (kind for the policy, its name and
 * namespace, type {@code kubernetes.io/ssh-auth}, exactly the keys {@code ssh-privatekey} and
 * {@code ssh-publickey}) and, for a plain Secret, a public key that matches the private one. A
 * mismatch would give pods a key that does not open the other pods' sshd; each is E702 at the file,
 * with how to regenerate the Secret.
 */
final class ExistingSecret {
  static final List<String> KEYS = List.of("ssh-privatekey", "ssh-publickey");

  private ExistingSecret() {}

  /**
   * The Secret to reuse, or the E702 diagnostic that refuses it (a user's edit or merge, never an
   * exception).
   *
   * @param display how diagnostics name the file
   * @param policy the secrets policy the Secret must follow
   */
  static StageResult<Manifest> check(
      String display,
      String text,
      String namespace,
      String name,
      Platform.SecretsPolicy policy,
      boolean inGit) {
    StageResult<ParsedDocument> doc = new YamlDocumentLoader().load(new SourceFile(display, text));
    if (doc.failed()) {
      return StageResult.failed(
          List.of(unreadable(doc.diagnostics().get(0), text, display, inGit)));
    }
    ObjectNode object = (ObjectNode) doc.value().orElseThrow().root();
    Optional<String> problem = shape(object, namespace, name, policy);
    if (problem.isPresent()) {
      return StageResult.failed(
          List.of(
              refused(
                  SourceLocation.ofFile(display),
                  "the run's SSH Secret is not the one this run needs: " + problem.get(),
                  display,
                  inGit)));
    }
    return StageResult.of(Manifest.of(object), List.of());
  }

  /**
   * The refusal of a Secret file that does not load, at the loader's location with its words
   * ({@code first}: not UTF-8, over 1 MiB, not YAML), naming a merge conflict when {@code text}
   * (what could be read) holds one.
   */
  static Diagnostic unreadable(Diagnostic first, String text, String display, boolean inGit) {
    return refused(
        first.location(),
        "the run's SSH Secret cannot be read: "
            + first.message()
            + (text.contains("\n<<<<<<< ") || text.startsWith("<<<<<<< ")
                ? " (it holds a merge conflict)"
                : ""),
        display,
        inGit);
  }

  private static Optional<String> shape(
      ObjectNode o, String namespace, String name, Platform.SecretsPolicy policy) {
    boolean sealed = o.path("kind").asText().equals("SealedSecret");
    boolean sops = o.has("sops");
    String wanted =
        policy.mode() == Platform.SecretsMode.SEALED_SECRETS ? "SealedSecret" : "Secret";
    if (!o.path("kind").asText().equals(wanted)
        || sops != (policy.mode() == Platform.SecretsMode.SOPS_AGE)) {
      String is =
          sealed
              ? "a SealedSecret"
              : sops ? "a SOPS-encrypted Secret" : "kind " + o.path("kind").asText("(none)");
      return Optional.of(
          "it is " + is + ", but platform.yaml's secrets policy is " + policy.mode().id());
    }
    JsonNode meta = sealed ? o.path("spec").path("template").path("metadata") : o.path("metadata");
    String outer = o.path("metadata").path("name").asText();
    String inner =
        meta.path("name")
            .asText(name); // a SealedSecret's template may leave the name to the outer one
    if (!outer.equals(name) || !inner.equals(name)) {
      return Optional.of(
          "it is named \""
              + (outer.equals(name) ? inner : outer)
              + "\", not \""
              + name
              + "\" (renamed or copied from another run)");
    }
    if (!o.path("metadata").path("namespace").asText().equals(namespace)) {
      return Optional.of(
          "its namespace is \""
              + o.path("metadata").path("namespace").asText()
              + "\", not \""
              + namespace
              + "\"");
    }
    String type = (sealed ? o.path("spec").path("template").path("type") : o.path("type")).asText();
    if (!type.equals("kubernetes.io/ssh-auth")) {
      return Optional.of("its type is \"" + type + "\", not kubernetes.io/ssh-auth");
    }
    JsonNode data = sealed ? o.path("spec").path("encryptedData") : o.path("data");
    List<String> keys = new ArrayList<>();
    data.fieldNames().forEachRemaining(keys::add);
    if (!keys.stream().sorted().toList().equals(KEYS)) {
      return Optional.of("its keys are " + keys + ", not the pair " + KEYS);
    }
    return policy.mode() == Platform.SecretsMode.PLAIN ? pair(data) : Optional.empty();
  }

  /** A plain Secret's public key must be the private key's (compared without the comment). */
  private static Optional<String> pair(JsonNode data) {
    try {
      String privateKey =
          new String(
              Base64.getDecoder().decode(data.path("ssh-privatekey").asText()),
              StandardCharsets.UTF_8);
      String[] publicKey =
          new String(
                  Base64.getDecoder().decode(data.path("ssh-publickey").asText()),
                  StandardCharsets.UTF_8)
              .trim()
              .split("\\s+");
      Optional<String> derived = SshKeyGenerator.publicKeyOf(privateKey);
      if (derived.isEmpty()) {
        return Optional.of("ssh-privatekey is not an unencrypted OpenSSH private key");
      }
      if (publicKey.length < 2 || !derived.get().equals(publicKey[0] + " " + publicKey[1])) {
        return Optional.of("ssh-publickey is not the public key of ssh-privatekey");
      }
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of("its data is not base64");
    }
  }

  private static Diagnostic refused(
      SourceLocation at, String message, String display, boolean inGit) {
    String hint =
        inGit
            ? "remove "
                + display
                + " from the GitOps repo (git rm) and submit again for a fresh key, or submit with --rerun (a new run, a new key)"
            : "delete "
                + display
                + " and compile again: a fresh key pair is generated and sealed as platform.yaml says";
    return Diagnostic.error(DiagnosticCode.EXISTING_SECRET_INVALID, at, "", message).withHint(hint);
  }
}
