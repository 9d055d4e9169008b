package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.gitops.RunFolder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Reading provenance cheaply: the metadata block alone, or the whole file when it is not
 * block-style.
 */
class JobSetFactsTest {
  private final JobSetFacts facts =
      new JobSetFacts(
          new PlatformLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator())
              .load(Optional.empty(), PlatformLoader.EMBEDDED_NAME)
              .value()
              .orElseThrow(),
          new YamlTrees());
  private final RunFolder run = new RunFolder("local", "default", "a-000000");

  @Test
  @DisplayName("the metadata block runs from metadata: to the next top-level key")
  void block() {
    String text =
        "apiVersion: v1\nkind: JobSet\nmetadata:\n  annotations:\n    a: x\n\n  name: n\nspec:\n  b: y\n";
    assertEquals(
        Optional.of("metadata:\n  annotations:\n    a: x\n\n  name: n\n"),
        JobSetFacts.metadataBlock(text));
    assertEquals(
        Optional.of("metadata:\n  name: n\n"), JobSetFacts.metadataBlock("metadata:\n  name: n\n"));
    assertEquals(Optional.empty(), JobSetFacts.metadataBlock("{metadata: {name: n}}\n"));
  }

  @Test
  @DisplayName("annotations are read from the block, or from the whole file when it is flow-style")
  void annotations() {
    assertEquals(
        Map.of("trainyard.dev/source-path", "jobs/a/train.yaml"),
        facts.annotations(
            run,
            "kind: JobSet\nmetadata:\n  annotations:\n    trainyard.dev/source-path: jobs/a/train.yaml\nspec: {x: 1}\n"));
    assertEquals(
        Map.of("k", "v"),
        facts.annotations(run, "{kind: JobSet, metadata: {annotations: {k: v}}}\n"));
    assertEquals(Map.of(), facts.annotations(run, "not: [yaml\n"));
  }

  @Test
  @DisplayName(
      "Trainyard's own metadata block is read alone; anything else gives the same annotations through the whole file")
  void fastPath() {
    String ours =
        "metadata:\n  annotations:\n    trainyard.dev/created-at: \"2026-12-01T09:00:00Z\"\n    trainyard.dev/source-path: jobs/a/train.yaml\n  name: n\n";
    assertTrue(
        BlockYaml.read(JobSetFacts.metadataBlock("kind: JobSet\n" + ours).orElseThrow())
            .isPresent());
    assertEquals(
        Map.of(
            "trainyard.dev/created-at",
            "2026-12-01T09:00:00Z",
            "trainyard.dev/source-path",
            "jobs/a/train.yaml"),
        facts.annotations(run, "kind: JobSet\n" + ours));
    for (String other :
        List.of(
            "metadata:\n  annotations:\n    k: 'v'\n",
            "metadata:\n  annotations:\n    k: v # comment\n",
            "metadata:\n  annotations:\n    k: >-\n      v\n",
            "metadata:\n  annotations: {k: v}\n",
            "metadata:\n  annotations:\n    k: \"v\"\n")) {
      assertEquals(
          Map.of("k", "v"), facts.annotations(run, "kind: JobSet\n" + other + "spec: {}\n"), other);
    }
    assertEquals(
        Map.of("k", "single"),
        facts.annotations(
            run, "kind: JobSet\n" + "metadata:\n  annotations:\n    k: 'single'\nspec: {}\n"));
    assertEquals(
        Map.of("k", "v"),
        facts.annotations(
            run, "kind: JobSet\nmetadata:\n  annotations:\n    k: v # comment\nspec: {}\n"));
  }

  @Test
  @DisplayName(
      "a checkpointed run's facts carry its checkpoint key and whether it resumes; a run without them has \"\"")
  void checkpoint() {
    String js =
        "kind: JobSet\nmetadata:\n  annotations:\n    trainyard.dev/checkpoint: llm-3f2a1b\n"
            + "    trainyard.dev/checkpoint-resume: fresh\n  name: a-000000\nspec:\n  replicatedJobs: []\n";
    RunFacts f = facts.read(run, Optional.of(js)).orElseThrow();
    assertEquals("llm-3f2a1b", f.checkpoint());
    assertEquals("fresh", f.checkpointResume());
    RunFacts none =
        facts
            .read(run, Optional.of("kind: JobSet\nmetadata: {name: a-000000}\nspec: {}\n"))
            .orElseThrow();
    assertEquals("", none.checkpoint());
    assertEquals("", none.checkpointResume());
  }
}
