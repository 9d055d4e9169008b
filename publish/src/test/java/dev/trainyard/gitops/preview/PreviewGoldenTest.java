package dev.trainyard.gitops.preview;

import static dev.trainyard.gitops.preview.PreviewCases.DEEPSPEED;
import static dev.trainyard.gitops.preview.PreviewCases.EXAMPLE;
import static dev.trainyard.gitops.preview.PreviewCases.EXAMPLE_PLAIN;
import static dev.trainyard.gitops.preview.PreviewCases.MPI;
import static dev.trainyard.gitops.preview.PreviewCases.QUEUES;
import static dev.trainyard.gitops.preview.PreviewCases.QUEUES_GENEROUS;
import static dev.trainyard.gitops.preview.PreviewCases.T1;
import static dev.trainyard.gitops.preview.PreviewCases.TORCH;
import static dev.trainyard.gitops.preview.PreviewCases.files;
import static dev.trainyard.gitops.preview.PreviewCases.gitOps;
import static dev.trainyard.gitops.preview.PreviewCases.runFolder;
import static dev.trainyard.gitops.preview.PreviewRepos.T0;
import static dev.trainyard.gitops.preview.PreviewRepos.compile;
import static dev.trainyard.gitops.preview.PreviewRepos.sha;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.gitops.MapSnapshot;
import dev.trainyard.gitops.PlatformRender;
import dev.trainyard.gitops.TreeEdit;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Golden previews (Markdown parts and JSON) of real repositories, one per behaviour of issue 7.
 * Each test also asserts the facts it is about, so a re-approval cannot quietly approve a wrong
 * preview.
 */
class PreviewGoldenTest {
  @TempDir Path temp;

  private Map<String, String> run(
      String folder, String trainYaml, String platform, char commit, long seed) {
    return compile(temp, folder, trainYaml, platform, sha(commit), T0, seed);
  }

  @Test
  @DisplayName(
      "a run added to the GitOps repo: summary row, GPUs per queue, its objects in full with the SealedSecret masked")
  void runAdded() throws Exception {
    Map<String, String> a = run("jobs/a", TORCH, EXAMPLE, '1', 1);
    Map<String, String> b = run("jobs/b", DEEPSPEED, EXAMPLE, '2', 2);
    Preview p = gitOps(temp, files(Map.of("platform.yaml", EXAMPLE), a), b, List.of());
    Golden.check("run-added", p, MarkdownPreview.GITHUB_LIMIT);
    assertEquals(1, p.runs(RunChange.Status.ADDED).size());
    RunFacts f = p.runs().get(0).shown();
    assertEquals(
        List.of(2, 8, "H100", "deepspeed@2.3.0-2", "ml"),
        List.of(f.nodes(), f.gpusPerNode(), f.gpuType(), f.runtime(), f.queue()));
    assertFalse(p.refused());
  }

  @Test
  @DisplayName(
      "a run changed since its last run (source repo: runtime torch 2.13 → 2.14, nodes 2 → 4): deltas, a runtime call-out, a field diff")
  void runChanged() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(
            temp,
            Map.of(
                "jobs/train/train.yaml",
                "runtime: torch@2.13.0-2\nrun: torchrun train.py\nnodes: 2\n"),
            Map.of(
                "platform.yaml",
                EXAMPLE,
                "runtimes/torch/2.14.0-1/runtime.yaml",
                PreviewCases.torch214()));
    assertFalse(s.submit(temp.resolve("cache"), T0, "jobs/train/train.yaml").hasErrors());
    PreviewRepos.commit(
        s.source(),
        Map.of(
            "jobs/train/train.yaml", "runtime: torch@2.14.0-1\nrun: torchrun train.py\nnodes: 4\n"),
        List.of(),
        "bump",
        T1);
    Preview p = s.preview(temp.resolve("cache"), Optional.of("HEAD~1"), List.of());
    Golden.check("run-changed", p, MarkdownPreview.GITHUB_LIMIT);
    RunChange r = p.runs(RunChange.Status.ADDED).get(0);
    assertTrue(r.previous().isPresent(), "compared with the earlier run");
    assertEquals(
        "runtime torch@2.13.0-2 → torch@2.14.0-1; image docker.io/pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime@sha256:db80a41f8428644cebcb3d75b0b62df334ab6c0e75785951eb25f48bfbd42407"
            + " → docker.io/pytorch/pytorch:2.14.0-cuda13.0-cudnn9-runtime@sha256:"
            + "ab".repeat(32)
            + "; nodes 2 → 4 (vs. "
            + r.previous().get().folder().run()
            + ")",
        SummaryTables.since(r));
    assertTrue(
        p.callOuts().stream().anyMatch(c -> c.code().equals("runtime-changed")),
        p.callOuts().toString());
  }

  @Test
  @DisplayName("a run removed (pruned): listed with what it was, its objects named, no content")
  void runRemoved() throws Exception {
    Map<String, String> a = run("jobs/a", TORCH, EXAMPLE, '1', 1);
    Map<String, String> b = run("jobs/b", DEEPSPEED, EXAMPLE, '2', 2);
    Preview p =
        gitOps(
            temp, files(Map.of("platform.yaml", EXAMPLE), a, b), Map.of(), List.of(runFolder(b)));
    Golden.check("run-removed", p, MarkdownPreview.GITHUB_LIMIT);
    assertEquals(1, p.runs(RunChange.Status.REMOVED).size());
    assertTrue(
        p.runs().get(0).objects().stream()
            .allMatch(o -> o.status() == ObjectChange.Status.REMOVED && o.yaml().isEmpty()));
  }

  @Test
  @DisplayName(
      "diagnostics of every changed train.yaml, exactly as validate prints them; nothing would be submitted")
  void diagnostics() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(
            temp, Map.of("jobs/ok/train.yaml", TORCH), Map.of("README.md", "gitops\n"));
    PreviewRepos.commit(
        s.source(),
        Map.of(
            "jobs/ok/train.yaml",
            "run: torchrun train.py\nnodes: 3\n",
            "jobs/bad/train.yaml",
            "run: torchrun train.py\nnodes: 0\n",
            "jobs/mpi/train.yaml",
            MPI),
        List.of(),
        "more",
        T1);
    Preview p = s.preview(temp.resolve("cache"), Optional.of("HEAD~1"), List.of());
    Golden.check("diagnostics", p, MarkdownPreview.GITHUB_LIMIT);
    assertTrue(p.refused());
    assertEquals(
        List.of("jobs/bad/train.yaml", "jobs/mpi/train.yaml", "platform.yaml (GitOps repo)"),
        p.diagnostics().stream().map(d -> d.location().file()).distinct().toList(),
        "the GitOps repo has no platform.yaml: W806 too");
  }

  @Test
  @DisplayName(
      "a queue over quota: a run the queue never admits, one that fits only by borrowing, and a queue total over its quota")
  void queueOverQuota() throws Exception {
    String gpus = "run: torchrun train.py\nresources: {gpus: 8, gpuType: H100}\n";
    Map<String, String> x =
        run("jobs/x", gpus + "nodes: 3\nqueue: small\n", QUEUES_GENEROUS, '1', 1);
    Map<String, String> y =
        run("jobs/y", gpus + "nodes: 5\nqueue: small\n", QUEUES_GENEROUS, '2', 2);
    Map<String, String> z =
        run("jobs/z", gpus + "nodes: 4\nqueue: shared\n", QUEUES_GENEROUS, '3', 3);
    // Only the run folders and their kustomization: the queue files compiled with the generous
    // quotas would contradict platform.yaml.
    Map<String, String> runs = new TreeMap<>(files(x, y, z));
    runs.keySet().removeIf(path -> path.contains("/_"));
    Preview p = gitOps(temp, Map.of("platform.yaml", QUEUES), runs, List.of());
    Golden.check("queue-over-quota", p, MarkdownPreview.GITHUB_LIMIT);
    assertEquals(
        List.of("over-quota", "queue-total", "borrowing"),
        p.callOuts().stream().map(CallOut::code).toList());
    assertTrue(p.refused());
  }

  @Test
  @DisplayName("an immutable JobSet field changed in place is called out as refused")
  void immutableField() throws Exception {
    Map<String, String> a = run("jobs/a", TORCH, EXAMPLE, '1', 1);
    String jobSet =
        a.keySet().stream().filter(k -> k.contains("/jobset-")).findFirst().orElseThrow();
    Preview p =
        gitOps(
            temp,
            files(Map.of("platform.yaml", EXAMPLE), a),
            Map.of(
                jobSet,
                a.get(jobSet)
                    .replace("parallelism: 2", "parallelism: 3")
                    .replace("completions: 2", "completions: 3")),
            List.of());
    Golden.check("immutable-field", p, MarkdownPreview.GITHUB_LIMIT);
    assertEquals(List.of("immutable-field"), p.callOuts().stream().map(CallOut::code).toList());
    assertTrue(p.refused());
  }

  @Test
  @DisplayName(
      "a Secret changed in place shows *** (before) / *** (after), and the immutable and plain Secret call-outs")
  void secretChange() throws Exception {
    Map<String, String> before = run("jobs/mpi", MPI, EXAMPLE_PLAIN, '1', 1);
    Map<String, String> after = run("jobs/mpi", MPI, EXAMPLE_PLAIN, '1', 2);
    Preview p = gitOps(temp, files(Map.of("platform.yaml", EXAMPLE), before), after, List.of());
    Golden.check("secret-change", p, MarkdownPreview.GITHUB_LIMIT);
    ObjectChange secret = p.runs().get(0).objects().get(0);
    assertEquals(
        List.of("data.ssh-privatekey", "data.ssh-publickey"),
        secret.fields().stream().map(FieldChange::path).toList());
    assertEquals(Optional.of("*** (before)"), secret.fields().get(0).before());
    assertEquals(Optional.of("*** (after)"), secret.fields().get(0).after());
    assertEquals(
        List.of("immutable-secret", "plain-secret"),
        p.callOuts().stream().map(CallOut::code).toList());
  }

  @Test
  @DisplayName(
      "an oversized change is split into parts under the limit, each valid alone, that together hold every line")
  void oversized() throws Exception {
    Map<String, String> head = new TreeMap<>();
    for (int i = 0; i < 12; i++) {
      head.putAll(
          compile(temp, String.format("jobs/j%02d", i), DEEPSPEED, EXAMPLE, sha('4'), T0, i));
    }
    // The kustomization roots a real submit writes beside the runs and queue folders.
    Map<String, String> withPlatform = new TreeMap<>(head);
    withPlatform.put("platform.yaml", EXAMPLE);
    for (TreeEdit e : PlatformRender.of(new MapSnapshot(withPlatform)).edits()) {
      if (e instanceof TreeEdit.WriteFile w) {
        head.put(w.path(), w.text());
      }
    }
    Preview p = gitOps(temp, Map.of("platform.yaml", EXAMPLE), head, List.of());
    List<String> parts = Golden.check("oversized", p, MarkdownPreview.GITHUB_LIMIT);
    assertTrue(parts.size() > 1, "split into " + parts.size());
    for (String part : parts) {
      assertTrue(part.getBytes(StandardCharsets.UTF_8).length <= MarkdownPreview.GITHUB_LIMIT);
      assertEquals(count(part, "<details>"), count(part, "</details>"));
    }
    assertContainsInOrder(
        Golden.normalized(MarkdownPreview.whole(p)).lines().toList(),
        String.join("", parts).lines().toList());
  }

  @Test
  @DisplayName("a head with no train.yaml changes gives an empty, friendly preview")
  void noTrainYamlChanged() throws Exception {
    PreviewCases.SourceSetup s =
        PreviewCases.source(
            temp, Map.of("jobs/ok/train.yaml", TORCH), Map.of("README.md", "gitops\n"));
    PreviewRepos.commit(s.source(), Map.of("README.md", "docs only\n"), List.of(), "docs", T1);
    Preview p = s.preview(temp.resolve("cache"), Optional.of("HEAD~1"), List.of());
    Golden.check("no-train-yaml-change", p, MarkdownPreview.GITHUB_LIMIT);
    assertTrue(p.runs().isEmpty());
    assertFalse(p.refused());
  }

  static int count(String text, String what) {
    return text.split(Pattern.quote(what), -1).length - 1;
  }

  /** Every line of {@code whole} appears in {@code parts}, in the same order. */
  static void assertContainsInOrder(List<String> whole, List<String> parts) {
    int at = 0;
    List<String> missing = new ArrayList<>();
    for (String line : whole) {
      int found = parts.subList(at, parts.size()).indexOf(line);
      if (found < 0) {
        missing.add(line);
      } else {
        at += found + 1;
      }
    }
    assertEquals(List.of(), missing, "lines of the whole preview missing from its parts");
  }
}
