package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/**
 * platform.yaml {@code kueue:}: the PodSet limit and the WorkloadPriorityClasses, checked at
 * compile time.
 */
class KueueRulesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  private static String platform(String kueue) {
    return "apiVersion: trainyard.dev/v1\nkind: Platform\nclusters: [{name: local}]\n"
        + "namespaces: [{name: team-a, cluster: local, defaultQueue: q}]\nsecrets: {policy: plain, allowPlain: true}\n"
        + kueue
        + "queues:\n  resourceFlavors: [{name: f}]\n  clusterQueues: [{name: cq, namespaces: [team-a], flavors: [{name: f, quota: {cpu: \"64\", memory: 256Gi}}]}]\n"
        + "  localQueues: [{name: q, namespace: team-a, clusterQueue: cq}]\n";
  }

  private CompileResult compile(String trainYaml, String kueue) {
    return TrainProject.create(temp, trainYaml).withPlatform(platform(kueue)).compile();
  }

  @Test
  @DisplayName(
      "an MPI run (node + launcher = 2 PodSets) under kueue.maxPodSets: 1 is E416 at runtime; torch (1 PodSet) fits")
  void podSetLimit() {
    CompileResult r = compile("run: ./a.out\nruntime: mpi\nnodes: 2\n", "kueue: {maxPodSets: 1}\n");
    Diagnostic d = TrainProject.withCode(r, DiagnosticCode.TOO_MANY_POD_SETS).get(0);
    assertEquals(2, d.location().line());
    WORDING.approve(d.message());
    assertFalse(compile("run: torchrun t.py\nnodes: 2\n", "kueue: {maxPodSets: 1}\n").hasErrors());
    assertFalse(compile("run: ./a.out\nruntime: mpi\nnodes: 2\n", "").hasErrors());
  }

  @Test
  @DisplayName(
      "priority: a listed class compiles; a typo is E417 at its line with did-you-mean; an unlisted platform warns W418")
  void priority() {
    String kueue = "kueue: {priorityClasses: [high-priority, low-priority]}\n";
    assertFalse(compile("run: torchrun t.py\npriority: high-priority\n", kueue).hasErrors());
    CompileResult typo = compile("run: torchrun t.py\npriority: hihg-priority\n", kueue);
    Diagnostic d = TrainProject.withCode(typo, DiagnosticCode.UNKNOWN_PRIORITY).get(0);
    assertEquals(2, d.location().line());
    WORDING.approve(d.hint());
    CompileResult unchecked = compile("run: torchrun t.py\npriority: whatever\n", "");
    assertFalse(unchecked.hasErrors());
    assertEquals(
        List.of(DiagnosticCode.PRIORITY_NOT_CHECKED),
        unchecked.diagnostics().stream().map(Diagnostic::code).toList());
    CompileResult none = compile("run: torchrun t.py\n", kueue);
    assertEquals(List.of(), none.diagnostics());
  }

  @Test
  @DisplayName("a runtime with two letters swapped gets a did-you-mean (troch → torch)")
  void transposedRuntime() {
    CompileResult r = TrainProject.create(temp, "run: torchrun t.py\nruntime: troch\n").compile();
    Diagnostic d = TrainProject.withCode(r, DiagnosticCode.UNKNOWN_RUNTIME).get(0);
    WORDING.approve(d.hint());
    CompileResult sped =
        TrainProject.create(temp.resolve("b"), "run: x\nruntime: deepsped\n").compile();
    WORDING.approve(TrainProject.withCode(sped, DiagnosticCode.UNKNOWN_RUNTIME).get(0).hint());
  }

  @Test
  @DisplayName(
      "an unknown platform defaultRuntime is E304 at its platform.yaml line with did-you-mean, even for a train.yaml naming a runtime")
  void defaultRuntimeAtPlatformLine() {
    String platform = platform("").replace("clusters:", "defaultRuntime: troch\nclusters:");
    for (String train : List.of("run: torchrun t.py\n", "run: torchrun t.py\nruntime: torch\n")) {
      CompileResult r =
          TrainProject.create(temp.resolve(String.valueOf(train.length())), train)
              .withPlatform(platform)
              .compile();
      Diagnostic d = TrainProject.withCode(r, DiagnosticCode.INVALID_PLATFORM).get(0);
      assertTrue(d.location().file().endsWith("platform.yaml"), d.location().toString());
      assertEquals(3, d.location().line());
      assertEquals("/defaultRuntime", d.pointer());
      WORDING.approve(d.hint());
      assertTrue(TrainProject.withCode(r, DiagnosticCode.UNKNOWN_RUNTIME).isEmpty());
    }
  }
}
