package dev.trainyard.compiler.policy;

import static dev.trainyard.compiler.testing.TrainProject.withCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Checkpoint combinations that cannot work, refused at compile time. */
class CheckpointRulesTest {
  @TempDir Path dir;

  private CompileResult compile(String trainYaml, String accessMode) {
    return TrainProject.create(dir, trainYaml)
        .withPlatform(
            PlatformYaml.base()
                .namespaces(
                    "[{name: team-a, cluster: local, sources: [\"github.com/acme/*\"], defaultQueue:"
                        + " q, checkpoints: {size: 10Gi, accessMode: "
                        + accessMode
                        + "}}]")
                .text())
        .compile();
  }

  @ParameterizedTest(name = "{0} with {1} node(s): E435 {2}")
  @CsvSource({
    "ReadWriteOnce, 2, true",
    "ReadWriteOncePod, 3, true",
    "ReadWriteOnce, 1, false",
    "ReadWriteOncePod, 1, false",
    "ReadWriteMany, 4, false"
  })
  @DisplayName(
      "a multi-node run needs ReadWriteMany: ReadWriteOnce and ReadWriteOncePod serve one node only")
  void sharedVolume(String mode, int nodes, boolean refused) {
    CompileResult r =
        compile("run: torchrun t.py\nnodes: " + nodes + "\ncheckpoint:\n  keep: 2\n", mode);
    List<Diagnostic> d = withCode(r, DiagnosticCode.CHECKPOINT_NOT_SHARED);
    assertEquals(refused, !d.isEmpty(), r.diagnostics().toString());
    assertEquals(refused, r.hasErrors(), r.diagnostics().toString());
    if (refused) {
      assertEquals(3, d.get(0).location().line(), "at the checkpoint key");
      assertEquals(1, d.get(0).location().column());
      assertEquals("/checkpoint", d.get(0).pointer());
      assertTrue(d.get(0).message().contains(mode), d.get(0).message());
      assertTrue(d.get(0).message().contains(nodes + " nodes"), d.get(0).message());
      assertTrue(
          d.get(0).message().contains(mode.endsWith("Pod") ? "one pod" : "one node"),
          d.get(0).message());
      assertTrue(d.get(0).hint().contains("`nodes: 1`"), d.get(0).hint());
    }
  }

  @ParameterizedTest(name = "runtime {0}, {1} node(s), {2}: E435 {3}")
  @CsvSource({
    "mpi, 1, ReadWriteOnce, true, 2 pods that mount it",
    "mpi, 3, ReadWriteOncePod, true, 4 pods that mount it",
    "deepspeed, 2, ReadWriteOnce, true, 2 pods that mount it",
    "deepspeed, 1, ReadWriteOnce, false, ",
    "deepspeed, 1, ReadWriteOncePod, false, ",
    "mpi, 2, ReadWriteMany, false, ",
    "mpi, 1, 'ReadWriteOnce, sameNode: true', false, "
  })
  @DisplayName(
      "MPI: the launcher mounts the volume too (it finds the checkpoint), so a launcher of its own makes nodes + 1 pods that must share it; a launcher that runs ranks with nodes: 1 is one pod")
  void mpiPods(String runtime, int nodes, String mode, boolean refused, String pods) {
    CompileResult r =
        compile(
            "runtime: " + runtime + "\nrun: python t.py\nnodes: " + nodes + "\ncheckpoint: {}\n",
            mode);
    List<Diagnostic> d = withCode(r, DiagnosticCode.CHECKPOINT_NOT_SHARED);
    assertEquals(refused, !d.isEmpty(), r.diagnostics().toString());
    assertEquals(refused, r.hasErrors(), r.diagnostics().toString());
    if (refused) {
      String m = d.get(0).message();
      assertEquals(4, d.get(0).location().line(), "at the checkpoint key");
      assertTrue(m.startsWith("`checkpoint` needs a volume every pod can write"), m);
      assertTrue(m.contains(pods + " (MPI runtime \"" + runtime + "\": the launcher"), m);
      assertTrue(
          m.endsWith(" node pod" + (nodes - (runtime.equals("mpi") ? 0 : 1) == 1 ? ")" : "s)")), m);
      assertEquals(
          runtime.equals("mpi"),
          d.get(0).hint().contains("a runtime whose launcher runs the ranks (`launcherAsNode`"),
          d.get(0).hint());
      assertTrue(d.get(0).hint().contains("serves every pod"), d.get(0).hint());
    }
  }

  @Test
  @DisplayName(
      "the checkpoint path may not overlap a volume, the code or a system folder (E413, E419 at /checkpoint/path)")
  void pathTaken() {
    CompileResult r =
        compile(
            "run: torchrun t.py\nvolumes: [{claim: data, path: /data}]\ncheckpoint:\n  path: /data/ck\n",
            "ReadWriteMany");
    List<Diagnostic> d = withCode(r, DiagnosticCode.RESERVED_PATH);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals("/checkpoint/path", d.get(0).pointer());
    assertEquals(4, d.get(0).location().line());
    assertTrue(d.get(0).message().contains("checkpoint volume"), d.get(0).message());
    CompileResult code =
        compile("run: torchrun t.py\ncheckpoint: {path: /workspace}\n", "ReadWriteMany");
    assertFalse(
        withCode(code, DiagnosticCode.RESERVED_PATH).isEmpty(), code.diagnostics().toString());
    CompileResult system =
        compile("run: torchrun t.py\ncheckpoint: {path: /usr}\n", "ReadWriteMany");
    assertFalse(
        withCode(system, DiagnosticCode.SYSTEM_PATH).isEmpty(), system.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "the default path /checkpoints overlapping a volume is reported at the checkpoint key (no path written)")
  void defaultPathTaken() {
    CompileResult r =
        compile(
            "run: torchrun t.py\nvolumes: [{claim: c, path: /checkpoints}]\ncheckpoint: {}\n",
            "ReadWriteMany");
    List<Diagnostic> d = withCode(r, DiagnosticCode.RESERVED_PATH);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals("/checkpoint", d.get(0).pointer());
  }

  @Test
  @DisplayName(
      "with checkpoint, CHECKPOINT_DIR and RESUME_FROM are reserved env names (E403); without it they are the user's")
  void reservedEnv() {
    CompileResult with =
        compile(
            "run: torchrun t.py\nenv: {CHECKPOINT_DIR: /x, RESUME_FROM: y}\ncheckpoint: {}\n",
            "ReadWriteMany");
    assertEquals(
        2, withCode(with, DiagnosticCode.RESERVED_ENV).size(), with.diagnostics().toString());
    CompileResult without =
        compile("run: torchrun t.py\nenv: {CHECKPOINT_DIR: /x, RESUME_FROM: y}\n", "ReadWriteMany");
    assertTrue(withCode(without, DiagnosticCode.RESERVED_ENV).isEmpty());
  }

  @ParameterizedTest(name = "{0} with sameNode on {1} node(s): E435 {2}")
  @CsvSource({"ReadWriteOnce, 3, false", "ReadWriteOncePod, 2, true"})
  @DisplayName(
      "sameNode (a one-node cluster): ReadWriteOnce, which is per node, serves several nodes; ReadWriteOncePod still one pod")
  void sameNode(String mode, int nodes, boolean refused) {
    CompileResult r =
        compile(
            "run: torchrun t.py\nnodes: " + nodes + "\ncheckpoint: {}\n",
            mode + ", sameNode: true");
    assertEquals(
        refused,
        !withCode(r, DiagnosticCode.CHECKPOINT_NOT_SHARED).isEmpty(),
        r.diagnostics().toString());
    CompileResult other =
        compile("run: torchrun t.py\nnodes: 2\ncheckpoint: {}\n", "ReadWriteOnce, sameNode: false");
    assertTrue(
        withCode(other, DiagnosticCode.CHECKPOINT_NOT_SHARED).get(0).hint().contains("sameNode"),
        "the hint names the one-node way out too");
  }

  @Test
  @DisplayName(
      "the embedded default platform (local, one node) serves a 2-node checkpointed run on its ReadWriteOnce claim")
  void defaultPlatform() {
    CompileResult r =
        TrainProject.create(dir, "run: torchrun t.py\nnodes: 2\ncheckpoint: {}\n").compile();
    assertFalse(r.hasErrors(), r.diagnostics().toString());
    String claim =
        TrainProject.tree(r).files().entrySet().stream()
            .filter(e -> e.getKey().contains("/persistentvolumeclaim-"))
            .findFirst()
            .orElseThrow()
            .getValue();
    assertTrue(claim.contains("- ReadWriteOnce"), claim);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{size: 10Gi, claim: team, accessMode: ReadWriteMany}|`namespaces[0].checkpoints` sets both"
            + " `size` and `claim`: `size` makes a claim per job",
        "{claim: team, size: 1Gi, accessMode: ReadWriteOnce, sameNode: true}|keep one of the two"
      })
  @DisplayName(
      "platform checkpoints with both size and claim say which and why (not the schema rule's name)")
  void sizeOrClaim(String checkpoints, String words) {
    CompileResult r =
        TrainProject.create(dir, "run: torchrun t.py\ncheckpoint: {}\n")
            .withPlatform(
                PlatformYaml.base()
                    .namespaces(
                        "[{name: team-a, cluster: local, sources: [\"github.com/acme/*\"],"
                            + " defaultQueue: q, checkpoints: "
                            + checkpoints
                            + "}]")
                    .text())
            .compile();
    List<Diagnostic> d = withCode(r, DiagnosticCode.INVALID_VALUE);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertTrue(d.get(0).message().contains(words), d.get(0).message());
    assertFalse(d.get(0).message().contains("schema rule"), d.get(0).message());
    assertTrue(d.get(0).location().line() > 0);
  }
}
