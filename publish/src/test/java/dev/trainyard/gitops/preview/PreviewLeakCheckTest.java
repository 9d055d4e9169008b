package dev.trainyard.gitops.preview;

import static dev.trainyard.gitops.preview.PreviewCases.EXAMPLE;
import static dev.trainyard.gitops.preview.PreviewCases.T1;
import static dev.trainyard.gitops.preview.PreviewCases.TORCH;
import static dev.trainyard.gitops.preview.PreviewRepos.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.secrets.SshKeyGenerator;
import dev.trainyard.gitops.GitOpsRepository;
import dev.trainyard.gitops.Snapshot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code preview} in a GitOps repository runs the leak check on what the pull request changes, as
 * submit does.
 */
class PreviewLeakCheckTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "a pull request adding a key in a ConfigMap: E809 at its file and line, the preview fails, and no output shows the key")
  void keyInPullRequest() throws Exception {
    String key = new SshKeyGenerator(new SecureRandom()).generate("leak").privateKeyOpenSsh();
    String b64 = Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8));
    Map<String, String> a =
        PreviewRepos.compile(temp, "jobs/a", TORCH, EXAMPLE, PreviewRepos.sha('1'), T0, 1);
    Path work = PreviewRepos.init(temp.resolve("gitops"));
    PreviewRepos.commit(
        work, PreviewCases.files(Map.of("platform.yaml", EXAMPLE), a), List.of(), "a", T0);
    String configMap =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keys\n  namespace: ml\ndata:\n  id: "
            + b64
            + "\n";
    PreviewRepos.commit(
        work,
        Map.of("clusters/local/ml/_extra/configmap-keys.yaml", configMap),
        List.of(),
        "oops",
        T1);
    Preview p = GitOpsPreview.of(work, "HEAD~1", "HEAD", Optional.empty());
    List<Diagnostic> leaks =
        p.diagnostics().stream()
            .filter(d -> d.code() == DiagnosticCode.PRIVATE_KEY_IN_TREE)
            .toList();
    assertEquals(
        List.of("clusters/local/ml/_extra/configmap-keys.yaml:7"),
        leaks.stream().map(d -> d.location().toString()).toList());
    assertTrue(p.refused());
    String shown = MarkdownPreview.whole(p) + JsonPreview.render(p);
    for (int i = 0; i + 16 <= b64.length(); i += 8) {
      assertFalse(shown.contains(b64.substring(i, i + 16)), "key fragment in the preview");
    }
    assertTrue(shown.contains("E809"), shown);
  }

  @Test
  @DisplayName(
      "the same pull request without the key: no E809, and the preview does not fail for it")
  void noKeyNoLeak() throws Exception {
    Map<String, String> a =
        PreviewRepos.compile(temp, "jobs/a", TORCH, EXAMPLE, PreviewRepos.sha('1'), T0, 1);
    Path work = PreviewRepos.init(temp.resolve("gitops"));
    PreviewRepos.commit(
        work, PreviewCases.files(Map.of("platform.yaml", EXAMPLE), a), List.of(), "a", T0);
    String configMap =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keys\n  namespace: ml\ndata:\n  id: hello\n";
    PreviewRepos.commit(
        work,
        Map.of("clusters/local/ml/_extra/configmap-keys.yaml", configMap),
        List.of(),
        "fine",
        T1);
    Preview p = GitOpsPreview.of(work, "HEAD~1", "HEAD", Optional.empty());
    assertEquals(
        List.of(),
        p.diagnostics().stream()
            .filter(d -> d.code() == DiagnosticCode.PRIVATE_KEY_IN_TREE)
            .toList());
    assertTrue(
        MarkdownPreview.whole(p).contains("id: hello")
            || MarkdownPreview.whole(p).contains("hello"),
        MarkdownPreview.whole(p));
  }

  @Test
  @DisplayName(
      "a hidden file reads as one comment line, in read and in folder; other files and a tree without E809 are untouched")
  void hiding() {
    Snapshot tree = new MapSnapshot(Map.of("c/a.yaml", "secret", "c/b.yaml", "fine"));
    Diagnostic e809 =
        Diagnostic.error(
            DiagnosticCode.PRIVATE_KEY_IN_TREE, new SourceLocation("c/a.yaml", 1, 0), "", "k");
    Diagnostic other =
        Diagnostic.error(DiagnosticCode.YAML_SYNTAX, new SourceLocation("c/b.yaml", 1, 0), "", "x");
    Snapshot hidden = LeakHiding.hide(tree, List.of(e809, other));
    assertEquals(Optional.of(LeakHiding.HIDDEN), hidden.read("c/a.yaml"));
    assertEquals(Optional.of("fine"), hidden.read("c/b.yaml"));
    assertEquals(Optional.empty(), hidden.read("c/none.yaml"));
    assertEquals(Map.of("a.yaml", LeakHiding.HIDDEN, "b.yaml", "fine"), hidden.folder("c"));
    assertEquals(List.of("a.yaml", "b.yaml"), hidden.children("c"));
    assertEquals(Optional.of("abc"), hidden.commit());
    assertEquals(Optional.empty(), hidden.blobId("c/a.yaml"), "a hidden file's id is not given");
    assertEquals(Optional.of("id:c/b.yaml"), hidden.blobId("c/b.yaml"));
    assertTrue(LeakHiding.hide(tree, List.of(other)) == tree);
    Snapshot secret = new MapSnapshot(Map.of("c/s.yaml", "kind: Secret\ndata:\n  k: v\n"));
    Diagnostic inData =
        Diagnostic.error(
            DiagnosticCode.PRIVATE_KEY_IN_TREE, new SourceLocation("c/s.yaml", 3, 0), "", "k");
    assertTrue(
        LeakHiding.hide(secret, List.of(inData)) == secret,
        "a key in a Secret's data is masked by the preview already");
  }

  @Test
  @DisplayName(
      "a key file at the root of a real GitOps tree is hidden in the root folder's listing too; its neighbours are not")
  void hidingAtTheRoot() throws Exception {
    String key = new SshKeyGenerator(new SecureRandom()).generate("root").privateKeyOpenSsh();
    Path work = PreviewRepos.init(temp.resolve("gitops"));
    PreviewRepos.commit(
        work,
        Map.of("id_ed25519", key, "README.md", "ops\n", "c/a.yaml", "kind: ConfigMap\n"),
        List.of(),
        "keys",
        T0);
    try (GitOpsRepository repo = GitOpsRepository.local(work)) {
      Snapshot tree = repo.snapshot("HEAD");
      Diagnostic e809 =
          Diagnostic.error(
              DiagnosticCode.PRIVATE_KEY_IN_TREE, new SourceLocation("id_ed25519", 1, 0), "", "k");
      Snapshot hidden = LeakHiding.hide(tree, List.of(e809));
      assertEquals(
          Map.of(
              "README.md",
              "ops\n",
              "c/a.yaml",
              "kind: ConfigMap\n",
              "id_ed25519",
              LeakHiding.HIDDEN),
          hidden.folder(""));
      assertEquals(Optional.of(LeakHiding.HIDDEN), hidden.read("id_ed25519"));
      assertEquals(Map.of("a.yaml", "kind: ConfigMap\n"), hidden.folder("c"));
    }
  }

  /** A snapshot of a map of files in one folder level, enough for {@link LeakHiding}. */
  private record MapSnapshot(Map<String, String> files) implements Snapshot {
    @Override
    public Optional<String> commit() {
      return Optional.of("abc");
    }

    @Override
    public Optional<String> read(String path) {
      return Optional.ofNullable(files.get(path));
    }

    @Override
    public Optional<String> blobId(String path) {
      return read(path).map(t -> "id:" + path);
    }

    @Override
    public List<String> children(String folder) {
      return files.keySet().stream()
          .filter(f -> f.startsWith(folder + "/"))
          .map(f -> f.substring(folder.length() + 1))
          .sorted()
          .toList();
    }

    @Override
    public SortedMap<String, String> folder(String folder) {
      SortedMap<String, String> out = new TreeMap<>();
      files.forEach(
          (k, v) -> {
            if (k.startsWith(folder + "/")) {
              out.put(k.substring(folder.length() + 1), v);
            }
          });
      return out;
    }
  }
}
