package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.manifest.YamlWriter;
import dev.trainyard.compiler.render.Provenance;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.compiler.testing.Wording;
import dev.trainyard.gitops.PlatformRender.Difference;
import dev.trainyard.gitops.PlatformRender.StaleFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code platform render} on real GitOps repositories: a bare repo a real submit wrote to, its
 * clone as the platform team's checkout (git CLI), and the files the render writes there.
 */
class PlatformRenderTest {
  @RegisterExtension static final Wording WORDING = new Wording();
  static final String EXAMPLE = read("examples/platform.yaml");
  static final String CQ = "clusters/local/_cluster/clusterqueue-ml.yaml";

  @TempDir Path temp;
  GitOpsFixture fixture;

  @BeforeEach
  void setUp() {
    fixture = new GitOpsFixture(temp, "run: torchrun train.py\nnodes: 2\nresources: {gpus: 4}\n");
  }

  static String read(String path) {
    try {
      return Files.readString(
          Path.of(System.getProperty("trainyard.repo.root", "..")).resolve(path),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The GitOps repo with {@code platform} committed by the git CLI and one run submitted. */
  Path submitted(String platform) throws Exception {
    GitCli.pushFiles(
        fixture.bare, temp.resolve("ops"), Map.of("platform.yaml", platform), "platform");
    SubmitResult result =
        fixture
            .submitter(GitOpsFixture.T0)
            .submit(fixture.request(fixture.project.trainYaml(), false, false));
    assertFalse(result.hasErrors(), result.diagnostics().toString());
    GitCli.git(temp.resolve("ops"), "pull", "-q", "--rebase", "origin", "main");
    return temp.resolve("ops");
  }

  static void write(Path dir, String path, String text) throws Exception {
    Files.createDirectories(dir.resolve(path).getParent());
    Files.writeString(dir.resolve(path), text, StandardCharsets.UTF_8);
  }

  static List<String> paths(PlatformRender.Result r) {
    return r.stale().stream().map(f -> f.path() + " " + f.difference()).toList();
  }

  /** The render of the checkout {@code ops} as it is on disk. */
  static PlatformRender.Result render(Path ops) {
    return PlatformRender.of(new FolderSnapshot(ops));
  }

  /**
   * Renders the checkout {@code ops} and asserts its stale files, each {@code "path DIFFERENCE"},
   * in order.
   */
  static PlatformRender.Result assertStale(Path ops, String... expected) {
    PlatformRender.Result r = render(ops);
    assertEquals(List.of(expected), paths(r));
    return r;
  }

  /** Writes {@code platform} as the checkout's platform.yaml, then {@link #assertStale}. */
  static PlatformRender.Result assertStaleWith(Path ops, String platform, String... expected)
      throws Exception {
    write(ops, "platform.yaml", platform);
    return assertStale(ops, expected);
  }

  /**
   * Writes {@code r}'s edits into {@code ops} as {@code platform render} does, and asserts that a
   * second render of the checkout finds nothing stale.
   */
  static void applyUpToDate(PlatformRender.Result r, Path ops) throws IOException {
    TreeWriter.apply(r.edits(), ops);
    assertEquals(List.of(), render(ops).stale(), "the written checkout renders up to date");
  }

  @Test
  @DisplayName(
      "after a real submit the render finds nothing to change: the same code writes both, byte for byte")
  void sameAsSubmit() throws Exception {
    submitted(EXAMPLE);
    try (GitOpsRepository repo = GitOpsRepository.local(fixture.bare)) {
      PlatformRender.Result r = PlatformRender.of(repo.snapshot("main"));
      assertFalse(r.failed());
      assertEquals(List.of(), r.diagnostics());
      assertEquals(List.of(), r.stale());
      assertEquals(List.of(), r.edits());
    }
    PlatformRender.Result checkout = render(temp.resolve("ops"));
    assertEquals(List.of(), checkout.stale(), "the checkout on disk reads as the commit does");
  }

  @Test
  @DisplayName(
      "a hand-written file in _queues/ is HAND_WRITTEN: render warns W813 at it, --check's E811 says hand-written; a queue object trainyard wrote stays EXTRA")
  void handWrittenFile() throws Exception {
    Path ops = submitted(EXAMPLE);
    String queues = "clusters/local/ml/_queues/";
    write(
        ops,
        queues + "limitrange.yaml",
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: disk, namespace: ml}\n"
            + "spec: {limits: [{type: Container, min: {ephemeral-storage: 1Gi}}]}\n");
    String ours = Files.readString(ops.resolve(queues + "localqueue-ml.yaml"));
    write(ops, queues + "localqueue-old.yaml", ours.replace("name: ml\n", "name: old\n"));
    PlatformRender.Result r =
        assertStale(
            ops, queues + "limitrange.yaml HAND_WRITTEN", queues + "localqueue-old.yaml EXTRA");
    List<Diagnostic> warnings = PlatformRender.handWrittenWarnings(r);
    assertEquals(1, warnings.size(), warnings.toString());
    Diagnostic w = warnings.get(0);
    assertEquals(DiagnosticCode.HAND_WRITTEN_QUEUE_FILE, w.code());
    assertFalse(w.isError());
    assertEquals(SourceLocation.ofFile(queues + "limitrange.yaml"), w.location());
    WORDING.approve(w);
    Diagnostic stale = PlatformRender.staleDiagnostics(r).get(0);
    assertEquals(DiagnosticCode.QUEUE_OBJECTS_STALE, stale.code());
    assertTrue(stale.message().startsWith("hand-written file in a folder trainyard owns"));
    assertTrue(stale.hint().startsWith("move it out of the folder"), stale.hint());
    WORDING.approve(stale);
    assertTrue(
        PlatformRender.staleDiagnostics(r).get(1).message().startsWith("queue file platform.yaml"));
  }

  @Test
  @DisplayName(
      "a quota change makes the ClusterQueue stale at its line; written, the checkout matches and the next submit changes no queue file")
  void quotaChange() throws Exception {
    Path ops = submitted(EXAMPLE);
    write(
        ops, "platform.yaml", EXAMPLE.replace("nvidia.com/gpu: \"32\"", "nvidia.com/gpu: \"16\""));
    PlatformRender.Result r = render(ops);
    assertEquals(List.of(new StaleFile(CQ, Difference.DIFFERS, 34)), r.stale());
    List<Diagnostic> d = PlatformRender.staleDiagnostics(r);
    assertEquals(DiagnosticCode.QUEUE_OBJECTS_STALE, d.get(0).code());
    assertEquals(
        CQ + ":34:1",
        d.get(0).location().file()
            + ":"
            + d.get(0).location().line()
            + ":"
            + d.get(0).location().column());
    WORDING.approve(d.get(0));
    String before = Files.readString(ops.resolve(CQ));
    applyUpToDate(r, ops);
    String after = Files.readString(ops.resolve(CQ));
    assertTrue(
        before.contains("nominalQuota: \"32\"") && after.contains("nominalQuota: \"16\""), after);
    assertEquals(
        List.of(),
        Files.list(ops.resolve("clusters/local/_cluster"))
            .filter(p -> p.getFileName().toString().startsWith(".trainyard"))
            .toList());
    GitCli.git(ops, "add", "-A");
    GitCli.git(ops, "commit", "-q", "-m", "quota");
    GitCli.git(ops, "push", "-q", "origin", "HEAD:main");
    SubmitResult rerun =
        fixture
            .submitter(GitOpsFixture.T0.plusSeconds(3600))
            .submit(fixture.request(fixture.project.trainYaml(), true, false));
    assertFalse(rerun.hasErrors(), rerun.diagnostics().toString());
    assertEquals(1, rerun.newRuns().size());
    assertEquals(after, GitCli.show(fixture.bare, CQ), "submit writes what the render wrote");
  }

  @Test
  @DisplayName(
      "a new namespace gains its _queues folder and kustomization roots; a dropped one loses its _queues, runs stay")
  void namespaces() throws Exception {
    Path ops = submitted(EXAMPLE);
    String two =
        EXAMPLE
            .replace(
                "namespaces:\n",
                "namespaces:\n  - {name: team-b, cluster: local, sources: [\"*\"], defaultQueue: team-b}\n")
            .replace(
                "    - {name: ml, namespace: ml, clusterQueue: ml}",
                "    - {name: ml, namespace: ml, clusterQueue: ml}\n    - {name: team-b, namespace: team-b, clusterQueue: ml}")
            .replace("      namespaces: [ml]", "      namespaces: [ml, team-b]");
    PlatformRender.Result r =
        assertStaleWith(
            ops,
            two,
            CQ + " DIFFERS",
            "clusters/local/kustomization.yaml DIFFERS",
            "clusters/local/team-b/_queues/kustomization.yaml MISSING",
            "clusters/local/team-b/_queues/localqueue-team-b.yaml MISSING",
            "clusters/local/team-b/kustomization.yaml MISSING");
    applyUpToDate(r, ops);
    assertTrue(
        Files.readString(ops.resolve("clusters/local/kustomization.yaml")).contains("- team-b\n"));
    String run =
        Files.list(ops.resolve("clusters/local/ml"))
            .map(p -> p.getFileName().toString())
            .filter(n -> !n.startsWith("_") && !n.endsWith(".yaml"))
            .findFirst()
            .orElseThrow();
    String dropped =
        two.replace("    - {name: ml, namespace: ml, clusterQueue: ml}\n", "")
            .replaceAll("(?s)  - name: ml\n.*?(?=gpu:\n)", "")
            .replace("      namespaces: [ml, team-b]", "      namespaces: [team-b]");
    PlatformRender.Result gone =
        assertStaleWith(
            ops,
            dropped,
            CQ + " DIFFERS",
            "clusters/local/ml/_queues/kustomization.yaml EXTRA",
            "clusters/local/ml/_queues/localqueue-ml.yaml EXTRA",
            "clusters/local/ml/kustomization.yaml DIFFERS");
    assertEquals(List.of(), gone.diagnostics());
    applyUpToDate(gone, ops);
    assertFalse(Files.exists(ops.resolve("clusters/local/ml/_queues")));
    assertTrue(Files.isDirectory(ops.resolve("clusters/local/ml/" + run)), "the run folder stays");
    assertEquals(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- "
            + run
            + "\n",
        Files.readString(ops.resolve("clusters/local/ml/kustomization.yaml")));
    PlatformRender.staleDiagnostics(gone).forEach(WORDING::approve);
    Diagnostic extra = PlatformRender.staleDiagnostics(gone).get(1);
    assertEquals(
        SourceLocation.ofFile("clusters/local/ml/_queues/kustomization.yaml"),
        extra.location(),
        "a file that goes has no line");
  }

  @Test
  @DisplayName("a cluster platform.yaml no longer has loses its _cluster folder")
  void clusterDropped() throws Exception {
    Path ops = submitted(EXAMPLE);
    // Written by an earlier render: it carries the provenance every queue object has.
    write(
        ops,
        "clusters/old/_cluster/clusterqueue-x.yaml",
        "kind: ClusterQueue\nmetadata:\n  annotations:\n    trainyard.dev/platform: platform.yaml\n");
    write(ops, "clusters/old/_cluster/kustomization.yaml", "resources: [clusterqueue-x.yaml]\n");
    write(ops, "clusters/old/kustomization.yaml", "resources: [_cluster]\n");
    assertStale(
        ops,
        "clusters/old/_cluster/clusterqueue-x.yaml EXTRA",
        "clusters/old/_cluster/kustomization.yaml EXTRA",
        "clusters/old/kustomization.yaml DIFFERS");
  }

  @Test
  @DisplayName("a broken platform.yaml is its compile diagnostics, and nothing is rendered")
  void brokenPlatform() throws Exception {
    Path ops = submitted(EXAMPLE);
    write(
        ops,
        "platform.yaml",
        EXAMPLE.replace("defaultRuntime: torch", "defaultRuntime: torch\nnoSuchField: 1"));
    PlatformRender.Result r = render(ops);
    assertTrue(r.failed());
    assertEquals(List.of(), r.edits());
    assertEquals("platform.yaml (GitOps repo)", r.diagnostics().get(0).location().file());
    write(
        ops,
        "platform.yaml",
        EXAMPLE.replace("defaultRuntime: torch", "defaultRuntime: no-such-runtime"));
    assertTrue(render(ops).failed(), "a runtime platform.yaml names must exist, as for a compile");
    assertTrue(EXAMPLE.contains("limit: 200Gi"), "examples/platform.yaml sets a disk limit");
    write(ops, "platform.yaml", EXAMPLE.replace("limit: 200Gi", "limit: 10Gi"));
    PlatformRender.Result limit = render(ops);
    assertTrue(
        limit.failed(),
        "a disk limit below the request is the platform pull request's error (render --check),"
            + " not first the next submit's");
    assertEquals(DiagnosticCode.INVALID_PLATFORM, limit.diagnostics().get(0).code());
    assertEquals(29, limit.diagnostics().get(0).location().line());
  }

  @Test
  @DisplayName(
      "a deleted cluster or namespace kustomization root is MISSING with the queue folders in step; written back, the checkout matches git")
  void missingRoots() throws Exception {
    Path ops = submitted(EXAMPLE);
    String clusterRoot = Files.readString(ops.resolve("clusters/local/kustomization.yaml"));
    String nsRoot = Files.readString(ops.resolve("clusters/local/ml/kustomization.yaml"));
    GitCli.git(ops, "rm", "-q", "clusters/local/kustomization.yaml");
    GitCli.git(ops, "rm", "-q", "clusters/local/ml/kustomization.yaml");
    PlatformRender.Result r =
        assertStale(
            ops,
            "clusters/local/kustomization.yaml MISSING",
            "clusters/local/ml/kustomization.yaml MISSING");
    assertEquals(List.of(), r.diagnostics());
    applyUpToDate(r, ops);
    assertEquals(clusterRoot, Files.readString(ops.resolve("clusters/local/kustomization.yaml")));
    assertEquals(nsRoot, Files.readString(ops.resolve("clusters/local/ml/kustomization.yaml")));
    GitCli.git(ops, "add", "-A");
    assertEquals("", GitCli.git(ops, "status", "--porcelain"), "the same roots submit wrote");
  }

  @Test
  @DisplayName(
      "staging an interrupted render left (.trainyard-* in a cluster or namespace folder) is LEFTOVER; the render removes it")
  void leftoverStaging() throws Exception {
    Path ops = submitted(EXAMPLE);
    write(ops, "clusters/local/.trainyard-abc123/clusterqueue-ml.yaml", "kind: ClusterQueue\n");
    write(ops, "clusters/local/ml/.trainyard-def456/localqueue-ml.yaml", "kind: LocalQueue\n");
    write(ops, "clusters/local/ml/.trainyard-ghi789", "resources: []\n");
    // Editors' backup files beside the folders are neither a cluster nor a namespace.
    write(ops, "clusters/local~", "x\n");
    write(ops, "clusters/local/ml~", "x\n");
    PlatformRender.Result r =
        assertStale(
            ops,
            "clusters/local/.trainyard-abc123 LEFTOVER",
            "clusters/local/ml/.trainyard-def456 LEFTOVER",
            "clusters/local/ml/.trainyard-ghi789 LEFTOVER");
    Files.delete(ops.resolve("clusters/local~"));
    Files.delete(ops.resolve("clusters/local/ml~"));
    List<Diagnostic> d = PlatformRender.staleDiagnostics(r);
    assertEquals("clusters/local/.trainyard-abc123", d.get(0).location().file());
    WORDING.approve(d.get(0));
    applyUpToDate(r, ops);
    assertEquals("", GitCli.git(ops, "status", "--porcelain", "--ignored"));
  }

  @Test
  @DisplayName(
      "a broken runtime is named from the GitOps repo's root, never from the temporary copy")
  void runtimeErrorRepoRelative() throws Exception {
    Path ops = submitted(EXAMPLE);
    write(ops, "runtimes/myrt/1.0/runtime.yaml", "name: myrt\nversion: \"1.0\"\nbogus: [\n");
    PlatformRender.Result r = render(ops);
    assertTrue(r.failed(), r.diagnostics().toString());
    Diagnostic d =
        r.diagnostics().stream()
            .filter(x -> x.location().file().endsWith("runtime.yaml"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(r.diagnostics().toString()));
    assertEquals("runtimes/myrt/1.0/runtime.yaml", d.location().file(), d.toString());
    assertFalse(
        r.diagnostics().toString().contains("trainyard-platform-"), r.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "a checkout without a platform.yaml file (renamed, or a folder) is E812 naming it; a file is fine")
  void missingPlatform() throws Exception {
    Path ops = submitted(EXAMPLE);
    assertEquals(Optional.empty(), PlatformRender.missingPlatform(ops, "platform.yaml"));
    GitCli.git(ops, "mv", "platform.yaml", "platform.yml");
    Diagnostic gone = PlatformRender.missingPlatform(ops, "ops/platform.yaml").orElseThrow();
    assertEquals(DiagnosticCode.PLATFORM_FILE_MISSING, gone.code());
    assertTrue(gone.isError());
    assertEquals("ops/platform.yaml", gone.location().file());
    WORDING.approve(gone);
    Files.createDirectories(ops.resolve("platform.yaml"));
    Diagnostic folder = PlatformRender.missingPlatform(ops, "platform.yaml").orElseThrow();
    assertTrue(
        folder.message().startsWith("platform.yaml is a folder, not a file:"), folder.message());
    Files.delete(ops.resolve("platform.yaml"));
    Files.createSymbolicLink(ops.resolve("platform.yaml"), Path.of("/dev/null"));
    Diagnostic device = PlatformRender.missingPlatform(ops, "platform.yaml").orElseThrow();
    assertTrue(
        device.message().startsWith("platform.yaml is not a regular file:"), device.message());
  }

  @Test
  @DisplayName("without platform.yaml: the embedded default platform, with W806")
  void embedded() throws Exception {
    Path ops = temp.resolve("empty");
    Files.createDirectories(ops.resolve("clusters"));
    PlatformRender.Result r = render(ops);
    assertEquals(
        List.of(DiagnosticCode.EMBEDDED_PLATFORM),
        r.diagnostics().stream().map(Diagnostic::code).toList());
    assertTrue(
        paths(r).contains("clusters/local/_cluster/clusterqueue-default.yaml MISSING"),
        paths(r).toString());
  }

  @Test
  @DisplayName("a file where a queue folder goes is E804, and nothing is rendered")
  void fileInTheWay() throws Exception {
    Path ops = temp.resolve("in-the-way");
    write(ops, "platform.yaml", EXAMPLE);
    write(ops, "clusters/local/ml", "a file\n");
    PlatformRender.Result r = render(ops);
    assertEquals(
        List.of(DiagnosticCode.GITOPS_FILE_IN_THE_WAY),
        r.diagnostics().stream().map(Diagnostic::code).toList());
    assertEquals(List.of(), r.edits());
    assertEquals(List.of(), r.stale());
  }

  @Test
  @DisplayName(
      "queue files written from another platform.yaml (submit --platform) differ only in trainyard.dev/platform: ORIGIN at that line, with its own E811 words; a file that also differs elsewhere stays DIFFERS")
  void originOnly() throws Exception {
    Path ops = submitted(EXAMPLE);
    String lq = "clusters/local/ml/_queues/localqueue-ml.yaml";
    String given = "    trainyard.dev/platform: platform.yaml (GitOps repo)\n";
    String other = "    trainyard.dev/platform: examples/platform.yaml\n";
    for (String file : List.of(CQ, lq)) {
      String text = Files.readString(ops.resolve(file));
      assertTrue(text.contains(given), text);
      write(ops, file, text.replace(given, other));
    }
    String lqText = Files.readString(ops.resolve(lq));
    int nameLine = lqText.substring(0, lqText.indexOf("  name: ml\n")).split("\n", -1).length;
    write(ops, lq, lqText.replace("  name: ml\n", "  name: ml2\n"));
    PlatformRender.Result r = render(ops);
    int cqLine =
        PlatformRender.firstDifferentLine(
            Files.readString(ops.resolve(CQ)),
            Files.readString(ops.resolve(CQ)).replace(other, given));
    assertEquals(
        List.of(
            new StaleFile(CQ, Difference.ORIGIN, cqLine),
            // Its origin and its name differ: at the name's line, past the annotation's.
            new StaleFile(lq, Difference.DIFFERS, nameLine)),
        r.stale());
    Diagnostic d = PlatformRender.staleDiagnostics(r).get(0);
    assertEquals(new SourceLocation(CQ, cqLine, 1), d.location());
    WORDING.approve(d);
    applyUpToDate(r, ops);
    assertTrue(Files.readString(ops.resolve(CQ)).contains(given));
  }

  @Test
  @DisplayName(
      "a long annotation value with spaces, as Trainyard's own YAML writer folds it over lines, is still ORIGIN")
  void originFoldedByTheWriter() throws Exception {
    Path ops = submitted(EXAMPLE);
    String text = Files.readString(ops.resolve(CQ));
    ObjectNode root =
        (ObjectNode)
            new YamlDocumentLoader().load(new SourceFile(CQ, text)).value().orElseThrow().root();
    String longPath =
        "shared configuration for the machine learning research platform team/production clusters"
            + " in the main data center/platform.yaml";
    ((ObjectNode) root.path("metadata").path("annotations")).put(Provenance.PLATFORM, longPath);
    String folded = YamlWriter.write(root);
    assertFalse(
        folded.contains(longPath), "the writer keeps it on one line; this test needs a fold");
    write(ops, CQ, folded);
    PlatformRender.Result r = render(ops);
    assertEquals(List.of(new StaleFile(CQ, Difference.ORIGIN, 6)), r.stale(), folded);
  }

  @Test
  @DisplayName(
      "a checkout with CRLF line ends (core.autocrlf=true) is up to date, nothing to write; a CRLF file whose quota changed is stale at that line")
  void crlfCheckout() throws Exception {
    Path ops = submitted(EXAMPLE);
    List<Path> files;
    try (var walk = Files.walk(ops.resolve("clusters"))) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    assertTrue(files.size() >= 5, files.toString());
    for (Path f : files) {
      Files.writeString(f, Files.readString(f).replace("\n", "\r\n"));
    }
    PlatformRender.Result r = render(ops);
    assertEquals(List.of(), r.stale());
    assertEquals(List.of(), r.edits());
    write(
        ops, "platform.yaml", EXAMPLE.replace("nvidia.com/gpu: \"32\"", "nvidia.com/gpu: \"16\""));
    assertEquals(List.of(new StaleFile(CQ, Difference.DIFFERS, 34)), render(ops).stale());
    assertEquals(null, PlatformRender.withoutCarriageReturns(null));
    assertEquals("a\rb\nc\n", PlatformRender.withoutCarriageReturns("a\rb\r\nc\n"));
  }

  @Test
  @DisplayName(
      "firstObjectDifference: 0 when only the annotation's value differs (folded over lines too); else the committed file's first other differing line, past the annotation")
  void firstObjectDifference() {
    String a =
        "metadata:\n  annotations:\n    trainyard.dev/platform: a.yaml\n    x: y\n  name: x\n";
    String b = a.replace("a.yaml", "\"b: c.yaml\"");
    String folded = a.replace("a.yaml", "a very long folder\n      name with spaces/platform.yaml");
    assertEquals(0, PlatformRender.firstObjectDifference(a, b));
    assertEquals(0, PlatformRender.firstObjectDifference(b, a));
    assertEquals(0, PlatformRender.firstObjectDifference(folded, a));
    assertEquals(0, PlatformRender.firstObjectDifference(a, folded));
    // Other differences: at the committed file's line, counted past a folded annotation.
    assertEquals(5, PlatformRender.firstObjectDifference(a, b.replace("name: x", "name: y")));
    assertEquals(6, PlatformRender.firstObjectDifference(folded, a.replace("name: x", "name: y")));
    assertEquals(4, PlatformRender.firstObjectDifference(a, b.replace("x: y", "x: z")));
    // A continuation-deep line after the annotation is part of it only right after it.
    assertEquals(4, PlatformRender.firstObjectDifference(a, b.replace("    x: y", "      x: y")));
    // One past the committed file's end when the other goes on.
    assertEquals(6, PlatformRender.firstObjectDifference(a, b + "more\n"));
    assertEquals(6, PlatformRender.firstObjectDifference(a + "more\n", b));
    // Texts without a final newline: one running out before the other.
    String p = "x:\n    trainyard.dev/platform: a\ny";
    String q = "x:\n    trainyard.dev/platform: b\ny\nz";
    assertEquals(4, PlatformRender.firstObjectDifference(p, q));
    assertEquals(4, PlatformRender.firstObjectDifference(q, p));
    // Without the annotation in either: not ORIGIN, at the plain first difference.
    String none = a.replace("    trainyard.dev/platform: a.yaml\n", "");
    assertEquals(3, PlatformRender.firstObjectDifference(none, a));
    assertEquals(3, PlatformRender.firstObjectDifference(a, none));
    assertEquals(
        3,
        PlatformRender.firstObjectDifference(
            a, a.replace("    trainyard.dev/platform", "      trainyard.dev/platform")));
    // Only the first annotation line counts as the annotation.
    assertEquals(
        4,
        PlatformRender.firstObjectDifference(
            a, b.replace("    x: y", "    trainyard.dev/platform: other")));
  }

  @Test
  @DisplayName("the first differing line is counted from 1, and past the shorter text")
  void firstDifferentLine() {
    assertEquals(1, PlatformRender.firstDifferentLine("a\n", "b\n"));
    assertEquals(2, PlatformRender.firstDifferentLine("a\nb\n", "a\nc\n"));
    assertEquals(3, PlatformRender.firstDifferentLine("a\nb\n", "a\nb\nc\n"));
    assertEquals(3, PlatformRender.firstDifferentLine("a\nb", "a\nb\nc"));
    assertEquals(3, PlatformRender.firstDifferentLine("a\nb\nc", "a\nb"));
  }
}
