package dev.trainyard.gitops.preview;

import static dev.trainyard.gitops.preview.PreviewCases.EXAMPLE;
import static dev.trainyard.gitops.preview.PreviewCases.EXAMPLE_PLAIN;
import static dev.trainyard.gitops.preview.PreviewCases.MPI;
import static dev.trainyard.gitops.preview.PreviewCases.T1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No preview carries Secret data, under any secrets policy, in Markdown or JSON: the output is
 * searched for the private key's body, its base64 (as a plain Secret holds it), the public key, the
 * ciphertexts of the SealedSecret or SOPS file, and every 16-character substring of each. In the
 * GitOps-repo cases the key comes from {@link KnownKeySecrets} (the compiler's generator and
 * sealers, the key kept by the test); in the source-repo cases the committed run's Secret is read
 * back from the GitOps repo (the key itself under the plain policy, the ciphertexts under the
 * others).
 */
class SecretLeakTest {
  private static final int FRAGMENT = 16;
  private static final String SOPS =
      EXAMPLE.replaceAll(
          "(?s)\nsecrets:.*?\nqueues:",
          "\nsecrets:\n  policy: sops-age\n  sopsAge:\n    recipients: [age15jhxq8t3j922pmhn00h3rqpellwrkqpzpfr9yn9cz8ks02hl4yws7m7tsr]\nqueues:");
  @TempDir Path temp;

  static Stream<String> policies() {
    return Stream.of("plain", "sealed-secrets", "sops-age");
  }

  private static String platform(String policy) {
    return switch (policy) {
      case "plain" -> EXAMPLE_PLAIN;
      case "sealed-secrets" -> EXAMPLE;
      default -> SOPS;
    };
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  @DisplayName(
      "an MPI run added, and its Secret re-keyed in place: no key material in Markdown or JSON")
  void gitOpsMode(String policy) throws Exception {
    KnownKeySecrets one = new KnownKeySecrets();
    KnownKeySecrets two = new KnownKeySecrets();
    Map<String, String> first =
        PreviewRepos.compile(
            temp, "jobs/mpi", MPI, platform(policy), PreviewRepos.sha('1'), PreviewRepos.T0, one);
    Map<String, String> rekeyed =
        PreviewRepos.compile(
            temp, "jobs/mpi", MPI, platform(policy), PreviewRepos.sha('1'), PreviewRepos.T0, two);
    List<String> secrets = new ArrayList<>(keyMaterial(one));
    secrets.addAll(keyMaterial(two));
    secrets.addAll(ciphertexts(first));
    secrets.addAll(ciphertexts(rekeyed));
    Preview added =
        PreviewCases.gitOps(
            temp.resolve("added"), Map.of("platform.yaml", platform(policy)), first, List.of());
    assertEquals(1, added.runs(RunChange.Status.ADDED).size());
    assertNoLeak(added, secrets);
    Preview changed =
        PreviewCases.gitOps(
            temp.resolve("changed"),
            PreviewCases.files(Map.of("platform.yaml", platform(policy)), first),
            rekeyed,
            List.of());
    ObjectChange secret =
        changed.runs().get(0).objects().stream()
            .filter(o -> o.secret() != ObjectChange.SecretForm.NONE)
            .findFirst()
            .orElseThrow();
    assertTrue(secret.fields().stream().allMatch(FieldChange::secret), secret.toString());
    assertTrue(
        MarkdownPreview.whole(changed).contains("*** (before)")
            && MarkdownPreview.whole(changed).contains("*** (after)"));
    assertNoLeak(changed, secrets);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  @DisplayName(
      "source repo: a new MPI run compared with the committed one: the committed Secret's data is nowhere in the preview")
  void sourceMode(String policy) throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(
            temp, Map.of("jobs/mpi/train.yaml", MPI), Map.of("platform.yaml", platform(policy)));
    assertFalse(
        s.submit(temp.resolve("cache"), PreviewRepos.T0, "jobs/mpi/train.yaml").hasErrors());
    Map<String, String> committed = committedRun(s.gitops());
    List<String> secrets = new ArrayList<>(ciphertexts(committed));
    if (policy.equals("plain")) {
      secrets.addAll(fromPlainSecret(committed));
    }
    assertFalse(secrets.isEmpty());
    PreviewRepos.commit(
        s.source(),
        Map.of("jobs/mpi/train.yaml", MPI.replace("nodes: 2", "nodes: 3")),
        List.of(),
        "more",
        T1);
    Preview p = s.preview(temp.resolve("cache"), Optional.of("HEAD~1"), List.of());
    assertTrue(
        p.runs(RunChange.Status.ADDED).get(0).previous().isPresent(),
        "the new run is compared with the committed one");
    assertNoLeak(p, secrets);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  @DisplayName(
      "key material in a kustomization.yaml (secretGenerator literals, inline Secret patches) and in a List or a later document: never shown")
  void kustomizationAndLists(String policy) throws Exception {
    KnownKeySecrets keys = new KnownKeySecrets();
    List<String> secrets = keyMaterial(keys);
    String body = secrets.get(0);
    String b64 = secrets.get(1);
    Map<String, String> first =
        PreviewRepos.compile(
            temp, "jobs/mpi", MPI, platform(policy), PreviewRepos.sha('1'), PreviewRepos.T0, keys);
    String folder = PreviewCases.runFolder(first);
    String kustomization =
        "kind: Kustomization\nsecretGenerator:\n- name: k\n  literals: [\"KEY="
            + body
            + "\"]\npatches:\n- target: {kind: Secret}\n"
            + "  patch: |\n    - {op: add, path: /data/k, value: "
            + b64
            + "}\npatchesStrategicMerge:\n- |\n  kind: Secret\n  metadata: {name: s}\n  data: {k: "
            + b64
            + "}\n";
    String list =
        "kind: List\nitems:\n- kind: Secret\n  metadata: {name: l}\n  data: {k: " + b64 + "}\n";
    String docs =
        "kind: ConfigMap\nmetadata: {name: c}\n---\nkind: Secret\nmetadata: {name: d}\nstringData: {k: \""
            + body
            + "\"}\n";
    Map<String, String> extra =
        Map.of(
            folder + "/kustomization.yaml",
            kustomization,
            folder + "/list-l.yaml",
            list,
            folder + "/docs.yaml",
            docs);
    Preview added =
        PreviewCases.gitOps(
            temp.resolve("added"),
            Map.of("platform.yaml", platform(policy)),
            PreviewCases.files(first, extra),
            List.of());
    assertNoLeak(added, secrets);
    Map<String, String> changedExtra = new HashMap<>();
    extra.forEach(
        (k, v) ->
            changedExtra.put(
                k, v.replace(body, "x" + body.substring(1)).replace(b64, "y" + b64.substring(1))));
    Preview changed =
        PreviewCases.gitOps(
            temp.resolve("changed"),
            PreviewCases.files(Map.of("platform.yaml", platform(policy)), first, changedExtra),
            extra,
            List.of());
    assertTrue(
        MarkdownPreview.whole(changed).contains("KEY=*** (before)"),
        "the literal's key is shown, its value masked");
    assertNoLeak(changed, secrets);
  }

  /** The committed run's files in the bare GitOps repo, read with the git CLI. */
  private static Map<String, String> committedRun(Path bare) {
    Map<String, String> files = new TreeMap<>();
    for (String path :
        PreviewRepos.git(bare, PreviewRepos.T0, "ls-tree", "-r", "--name-only", "main")
            .lines()
            .toList()) {
      if (path.contains("/secret-") || path.contains("/sealedsecret-")) {
        files.put(path, PreviewRepos.git(bare, PreviewRepos.T0, "show", "main:" + path));
      }
    }
    return files;
  }

  /** The key pair's private key (PEM body, PEM base64) and public key (blob, line base64). */
  private static List<String> keyMaterial(KnownKeySecrets source) {
    String privateKey = source.keys().privateKeyOpenSsh();
    String publicKey = source.keys().publicKeyAuthorized();
    assertTrue(privateKey.contains("PRIVATE KEY"));
    Base64.Encoder b64 = Base64.getEncoder();
    return List.of(
        privateKey.lines().filter(l -> !l.startsWith("-----")).reduce("", String::concat),
        b64.encodeToString(privateKey.getBytes(StandardCharsets.UTF_8)),
        publicKey.split(" ")[1],
        b64.encodeToString(publicKey.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The base64 data values of a plain Secret, their decoded keys' bodies (PEM lines joined, public
   * key blob).
   */
  private static List<String> fromPlainSecret(Map<String, String> files) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> f : files.entrySet()) {
      if (!f.getKey().contains("/secret-")) {
        continue;
      }
      JsonNode data = TrainProject.parse(f.getKey(), f.getValue()).path("data");
      String privateKey =
          new String(
              Base64.getDecoder().decode(data.path("ssh-privatekey").asText()),
              StandardCharsets.UTF_8);
      String publicKey =
          new String(
              Base64.getDecoder().decode(data.path("ssh-publickey").asText()),
              StandardCharsets.UTF_8);
      assertTrue(privateKey.contains("PRIVATE KEY"), "the plain Secret holds the private key");
      out.add(data.path("ssh-privatekey").asText());
      out.add(data.path("ssh-publickey").asText());
      out.add(privateKey.lines().filter(l -> !l.startsWith("-----")).reduce("", String::concat));
      out.add(publicKey.split(" ")[1]);
    }
    return out;
  }

  /** encryptedData values of a SealedSecret, ENC[…] data of a SOPS file. */
  private static List<String> ciphertexts(Map<String, String> files) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> f : files.entrySet()) {
      JsonNode root = TrainProject.parse(f.getKey(), f.getValue());
      root.path("spec").path("encryptedData").forEach(v -> out.add(v.asText()));
      if (root.has("sops")) {
        root.path("data")
            .forEach(
                v -> out.add(v.asText().replaceAll("^ENC\\[AES256_GCM,data:([^,]*),.*$", "$1")));
        out.add(
            root.path("sops")
                .path("age")
                .path(0)
                .path("enc")
                .asText()
                .lines()
                .filter(l -> !l.startsWith("-----"))
                .reduce("", String::concat));
      }
    }
    return out;
  }

  private static void assertNoLeak(Preview p, List<String> secrets) {
    List<String> outputs = new ArrayList<>(MarkdownPreview.parts(p, MarkdownPreview.GITHUB_LIMIT));
    outputs.add(JsonPreview.render(p));
    outputs.add(JsonPreview.render(p).replace("\\n", "\n"));
    for (String out : outputs) {
      for (String secret : secrets) {
        assertTrue(
            secret.length() >= FRAGMENT, "a secret shorter than a fragment: " + secret.length());
        for (int i = 0; i + FRAGMENT <= secret.length(); i++) {
          String fragment = secret.substring(i, i + FRAGMENT);
          if (out.contains(fragment)) {
            throw new AssertionError(
                "Secret data leaked: a 16-character fragment at offset "
                    + i
                    + " of a secret value appears in the output");
          }
        }
      }
    }
  }
}
