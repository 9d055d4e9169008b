package dev.trainyard.compiler.resolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** platform.yaml {@code namespaces[].runtimes}: which runtimes a namespace's jobs may use. */
class RuntimeAllowListTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  private static String platform(String runtimes) {
    return "apiVersion: trainyard.dev/v1\nkind: Platform\ndefaultRuntime: torch\nclusters: [{name: local, domain: cluster.local}]\n"
        + "namespaces: [{name: team-a, cluster: local, defaultQueue: q"
        + runtimes
        + "}]\n"
        + "secrets: {policy: plain, allowPlain: true}\n"
        + "queues:\n  resourceFlavors: [{name: f}]\n  clusterQueues: [{name: cq, namespaces: [team-a], flavors: [{name: f, quota: {cpu: \"64\", memory: 256Gi}}]}]\n"
        + "  localQueues: [{name: q, namespace: team-a, clusterQueue: cq}]\n";
  }

  private CompileResult compile(String trainYaml, String runtimes) {
    return TrainProject.create(temp, trainYaml).withPlatform(platform(runtimes)).compile();
  }

  @Test
  @DisplayName(
      "a runtime the namespace does not list is E313 at the train.yaml runtime field, naming the allowed ones")
  void refusedAtField() {
    CompileResult r = compile("run: python x.py\nruntime: mpi\n", ", runtimes: [torch, jax]");
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.RUNTIME_NOT_ALLOWED);
    assertEquals(1, d.size(), r.diagnostics().toString());
    WORDING.approve(d.get(0).message());
    assertEquals("/runtime", d.get(0).pointer());
    assertEquals(2, d.get(0).location().line());
    assertEquals(
        "namespace `team-a` allows the runtimes torch, jax (platform.yaml)",
        d.get(0).hint().replaceAll("\\(.*platform.yaml\\)", "(platform.yaml)"));
    assertFalse(r.tree().isPresent());
  }

  @Test
  @DisplayName(
      "the platform's default runtime is checked too, at the file when train.yaml names none")
  void defaultRuntimeRefused() {
    CompileResult r = compile("run: python x.py\n", ", runtimes: [jax]");
    Diagnostic d = TrainProject.withCode(r, DiagnosticCode.RUNTIME_NOT_ALLOWED).get(0);
    assertEquals("", d.pointer());
    assertEquals(0, d.location().line());
  }

  @Test
  @DisplayName(
      "a listed runtime, a runtime@version of a listed name, and a namespace without the field all compile")
  void allowed() {
    assertFalse(compile("run: torchrun x.py\nruntime: torch\n", ", runtimes: [torch]").hasErrors());
    assertFalse(compile("run: python x.py\nruntime: mpi\n", ", runtimes: [\"*\"]").hasErrors());
    assertFalse(compile("run: python x.py\nruntime: mpi\n", "").hasErrors());
  }
}
