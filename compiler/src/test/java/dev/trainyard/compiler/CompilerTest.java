package dev.trainyard.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.TwoClusterPlatform;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline's own decisions, between the stages: where it stops and what it hands back when it
 * does, the source URL warnings it adds, the workdir check, and how it names platform.yaml.
 */
class CompilerTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  private static CompileResult compile(CompileRequest request) {
    return new Compiler(
            new SshSecretProvider(
                TrainProject.seeded(),
                Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)))
        .compile(request);
  }

  private static CompileRequest request(TrainProject p) {
    return request(p.trainYaml());
  }

  private static CompileRequest request(Path trainYaml) {
    return CompileRequest.builder(trainYaml).displayPath("train.yaml").build();
  }

  private static CompileRequest withRepo(TrainProject p, String url) {
    return CompileRequest.builder(p.trainYaml()).displayPath("train.yaml").sourceRepo(url).build();
  }

  private static CompileRequest withPlatform(TrainProject p, Path platform) {
    return CompileRequest.builder(p.trainYaml())
        .displayPath("train.yaml")
        .platformFile(platform)
        .build();
  }

  private static String allFiles(CompileResult r) {
    return String.join("\n", TrainProject.tree(r).files().values());
  }

  @Test
  @DisplayName(
      "an SSH remote is W312 at the file naming both URLs with a --source-repo hint, and pods clone its HTTPS form")
  void sshRemote() {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    CompileResult r = compile(withRepo(p, "git@github.com:acme/llm-training.git"));
    assertFalse(r.hasErrors(), r.diagnostics().toString());
    Diagnostic d = TrainProject.withCode(r, DiagnosticCode.SSH_URL_REWRITTEN).get(0);
    assertEquals(Severity.WARNING, d.severity());
    assertEquals(SourceLocation.ofFile("train.yaml"), d.location());
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
    assertTrue(allFiles(r).contains("https://github.com/acme/llm-training.git"));
    assertFalse(allFiles(r).contains("git@github.com"), allFiles(r));
  }

  @Test
  @DisplayName(
      "credentials in the source URL are W311 at the file, with the hint naming platform.yaml's credentialSecret")
  void credentialsWarning() {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    CompileResult r = compile(withRepo(p, "https://ci:s3cret@github.com/acme/llm-training.git"));
    Diagnostic d = TrainProject.withCode(r, DiagnosticCode.CREDENTIALS_IN_URL).get(0);
    assertEquals(Severity.WARNING, d.severity());
    assertEquals(SourceLocation.ofFile("train.yaml"), d.location());
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.SSH_URL_REWRITTEN));
    assertFalse(allFiles(r).contains("s3cret"));
  }

  @Test
  @DisplayName(
      "a workdir that is missing, or a file, is E309 at the workdir line with a hint; the compile stops before render")
  void workdirNotAFolder() throws Exception {
    TrainProject missing =
        TrainProject.create(temp.resolve("a"), "run: python t.py\nworkdir: nope\n");
    CompileResult r = missing.compile();
    Diagnostic d = TrainProject.withCode(r, DiagnosticCode.WORKDIR_OUTSIDE_REPO).get(0);
    assertEquals(new SourceLocation("train.yaml", 2, 10), d.location());
    assertEquals("/workdir", d.pointer());
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
    assertTrue(r.tree().isEmpty());
    assertTrue(r.job().isPresent(), "resolved, so the summary can name the run");
    TrainProject file =
        TrainProject.create(
            temp.resolve("b"),
            TrainProject.FOLDER,
            "run: python t.py\nworkdir: code\n",
            Map.of("code", "not a folder\n"));
    WORDING.approve(
        TrainProject.withCode(file.compile(), DiagnosticCode.WORKDIR_OUTSIDE_REPO)
            .get(0)
            .message());
  }

  @Test
  @DisplayName("a workdir folder committed next to train.yaml compiles, and pods start in it")
  void workdirInside() {
    TrainProject p =
        TrainProject.create(
            temp,
            TrainProject.FOLDER,
            "run: python t.py\nworkdir: code\n",
            Map.of("code/t.py", "x = 1\n"));
    CompileResult r = p.compile();
    assertEquals(List.of(), r.diagnostics());
    assertTrue(allFiles(r).contains("jobs/demo/code"), allFiles(r));
  }

  @Test
  @DisplayName(
      "a train.yaml that is a symlink out of its repository is one E305 and nothing else: the file is never read")
  void boundaryStopsFirst() throws Exception {
    Path outside = Files.writeString(temp.resolve("elsewhere.yaml"), "nodes: zero\nbogus: 1\n");
    TrainProject p = TrainProject.create(temp, "run: python t.py\n");
    Files.delete(p.trainYaml());
    Files.createSymbolicLink(p.trainYaml(), outside);
    CompileResult r = p.compile();
    assertEquals(1, r.diagnostics().size(), r.diagnostics().toString());
    assertEquals(DiagnosticCode.SOURCE_NOT_COMMITTED, r.diagnostics().get(0).code());
    assertTrue(r.job().isEmpty());
    assertTrue(r.tree().isEmpty());
  }

  @Test
  @DisplayName(
      "one compiler parses platform.yaml once for many train.yaml files, and again when its text changes between them")
  void platformParsedAgainWhenChanged() throws Exception {
    Path platform = Files.writeString(temp.resolve("platform.yaml"), TwoClusterPlatform.TEXT);
    TrainProject p =
        TrainProject.create(temp.resolve("a"), "runtime: torch\nrun: torchrun train.py\n");
    try (Compiler compiler =
        new Compiler(
            new SshSecretProvider(
                TrainProject.seeded(),
                Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)))) {
      CompileResult first = compiler.compile(withPlatform(p, platform));
      assertFalse(first.hasErrors(), first.diagnostics().toString());
      CompileResult again = compiler.compile(withPlatform(p, platform));
      assertEquals(allFiles(first), allFiles(again), "the same platform text, the same output");
      Files.writeString(
          platform, TwoClusterPlatform.with("defaultRuntime: torch", "defaultRuntime: troch"));
      CompileResult changed = compiler.compile(withPlatform(p, platform));
      assertEquals(
          List.of(DiagnosticCode.INVALID_PLATFORM),
          changed.diagnostics().stream().map(Diagnostic::code).toList(),
          "the edited platform.yaml is read: " + changed.diagnostics());
      Files.writeString(platform, TwoClusterPlatform.TEXT);
      assertEquals(allFiles(first), allFiles(compiler.compile(withPlatform(p, platform))));
    }
  }

  @Test
  @DisplayName(
      "a platform whose defaultRuntime is not installed is one E304 in platform.yaml, before any train.yaml is resolved")
  void platformRuntimesStopFirst() throws Exception {
    Path platform =
        Files.writeString(
            temp.resolve("platform.yaml"),
            TwoClusterPlatform.with("defaultRuntime: torch", "defaultRuntime: troch"));
    TrainProject p =
        TrainProject.create(temp, "runtime: torch\nrun: torchrun train.py\nbogusfield: 1\n");
    CompileResult none = compile(withPlatform(p, platform));
    assertEquals(
        List.of(DiagnosticCode.UNKNOWN_FIELD),
        none.diagnostics().stream().map(Diagnostic::code).toList(),
        "a train.yaml problem stops the compile before the platform's runtimes are checked");
    TrainProject ok =
        TrainProject.create(temp.resolve("b"), "runtime: torch\nrun: torchrun train.py\n");
    CompileResult r = compile(withPlatform(ok, platform));
    assertEquals(1, r.diagnostics().size(), r.diagnostics().toString());
    Diagnostic d = r.diagnostics().get(0);
    assertEquals(DiagnosticCode.INVALID_PLATFORM, d.code());
    assertEquals(3, d.location().line());
    WORDING.approve(d.hint());
    assertTrue(r.job().isEmpty());
  }

  @Test
  @DisplayName("a policy error stops the compile with the resolved job for the summary but no tree")
  void policyErrorKeepsJob() {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\nenv: {TRAINYARD_RUN: x}\n");
    CompileResult r = p.compile();
    assertEquals(
        DiagnosticCode.RESERVED_ENV, r.diagnostics().get(0).code(), r.diagnostics().toString());
    assertTrue(r.hasErrors());
    assertTrue(r.job().isPresent());
    assertTrue(r.tree().isEmpty());
  }

  @Test
  @DisplayName(
      "load problems of train.yaml and platform.yaml are reported together, and nothing is resolved")
  void loadProblemsTogether() throws Exception {
    Path platform = Files.writeString(temp.resolve("platform.yaml"), "kind: [\n");
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\nbogusfield: 1\n");
    CompileResult r = compile(withPlatform(p, platform));
    List<DiagnosticCode> codes = r.diagnostics().stream().map(Diagnostic::code).toList();
    assertTrue(
        codes.contains(DiagnosticCode.UNKNOWN_FIELD) && codes.contains(DiagnosticCode.YAML_SYNTAX),
        codes.toString());
    assertTrue(r.job().isEmpty());
  }

  @Test
  @DisplayName(
      "platform.yaml is named as given when relative, relative to the working directory when at most one folder up, else absolute")
  void platformDisplay() {
    Path cwd = Path.of("").toAbsolutePath();
    assertEquals("<embedded default platform>", Compiler.displayOf(Optional.empty(), Path.of("")));
    assertEquals(
        "conf/platform.yaml",
        Compiler.displayOf(Optional.of(Path.of("conf/platform.yaml")), Path.of("")));
    assertEquals(
        "conf/../platform.yaml", Compiler.relative(Path.of("conf/../platform.yaml"), Path.of("")));
    assertEquals("platform.yaml", Compiler.relative(cwd.resolve("platform.yaml"), Path.of("")));
    assertEquals(
        "conf/platform.yaml",
        Compiler.relative(cwd.resolve("x/../conf/platform.yaml"), Path.of("")));
    assertEquals(
        "../platform.yaml",
        Compiler.relative(cwd.getParent().resolve("platform.yaml"), Path.of("")));
    assertEquals(
        "../ops/platform.yaml",
        Compiler.relative(cwd.getParent().resolve("ops/platform.yaml"), Path.of("")));
    Path far = cwd.getParent().getParent().resolve("platform.yaml");
    assertEquals(far.toString(), Compiler.relative(far, Path.of("")));
    assertEquals(
        cwd.getParent().toString(), Compiler.relative(cwd.resolve("x/../.."), Path.of("")));
  }

  @Test
  @DisplayName(
      "queue objects name platform.yaml by its path in its git work tree, the same from every working directory and spelling; outside one by its file name; a copy by the caller's name")
  void platformProvenance() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    Path conf = Files.createDirectories(p.root().resolve("conf"));
    Path inRepo =
        Files.writeString(
            conf.resolve("platform.yaml"),
            Files.readString(Path.of("../examples/platform.yaml"))
                .replace("github.com/acme/*", "*"));
    String annotation = "trainyard.dev/platform: ";
    for (Path cwd : List.of(p.root(), conf, temp, Path.of("").toAbsolutePath())) {
      for (Path given : List.of(inRepo, conf.resolve("../../src/conf/./platform.yaml"))) {
        String out = queueFiles(p.compile(b -> b.platformFile(given).workingDirectory(cwd)));
        assertTrue(
            out.contains(annotation + "conf/platform.yaml\n"), cwd + " " + given + ":\n" + out);
        assertFalse(out.contains(temp.toString()), out);
      }
    }
    // A symlink is another name for the same file: to it, or to a folder above it, in the repo or
    // outside any.
    Path linkedFolder = Files.createSymbolicLink(p.root().resolve("ops"), conf);
    Path linkedFile = Files.createSymbolicLink(temp.resolve("link.yaml"), inRepo);
    for (Path link : List.of(linkedFolder.resolve("platform.yaml"), linkedFile)) {
      assertTrue(
          queueFiles(p.compile(b -> b.platformFile(link)))
              .contains(annotation + "conf/platform.yaml\n"),
          link.toString());
    }
    Path outside = Files.copy(inRepo, temp.resolve("ops-platform.yaml"));
    assertTrue(
        queueFiles(p.compile(b -> b.platformFile(outside)))
            .contains(annotation + "ops-platform.yaml\n"));
    assertTrue(
        queueFiles(
                p.compile(
                    b ->
                        b.platformFile(outside)
                            .platformDisplay("platform.yaml (GitOps repo)")
                            .platformProvenance(Optional.of("platform.yaml (GitOps repo)"))))
            .contains(annotation + "platform.yaml (GitOps repo)\n"));
    assertTrue(
        queueFiles(p.compile(b -> b)).contains(annotation + "<embedded default platform>\n"));
  }

  /** The queue objects of a compile's tree, one string; fails when the compile did not succeed. */
  private static String queueFiles(CompileResult r) {
    assertTrue(r.job().isPresent(), r.diagnostics().toString());
    Map<String, String> files = TrainProject.tree(r).files();
    String queues =
        String.join(
            "\n",
            files.entrySet().stream()
                .filter(e -> e.getKey().contains("/_queues/") || e.getKey().contains("/_cluster/"))
                .map(Map.Entry::getValue)
                .toList());
    assertFalse(queues.isEmpty(), files.keySet().toString());
    return queues;
  }

  /**
   * A platform runtimes folder holding runtime {@code tmpl} whose JobSet skeleton is {@code jobset}
   * (YAML lines at 2 spaces).
   */
  private Path runtimes(String jobset) throws Exception {
    Path dir = Files.createDirectories(temp.resolve("runtimes/tmpl/1.0-1"));
    Files.writeString(
        dir.resolve("runtime.yaml"),
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: tmpl\nversion: 1.0-1\n"
            + "framework: torch\nimage: docker.io/acme/t@sha256:"
            + "b".repeat(64)
            + "\n"
            + "jobset:\n"
            + jobset);
    return temp.resolve("runtimes");
  }

  private CompileResult compileWith(Path runtimes) {
    TrainProject p =
        TrainProject.create(temp.resolve("p"), "runtime: tmpl\nrun: torchrun train.py\n");
    return compile(
        CompileRequest.builder(p.trainYaml())
            .displayPath("train.yaml")
            .runtimesDir(runtimes)
            .build());
  }

  @Test
  @DisplayName(
      "a runtime template that does not render is E501 and stops the compile with the job but no tree")
  void renderErrorStops() throws Exception {
    CompileResult r =
        compileWith(
            runtimes(
                "  spec:\n    replicatedJobs:\n      - name: node\n        template:\n          metadata:\n"
                    + "            annotations: {acme.dev/x: '{{ job.nope }}'}\n"));
    assertEquals(
        List.of(DiagnosticCode.TEMPLATE_ERROR),
        r.diagnostics().stream().map(Diagnostic::code).toList(),
        r.diagnostics().toString());
    assertTrue(r.job().isPresent());
    assertTrue(r.tree().isEmpty());
  }

  @Test
  @DisplayName(
      "a runtime whose JobSet the check refuses is E601 at the runtime's file and stops the compile with the job but no tree")
  void checkErrorStops() throws Exception {
    CompileResult r =
        compileWith(runtimes("  metadata:\n    labels: {acme.dev/team: 'not valid!'}\n"));
    assertEquals(
        List.of(DiagnosticCode.OUTPUT_INVALID),
        r.diagnostics().stream().map(Diagnostic::code).toList(),
        r.diagnostics().toString());
    // the run id comes from the temporary repository's commit
    WORDING.approve(
        r.diagnostics().get(0).message().replaceFirst("^JobSet \\S+:", "JobSet <run>:"));
    assertTrue(
        r.diagnostics().get(0).location().file().endsWith("tmpl/1.0-1/runtime.yaml"),
        r.diagnostics().get(0).location().toString());
    assertTrue(r.job().isPresent());
    assertTrue(r.tree().isEmpty());
  }

  @Test
  @DisplayName(
      "a platform runtimes folder that does not load stops the compile at its file, before train.yaml is resolved")
  void runtimesLoadErrorStops() throws Exception {
    CompileResult r = compileWith(runtimes("  spec: [\n"));
    assertFalse(r.diagnostics().isEmpty());
    assertTrue(
        r.diagnostics().stream()
            .allMatch(d -> d.location().file().endsWith("tmpl/1.0-1/runtime.yaml")),
        r.diagnostics().toString());
    assertEquals(
        DiagnosticCode.YAML_SYNTAX, r.diagnostics().get(0).code(), r.diagnostics().toString());
    assertTrue(r.job().isEmpty());
  }

  @Test
  @DisplayName(
      "a train.yaml in no git repository: the compile stops at the source with E306 and hands back no tree and no job")
  void noRepository() throws Exception {
    Path trainYaml =
        Files.writeString(
            Files.createDirectories(temp.resolve("loose")).resolve("train.yaml"),
            "run: torchrun train.py\n");
    CompileResult r = compile(request(trainYaml));
    assertTrue(r.hasErrors());
    assertEquals(
        List.of(DiagnosticCode.SOURCE_NO_REMOTE),
        r.diagnostics().stream().filter(Diagnostic::isError).map(Diagnostic::code).toList(),
        r.diagnostics().toString());
    assertTrue(r.tree().isEmpty());
    assertTrue(r.job().isEmpty());
  }
}
