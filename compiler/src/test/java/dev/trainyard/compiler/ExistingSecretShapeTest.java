package dev.trainyard.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.secrets.SshKeyGenerator;
import dev.trainyard.compiler.secrets.SshKeyPair;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each way a committed SSH Secret can differ from the one the run needs, for every secrets policy:
 * E702 at the file with the exact reason, and a hint that depends on whether the tree is a git
 * repository.
 */
class ExistingSecretShapeTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String FILE = "clusters/local/default/run-1/secret-run-1-ssh.yaml";
  private static final SshKeyPair KEYS =
      new SshKeyGenerator(TrainProject.seeded()).generate("trainyard@run-1-ssh");
  private static final Platform.SecretsPolicy PLAIN = policy(Platform.SecretsMode.PLAIN);
  private static final Platform.SecretsPolicy SEALED = policy(Platform.SecretsMode.SEALED_SECRETS);
  private static final Platform.SecretsPolicy SOPS = policy(Platform.SecretsMode.SOPS_AGE);

  private static Platform.SecretsPolicy policy(Platform.SecretsMode mode) {
    return new Platform.SecretsPolicy(mode, true, Optional.empty(), List.of());
  }

  private static String b64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String plain(String privateKey, String publicKey) {
    return "apiVersion: v1\nkind: Secret\nmetadata: {name: run-1-ssh, namespace: default}\ntype: kubernetes.io/ssh-auth\n"
        + "data:\n  ssh-privatekey: "
        + privateKey
        + "\n  ssh-publickey: "
        + publicKey
        + "\n";
  }

  private static final String PLAIN_OK =
      plain(b64(KEYS.privateKeyOpenSsh()), b64(KEYS.publicKeyAuthorized()));

  private static String sealed(String templateName, String type) {
    return "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: run-1-ssh, namespace: default}\nspec:\n"
        + "  encryptedData: {ssh-privatekey: AgB1, ssh-publickey: AgB2}\n  template:\n"
        + (templateName.isEmpty() ? "" : "    metadata: {name: " + templateName + "}\n")
        + "    type: "
        + type
        + "\n";
  }

  private static Manifest check(String text, Platform.SecretsPolicy policy) {
    StageResult<Manifest> r =
        ExistingSecret.check(FILE, text, "default", "run-1-ssh", policy, false);
    assertEquals(List.of(), r.diagnostics());
    return r.value().orElseThrow();
  }

  private static Diagnostic refused(String text, Platform.SecretsPolicy policy, boolean inGit) {
    StageResult<Manifest> r =
        ExistingSecret.check(FILE, text, "default", "run-1-ssh", policy, inGit);
    assertTrue(r.value().isEmpty(), "refused, not an exception: one diagnostic and no value");
    assertEquals(1, r.diagnostics().size(), r.diagnostics().toString());
    Diagnostic d = r.diagnostics().get(0);
    assertEquals(DiagnosticCode.EXISTING_SECRET_INVALID, d.code());
    assertEquals(FILE, d.location().file());
    return d;
  }

  private static String reason(String text, Platform.SecretsPolicy policy) {
    Diagnostic d = refused(text, policy, false);
    assertEquals(SourceLocation.ofFile(FILE), d.location());
    String prefix = "the run's SSH Secret is not the one this run needs: ";
    assertEquals(
        prefix,
        d.message().substring(0, Math.min(prefix.length(), d.message().length())),
        d.message());
    return d.message().substring(prefix.length());
  }

  @Test
  @DisplayName(
      "an intact Secret of each policy is reused as it is: plain with its key pair, sealed and SOPS by shape alone")
  void intact() {
    assertEquals("Secret", check(PLAIN_OK, PLAIN).kind());
    Manifest sealed = check(sealed("", "kubernetes.io/ssh-auth"), SEALED);
    assertEquals("SealedSecret", sealed.kind());
    assertEquals("run-1-ssh", sealed.name());
    assertEquals(
        "SealedSecret", check(sealed("run-1-ssh", "kubernetes.io/ssh-auth"), SEALED).kind());
    String sops =
        plain("ENC[AES256_GCM,data:x]", "ENC[AES256_GCM,data:y]") + "sops: {version: 3.9.0}\n";
    assertEquals("Secret", check(sops, SOPS).kind());
  }

  @Test
  @DisplayName(
      "a Secret of another policy than platform.yaml's is refused naming what it is and the policy")
  void wrongPolicy() {
    assertEquals(
        "it is a SealedSecret, but platform.yaml's secrets policy is plain",
        reason(sealed("", "kubernetes.io/ssh-auth"), PLAIN));
    String sops = PLAIN_OK + "sops: {version: 3.9.0}\n";
    assertEquals(
        "it is a SOPS-encrypted Secret, but platform.yaml's secrets policy is plain",
        reason(sops, PLAIN));
    assertEquals(
        "it is kind Secret, but platform.yaml's secrets policy is sealed-secrets",
        reason(PLAIN_OK, SEALED));
    assertEquals(
        "it is kind Secret, but platform.yaml's secrets policy is sops-age",
        reason(PLAIN_OK, SOPS));
    assertEquals(
        "it is a SOPS-encrypted Secret, but platform.yaml's secrets policy is sealed-secrets",
        reason(sops, SEALED));
    assertEquals(
        "it is kind (none), but platform.yaml's secrets policy is plain",
        reason(PLAIN_OK.replace("kind: Secret\n", ""), PLAIN));
  }

  @Test
  @DisplayName("a SealedSecret whose template names another Secret, or of another type, is refused")
  void sealedTemplate() {
    assertEquals(
        "it is named \"run-2-ssh\", not \"run-1-ssh\" (renamed or copied from another run)",
        reason(sealed("run-2-ssh", "kubernetes.io/ssh-auth"), SEALED),
        "the template's name, not the outer one that matches");
    assertEquals(
        "it is named \"run-3-ssh\", not \"run-1-ssh\" (renamed or copied from another run)",
        reason(
            sealed("run-2-ssh", "kubernetes.io/ssh-auth")
                .replace("metadata: {name: run-1-ssh,", "metadata: {name: run-3-ssh,"),
            SEALED));
    assertEquals(
        "its type is \"Opaque\", not kubernetes.io/ssh-auth", reason(sealed("", "Opaque"), SEALED));
    assertEquals(
        "its keys are [ssh-privatekey], not the pair [ssh-privatekey, ssh-publickey]",
        reason(sealed("", "kubernetes.io/ssh-auth").replace(", ssh-publickey: AgB2", ""), SEALED));
  }

  @Test
  @DisplayName(
      "a plain Secret with extra keys, data that is not base64, a key that is no OpenSSH key or a public key without its type is refused")
  void plainData() {
    assertEquals(
        "its keys are [ssh-privatekey, ssh-publickey, token], not the pair [ssh-privatekey, ssh-publickey]",
        reason(PLAIN_OK + "  token: eA==\n", PLAIN));
    assertEquals(
        "its data is not base64",
        reason(plain("not*base64", b64(KEYS.publicKeyAuthorized())), PLAIN));
    assertEquals(
        "ssh-privatekey is not an unencrypted OpenSSH private key",
        reason(plain(b64("hello"), b64(KEYS.publicKeyAuthorized())), PLAIN));
    String bareKey = KEYS.publicKeyAuthorized().split(" ")[1];
    assertEquals(
        "ssh-publickey is not the public key of ssh-privatekey",
        reason(plain(b64(KEYS.privateKeyOpenSsh()), b64(bareKey)), PLAIN));
    String commentless = KEYS.publicKeyAuthorized().split(" ")[0] + " " + bareKey + "\n";
    assertEquals(
        "Secret",
        check(plain(b64(KEYS.privateKeyOpenSsh()), b64(commentless)), PLAIN).kind(),
        "the comment is not compared");
  }

  @Test
  @DisplayName(
      "a Secret that is not YAML is refused at its line; a merge conflict, even on the first line, is named")
  void unreadable() {
    Diagnostic conflict =
        refused(
            "<<<<<<< HEAD\n" + PLAIN_OK + "=======\n" + PLAIN_OK + ">>>>>>> other\n", PLAIN, false);
    WORDING.approve(conflict.message());
    Diagnostic broken = refused("kind: [\n", PLAIN, false);
    WORDING.approve(broken.message());
    assertFalse(broken.message().contains("merge conflict"), broken.message());
    assertTrue(broken.location().line() > 0, broken.location().toString());
  }

  @Test
  @DisplayName(
      "the hint says to git rm the file when the tree is a GitOps repo, else to delete it and compile again")
  void hints() {
    assertEquals(
        "remove "
            + FILE
            + " from the GitOps repo (git rm) and submit again for a fresh key, or submit with --rerun (a new run, a new key)",
        refused(PLAIN_OK, SEALED, true).hint());
    assertEquals(
        "delete "
            + FILE
            + " and compile again: a fresh key pair is generated and sealed as platform.yaml says",
        refused(PLAIN_OK, SEALED, false).hint());
  }
}
