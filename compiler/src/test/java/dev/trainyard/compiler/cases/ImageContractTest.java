package dev.trainyard.compiler.cases;

import static dev.trainyard.compiler.testing.TrainProject.env;
import static dev.trainyard.compiler.testing.TrainProject.object;
import static dev.trainyard.compiler.testing.TrainProject.podSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a runtime definition says about its image is honoured in the pods: a HOME the image owns
 * stays visible (kubeflow/trainer's deepspeed and mlx images {@code pip install --user} under
 * /home/mpiuser), and what the image lacks (JAX's {@code kubernetes} package) is provided by the
 * runtime, not the user.
 */
class ImageContractTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path dir;

  static CompileResult compile(Path dir, String yaml) {
    return TrainProject.create(dir, yaml).compile();
  }

  /** Every mount path of every container (and init container) of every replicated job. */
  static List<String> mountPaths(JsonNode jobSet) {
    List<String> paths = new ArrayList<>();
    for (JsonNode rj : jobSet.path("spec").path("replicatedJobs")) {
      JsonNode spec = rj.path("template").path("spec").path("template").path("spec");
      for (String list : new String[] {"containers", "initContainers"}) {
        spec.path(list)
            .forEach(
                c -> c.path("volumeMounts").forEach(m -> paths.add(m.path("mountPath").asText())));
      }
    }
    return paths;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"deepspeed", "mlx", "mpi"})
  @DisplayName(
      "a HOME the image owns is never hidden: no volume over it or its .local, scratch only at HOME/.cache")
  void imageHomeStaysVisible(String runtime) {
    JsonNode js =
        object(
            compile(dir, "runtime: " + runtime + "\nrun: python train.py\nnodes: 2\n"), "JobSet");
    String home = "/home/mpiuser";
    for (String path : mountPaths(js)) {
      boolean hides =
          (home + "/.local/bin").equals(path) || (home + "/.local/bin").startsWith(path + "/");
      assertFalse(hides, "a volume at " + path + " hides " + home + "/.local");
    }
    assertTrue(
        mountPaths(js).contains(home + "/.cache"), "scratch at HOME/.cache: " + mountPaths(js));
    for (String rjob : CaseCompile.replicatedJobNames(js)) {
      assertEquals(home, env(js, rjob, "HOME").path("value").asText());
      JsonNode cache = volume(podSpec(js, rjob), "cache");
      assertTrue(cache.path("emptyDir").isObject(), "cache emptyDir in " + rjob + ": " + cache);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain"})
  @DisplayName(
      "a runtime whose image does not own HOME still gets a writable emptyDir at HOME (kubeflow/sdk#89)")
  void writableHomeWhenNotOwned(String runtime) {
    JsonNode js =
        object(compile(dir, "runtime: " + runtime + "\nrun: python train.py\n"), "JobSet");
    assertTrue(mountPaths(js).contains("/root"), mountPaths(js).toString());
    assertTrue(volume(podSpec(js, "node"), "home").path("emptyDir").isObject());
  }

  @Test
  @DisplayName("a user volume over a HOME the image owns is refused, naming the image's packages")
  void userVolumeOverImageHome() {
    CompileResult r =
        compile(
            dir,
            "runtime: deepspeed\nrun: python train.py\nvolumes:\n  - {claim: data, path: /home/mpiuser}\n");
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.RESERVED_PATH);
    assertEquals(1, d.size(), r.diagnostics().toString());
    WORDING.approve(d.get(0).message());
  }

  @Test
  @DisplayName(
      "JAX: the runtime installs `kubernetes` (bare jax.distributed.initialize() needs it) before the user's setup")
  void jaxRuntimeProvidesKubernetes() {
    TrainProject p =
        TrainProject.create(
            dir,
            TrainProject.FOLDER,
            "runtime: jax\nrun: python train.py\nnodes: 2\n",
            Map.of("requirements.txt", "numpy\n"));
    String setup =
        env(object(p.compile(), "JobSet"), "node", "TRAINYARD_SETUP").path("value").asText();
    assertEquals(
        "python -c 'import kubernetes' 2>/dev/null || pip install --no-cache-dir kubernetes==37.0.2\n"
            + "pip install -r requirements.txt",
        setup);
  }

  @Test
  @DisplayName("JAX without requirements.txt: the runtime's setup alone; torch has none")
  void runtimeSetupAlone() {
    JsonNode jax =
        object(compile(dir.resolve("a"), "runtime: jax\nrun: python train.py\n"), "JobSet");
    assertTrue(
        env(jax, "node", "TRAINYARD_SETUP")
            .path("value")
            .asText()
            .startsWith("python -c 'import kubernetes'"));
    JsonNode torch =
        object(compile(dir.resolve("b"), "runtime: torch\nrun: python train.py\n"), "JobSet");
    assertTrue(env(torch, "node", "TRAINYARD_SETUP").isMissingNode());
  }

  @Test
  @DisplayName(
      "a platform runtime declaring podSecurity: restricted with uid 0 is refused at its podSecurity line")
  void restrictedNeedsNonRoot() throws IOException {
    Path folder = dir.resolve("runtimes/rooted/1.0.0-1");
    Files.createDirectories(folder);
    Files.writeString(
        folder.resolve("runtime.yaml"),
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: rooted\n"
            + "version: 1.0.0-1\nframework: plain\nimage: docker.io/library/python:3.12-slim\n"
            + "user:\n  uid: 0\n  home: /root\npodSecurity: restricted\n");
    CompileResult r =
        CaseCompile.compile(
            TrainProject.create(dir, "runtime: rooted\nrun: python x.py\n"),
            Optional.of(dir.resolve("runtimes")));
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.INVALID_RUNTIME);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals("/podSecurity", d.get(0).pointer());
    assertEquals(10, d.get(0).location().line());
    assertTrue(d.get(0).message().contains("non-root"), d.get(0).message());
  }

  static JsonNode volume(JsonNode podSpec, String name) {
    for (JsonNode v : podSpec.path("volumes")) {
      if (v.path("name").asText().equals(name)) {
        return v;
      }
    }
    return MissingNode.getInstance();
  }
}
