package dev.trainyard.compiler.resolve;

import static dev.trainyard.compiler.testing.TrainProject.object;
import static dev.trainyard.compiler.testing.TrainProject.withCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** train.yaml's {@code checkpoint} against the namespace's checkpoint storage. */
class CheckpointChoiceTest {
  @TempDir Path dir;

  static final String RWX =
      "[{name: team-a, cluster: local, sources: [\"github.com/acme/*\"], defaultQueue: q,"
          + " checkpoints: {size: 100Gi, accessMode: ReadWriteMany, recoverOnExitCodes: [75, 3]}}]";
  static final String SHARED =
      "[{name: team-a, cluster: local, sources: [\"github.com/acme/*\"], defaultQueue: q,"
          + " checkpoints: {claim: team-ckpt, accessMode: ReadWriteOnce}}]";

  private TrainProject project(String trainYaml, String namespaces) {
    return TrainProject.create(dir, trainYaml)
        .withPlatform(PlatformYaml.base().namespaces(namespaces).text());
  }

  private static ResolvedCheckpoint checkpoint(CompileResult r) {
    return r.job()
        .orElseThrow(() -> new AssertionError(r.diagnostics()))
        .checkpoint()
        .orElseThrow();
  }

  @Test
  @DisplayName(
      "defaults: mount /checkpoints, CHECKPOINT_DIR /checkpoints/<run id>, keep 3, 60 s to save; an own claim named by the key")
  void defaults() {
    CompileResult r = project("name: llm\nrun: torchrun t.py\ncheckpoint: {}\n", RWX).compile();
    ResolvedCheckpoint c = checkpoint(r);
    String runId = r.job().orElseThrow().naming().runId();
    assertEquals("/checkpoints", c.path());
    assertEquals("/checkpoints/" + runId, c.dir());
    assertEquals(3, c.keep());
    assertEquals(60, c.saveSeconds());
    assertTrue(c.key().matches("llm-[0-9a-f]{6}"), c.key());
    assertEquals(c.key(), c.claim());
    assertTrue(c.ownClaim());
    assertEquals("100Gi", c.size());
    assertEquals("ReadWriteMany", c.accessMode());
    assertEquals(Optional.empty(), c.storageClass());
    assertFalse(c.fresh());
    assertEquals(List.of(3, 75), c.recoverOnExitCodes(), "the namespace's codes, sorted");
  }

  @Test
  @DisplayName(
      "written values win; recover codes are train.yaml's and the namespace's, sorted, once each; a trailing slash of path is dropped")
  void written() {
    ResolvedCheckpoint c =
        checkpoint(
            project(
                    "run: torchrun t.py\ncheckpoint: {path: /ckpt/, keep: 7, saveSeconds: 300,"
                        + " recoverOnExitCodes: [76, 75]}\n",
                    RWX)
                .compile());
    assertEquals("/ckpt", c.path());
    assertTrue(c.dir().startsWith("/ckpt/"), c.dir());
    assertEquals(7, c.keep());
    assertEquals(300, c.saveSeconds());
    assertEquals(List.of(3, 75, 76), c.recoverOnExitCodes());
  }

  @Test
  @DisplayName("path / gives CHECKPOINT_DIR /<run id>, not //<run id>")
  void rootPath() {
    ResolvedCheckpoint c =
        checkpoint(project("run: torchrun t.py\ncheckpoint: {path: /}\n", RWX).compile());
    assertEquals("/", c.path());
    assertTrue(c.dir().matches("/[0-9a-f]{6}"), c.dir());
  }

  @Test
  @DisplayName(
      "the key is the job's: the same for another commit and for --fresh, another for another branch; --fresh is recorded")
  void keyedByJobAndBranch() {
    TrainProject p = project("name: llm\nrun: torchrun t.py\ncheckpoint: {}\n", RWX);
    ResolvedCheckpoint plain = checkpoint(p.compile());
    ResolvedCheckpoint again = checkpoint(p.compile(b -> b.attempt(2)));
    ResolvedCheckpoint fresh = checkpoint(p.compile(b -> b.fresh(true)));
    ResolvedCheckpoint branch = checkpoint(p.compile(b -> b.sourceBranch(Optional.of("exp"))));
    assertEquals(plain.key(), again.key());
    assertNotEquals(plain.dir(), again.dir(), "each run writes its own folder");
    assertEquals(plain.key(), fresh.key());
    assertTrue(fresh.fresh());
    assertNotEquals(plain.key(), branch.key());
    assertTrue(branch.key().startsWith("llm-"));
  }

  @Test
  @DisplayName(
      "a namespace's shared claim is mounted, not written: claim team-ckpt, key as subPath")
  void sharedClaim() {
    ResolvedCheckpoint c =
        checkpoint(project("name: llm\nrun: python t.py\ncheckpoint: {}\n", SHARED).compile());
    assertEquals("team-ckpt", c.claim());
    assertFalse(c.ownClaim());
    assertEquals("", c.size());
    assertNotEquals(c.claim(), c.key());
  }

  @Test
  @DisplayName(
      "E317 at the checkpoint key when the namespace offers no checkpoint storage, with a hint naming the namespace and platform.yaml")
  void noStorage() {
    CompileResult r =
        project("run: torchrun t.py\ncheckpoint:\n  keep: 2\n", PlatformYaml.base().namespaces())
            .compile();
    List<Diagnostic> d = withCode(r, DiagnosticCode.NO_CHECKPOINT_STORAGE);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(2, d.get(0).location().line());
    assertEquals(1, d.get(0).location().column());
    assertEquals("/checkpoint", d.get(0).pointer());
    assertTrue(d.get(0).hint().contains("`checkpoints:`"), d.get(0).toString());
    assertTrue(d.get(0).message().contains("`team-a`"), d.get(0).toString());
    assertTrue(r.tree().isEmpty());
  }

  @Test
  @DisplayName(
      "the storage is the target namespace's of its own cluster: a namespace of the same name elsewhere does not lend its storage")
  void storageOfTheTargetCluster() {
    String platform =
        PlatformYaml.base()
            .namespaces(
                "[{name: team-a, cluster: other, sources: [\"github.com/acme/*\"], defaultQueue: q,"
                    + " checkpoints: {size: 1Gi, accessMode: ReadWriteMany}},"
                    + " {name: team-a, cluster: local, sources: [\"github.com/acme/*\"], defaultQueue: q}]")
            .text()
            .replace(
                "clusters: [{name: local, domain: cluster.local}]",
                "clusters: [{name: local, domain: cluster.local}, {name: other}]");
    CompileResult r =
        TrainProject.create(dir, "run: torchrun t.py\ncheckpoint: {}\n")
            .withPlatform(platform)
            .compile();
    assertEquals(
        1, withCode(r, DiagnosticCode.NO_CHECKPOINT_STORAGE).size(), r.diagnostics().toString());
  }

  @Test
  @DisplayName("without checkpoint: nothing resolved, no claim, no checkpoint annotation")
  void none() {
    CompileResult r = project("run: torchrun t.py\n", RWX).compile();
    assertTrue(r.job().orElseThrow().checkpoint().isEmpty());
    JsonNode js = object(r, "JobSet");
    assertTrue(
        js.path("metadata").path("annotations").path("trainyard.dev/checkpoint").isMissingNode());
    assertFalse(
        TrainProject.tree(r).files().keySet().stream().anyMatch(f -> f.contains("_checkpoint-")));
  }
}
