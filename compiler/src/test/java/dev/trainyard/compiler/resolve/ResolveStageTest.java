package dev.trainyard.compiler.resolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What resolve fills in: timeout, the default name, workdir, setup, and the namespace's runtime
 * list per cluster.
 */
class ResolveStageTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;
  private int projects;

  private TrainProject project(String folder, String yaml, Map<String, String> files) {
    return TrainProject.create(temp.resolve("p" + projects++), folder, yaml, files);
  }

  private CompileResult compile(String yaml) {
    return project(TrainProject.FOLDER, yaml, Map.of()).compile();
  }

  private static JsonNode jobSpec(CompileResult r) {
    return TrainProject.object(r, "JobSet")
        .path("spec")
        .path("replicatedJobs")
        .path(0)
        .path("template")
        .path("spec");
  }

  @Test
  @DisplayName(
      "timeout: 1h30m5s becomes activeDeadlineSeconds 5405; no timeout gives the 24 h default")
  void timeout() {
    assertEquals(
        5405,
        jobSpec(compile("run: torchrun x.py\ntimeout: 1h30m5s\n"))
            .path("activeDeadlineSeconds")
            .asLong());
    assertEquals(
        86400, jobSpec(compile("run: torchrun x.py\n")).path("activeDeadlineSeconds").asLong());
  }

  @Test
  @DisplayName(
      "a zero or malformed timeout is E308 at the timeout line, and the run does not compile")
  void badTimeout() {
    for (String t : List.of("0s", "0h0m")) {
      CompileResult r = compile("run: torchrun x.py\ntimeout: \"" + t + "\"\n");
      List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.INVALID_DURATION);
      assertEquals(1, d.size(), r.diagnostics().toString());
      assertEquals(
          "`timeout` must be a duration such as 24h, 90m or 1h30m, got \"" + t + "\"",
          d.get(0).message());
      assertEquals("/timeout", d.get(0).pointer());
      assertEquals(2, d.get(0).location().line());
      WORDING.approve(d.get(0).hint());
      assertFalse(r.tree().isPresent());
    }
    assertSuggestionsCompile(
        compile("run: torchrun x.py\ntimeout: 0s\n").diagnostics().get(0).hint(),
        List.of(129600L, 172800L));
  }

  @Test
  @DisplayName(
      "timeout: 90 (a bare number) is E202 whose hint suggests `timeout: 90m`, not quoting it; the suggestion compiles")
  void bareNumberTimeout() {
    for (String bare : List.of("90", "1.5")) {
      CompileResult r = compile("run: torchrun x.py\ntimeout: " + bare + "\n");
      List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.WRONG_TYPE);
      assertEquals(1, d.size(), r.diagnostics().toString());
      assertEquals("2:10", d.get(0).location().line() + ":" + d.get(0).location().column());
      if (bare.equals("90")) {
        WORDING.approve(d.get(0).hint());
        assertSuggestionsCompile(d.get(0).hint(), List.of(5400L));
      } else {
        assertFalse(d.get(0).hint().contains("quote"), d.get(0).hint());
      }
    }
    CompileResult quoted = compile("run: torchrun x.py\nimage: 1.5\n");
    WORDING.approve(TrainProject.withCode(quoted, DiagnosticCode.WRONG_TYPE).get(0).hint());
  }

  /**
   * Each {@code `timeout: …`} the hint suggests compiles without diagnostics, to the given
   * activeDeadlineSeconds.
   */
  private void assertSuggestionsCompile(String hint, List<Long> seconds) {
    Matcher m = Pattern.compile("`(timeout: [^`]+)`").matcher(hint);
    List<Long> got = new ArrayList<>();
    while (m.find()) {
      CompileResult r = compile("run: torchrun x.py\n" + m.group(1) + "\n");
      assertEquals(List.of(), r.diagnostics(), m.group(1));
      got.add(jobSpec(r).path("activeDeadlineSeconds").asLong());
    }
    assertEquals(seconds, got, hint);
  }

  @Test
  @DisplayName(
      "without `name`, the run is named after train.yaml's folder, or after the repo when it sits at the root")
  void defaultName() {
    CompileResult inFolder = compile("run: torchrun x.py\n");
    assertTrue(
        inFolder.job().orElseThrow().naming().runName().startsWith("demo-"),
        inFolder.job().orElseThrow().naming().toString());
    assertEquals("demo", inFolder.job().orElseThrow().naming().jobName());
    CompileResult atRoot = project("", "run: torchrun x.py\n", Map.of()).compile();
    assertEquals("llm-training", atRoot.job().orElseThrow().naming().jobName());
  }

  @Test
  @DisplayName(
      "workdir is relative to train.yaml's folder in the cloned source; none is train.yaml's folder")
  void workdir() throws IOException {
    TrainProject p =
        project(TrainProject.FOLDER, "run: torchrun x.py\nworkdir: src/./lib\n", Map.of());
    Files.createDirectories(p.trainYaml().getParent().resolve("src/lib"));
    JsonNode pod = TrainProject.podSpec(TrainProject.object(p.compile(), "JobSet"), "node");
    assertEquals(
        ResolveStage.SOURCE_ROOT + "/jobs/demo/src/lib",
        pod.path("containers").path(0).path("workingDir").asText());
    JsonNode plain =
        TrainProject.podSpec(
            TrainProject.object(compile("run: torchrun x.py\n"), "JobSet"), "node");
    assertEquals(
        ResolveStage.SOURCE_ROOT + "/jobs/demo",
        plain.path("containers").path(0).path("workingDir").asText());
    JsonNode root =
        TrainProject.podSpec(
            TrainProject.object(project("", "run: torchrun x.py\n", Map.of()).compile(), "JobSet"),
            "node");
    assertEquals(
        ResolveStage.SOURCE_ROOT, root.path("containers").path(0).path("workingDir").asText());
  }

  @Test
  @DisplayName(
      "a requirements.txt next to train.yaml sets up with pip unless `setup` is written; neither gives no setup")
  void setup() {
    JsonNode withFile =
        TrainProject.object(
            project(
                    TrainProject.FOLDER,
                    "run: torchrun x.py\n",
                    Map.of("requirements.txt", "numpy\n"))
                .compile(),
            "JobSet");
    assertEquals(
        "pip install -r requirements.txt",
        TrainProject.env(withFile, "node", "TRAINYARD_SETUP").path("value").asText());
    JsonNode written =
        TrainProject.object(
            project(
                    TrainProject.FOLDER,
                    "run: torchrun x.py\nsetup: make deps\n",
                    Map.of("requirements.txt", "numpy\n"))
                .compile(),
            "JobSet");
    assertEquals(
        "make deps", TrainProject.env(written, "node", "TRAINYARD_SETUP").path("value").asText());
    assertTrue(
        TrainProject.env(
                TrainProject.object(compile("run: torchrun x.py\n"), "JobSet"),
                "node",
                "TRAINYARD_SETUP")
            .isMissingNode());
  }

  @Test
  @DisplayName(
      "a runtime's own setup alone is exactly that line (JAX's kubernetes install), with no newline joined on")
  void runtimeSetupAlone() {
    JsonNode jax = TrainProject.object(compile("runtime: jax\nrun: python x.py\n"), "JobSet");
    assertEquals(
        "python -c 'import kubernetes' 2>/dev/null || pip install --no-cache-dir kubernetes==37.0.2",
        TrainProject.env(jax, "node", "TRAINYARD_SETUP").path("value").asText());
    JsonNode both =
        TrainProject.object(
            compile("runtime: jax\nrun: python x.py\nsetup: make deps\n"), "JobSet");
    assertEquals(
        "python -c 'import kubernetes' 2>/dev/null || pip install --no-cache-dir kubernetes==37.0.2\nmake deps",
        TrainProject.env(both, "node", "TRAINYARD_SETUP").path("value").asText());
  }

  @Test
  @DisplayName(
      "the runtime list of the target namespace counts, not that of a same-named namespace in another cluster")
  void runtimeListOfTargetCluster() {
    String platform =
        "apiVersion: trainyard.dev/v1\nkind: Platform\ndefaultRuntime: torch\n"
            + "clusters: [{name: local, domain: cluster.local}, {name: prod, domain: cluster.local}]\n"
            + "namespaces: [{name: team-a, cluster: prod, defaultQueue: q, runtimes: [mpi, torch]},"
            + " {name: team-a, cluster: local, defaultQueue: q, runtimes: [torch]}]\n"
            + "secrets: {policy: plain, allowPlain: true}\n"
            + "queues:\n  resourceFlavors: [{name: f}]\n"
            + "  clusterQueues: [{name: cq, namespaces: [team-a], flavors: [{name: f, quota: {cpu: \"64\", memory: 256Gi}}]}]\n"
            + "  localQueues: [{name: q, namespace: team-a, clusterQueue: cq}]\n";
    Path dir = temp.resolve("multi");
    TrainProject p = TrainProject.create(dir, "run: python x.py\nruntime: mpi\n");
    CompileResult local =
        CompileCall.of(p.trainYaml())
            .platformText(
                dir,
                platform.replace(
                    "defaultQueue: q, runtimes", "sources: [\"*\"], defaultQueue: q, runtimes"))
            .compile();
    List<Diagnostic> d = TrainProject.withCode(local, DiagnosticCode.RUNTIME_NOT_ALLOWED);
    assertEquals(1, d.size(), local.diagnostics().toString());
    WORDING.approve(d.get(0).message());
  }

  @Test
  @DisplayName(
      "a default name from a long folder is cut so that name, run id and pod names fit (41 characters at 2 nodes)")
  void longFolderNameCut() {
    CompileResult r =
        project("jobs/" + "f".repeat(60), "run: torchrun x.py\nnodes: 2\n", Map.of()).compile();
    assertEquals("f".repeat(41), r.job().orElseThrow().naming().jobName());
    assertTrue(r.tree().isPresent(), r.diagnostics().toString());
  }

  @Test
  @DisplayName("workdir of a train.yaml at the repo root is below the source root")
  void workdirAtRoot() throws IOException {
    TrainProject p = project("", "run: torchrun x.py\nworkdir: src\n", Map.of());
    Files.createDirectories(p.trainYaml().getParent().resolve("src"));
    JsonNode pod = TrainProject.podSpec(TrainProject.object(p.compile(), "JobSet"), "node");
    assertEquals(
        ResolveStage.SOURCE_ROOT + "/src",
        pod.path("containers").path(0).path("workingDir").asText());
  }
}
