package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainyard.gitops.RunFolder;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The summary rows a reviewer reads first: one per run, one per queue, in the words of the table's
 * columns.
 */
class SummaryTablesTest {
  private static final RunFolder FOLDER = new RunFolder("prod", "team-a", "train-abc123");
  private static final RunFolder EARLIER = new RunFolder("prod", "team-a", "train-000001");
  private static final String DIGEST = "sha256:" + "0123456789abcdef".repeat(4);

  private static RunFacts facts(
      RunFolder folder,
      String runtime,
      String image,
      String digest,
      int nodes,
      int procs,
      int gpus,
      String gpuType,
      String queue) {
    return new RunFacts(
        folder,
        "train",
        "https://github.com/acme/ml.git",
        "jobs/train/train.yaml",
        "c".repeat(40),
        "2026-12-01T09:00:00Z",
        runtime,
        image,
        digest,
        queue,
        nodes,
        procs,
        gpus,
        gpuType,
        new TreeMap<>());
  }

  private static RunFacts torch(RunFolder folder) {
    return facts(folder, "torch@2.13.0-1", "pytorch:2.13", DIGEST, 2, 8, 8, "H100", "small");
  }

  private static RunChange added(RunFacts now, Optional<RunFacts> previous) {
    return new RunChange(
        RunChange.Status.ADDED,
        now.folder(),
        Optional.empty(),
        Optional.of(now),
        previous,
        List.of());
  }

  private static RunChange changed(RunFacts before, RunFacts after) {
    return new RunChange(
        RunChange.Status.CHANGED,
        after.folder(),
        Optional.of(before),
        Optional.of(after),
        Optional.empty(),
        List.of());
  }

  private static Preview preview(List<RunChange> runs, List<QueueTotal> queues) {
    return new Preview(
        Preview.Mode.GITOPS,
        "base",
        "head",
        runs,
        queues,
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        "",
        Optional.empty());
  }

  private static String row(RunChange r) {
    return SummaryTables.runs(preview(List.of(r), List.of())).body().get(0);
  }

  @Test
  @DisplayName(
      "a run's row: change, run, train.yaml, runtime, image with the digest shortened to 12 hex digits, nodes × procs, GPUs × type, queue, cluster/namespace")
  void runRow() {
    assertEquals(
        "| added | `train-abc123` | jobs/train/train.yaml | torch@2.13.0-1 | `pytorch:2.13` (`sha256:0123456789ab`) | 2 × 8 | 16 H100 | small"
            + " | prod/team-a | first run |",
        row(added(torch(FOLDER), Optional.empty())));
  }

  @Test
  @DisplayName(
      "a digest that is not sha256 is shown whole, none is left out; GPUs without a known type are a bare count, no GPUs a dash")
  void digestsAndGpus() {
    RunFacts other =
        facts(FOLDER, "torch@2.13.0-1", "pytorch:2.13", "md5:abc", 1, 1, 4, "", "small");
    assertEquals(
        "| added | `train-abc123` | jobs/train/train.yaml | torch@2.13.0-1 | `pytorch:2.13` (`md5:abc`) | 1 × 1 | 4 | small | prod/team-a | first run |",
        row(added(other, Optional.empty())));
    RunFacts none = facts(FOLDER, "torch@2.13.0-1", "pytorch:2.13", "", 3, 1, 0, "H100", "small");
    assertEquals(
        "| added | `train-abc123` | jobs/train/train.yaml | torch@2.13.0-1 | `pytorch:2.13` | 3 × 1 | — | small | prod/team-a | first run |",
        row(added(none, Optional.empty())));
    RunFacts exact =
        facts(
            FOLDER, "torch@2.13.0-1", "pytorch:2.13", "sha256:0123456789ab", 1, 1, 0, "", "small");
    assertEquals(
        "`pytorch:2.13` (`sha256:0123456789ab`)",
        row(added(exact, Optional.empty())).split(" \\| ")[4]);
  }

  @Test
  @DisplayName(
      "since the last run: every fact that differs, old → new, an unknown value as —; an added run names the run it is compared with")
  void since() {
    RunFacts was = torch(EARLIER);
    RunFacts now = facts(FOLDER, "torch@2.13.0-1", "pytorch:2.13", DIGEST, 2, 4, 4, "", "shared");
    assertEquals(
        "procs/node 8 → 4; GPUs/node 8 → 4; GPU type H100 → —; queue small → shared (vs. train-000001)",
        SummaryTables.since(added(now, Optional.of(was))));
    RunFacts back = facts(FOLDER, "torch@2.13.0-1", "", DIGEST, 2, 8, 8, "H100", "small");
    assertEquals("image — → pytorch:2.13", SummaryTables.since(changed(back, torch(FOLDER))));
    assertEquals("same shape", SummaryTables.since(changed(torch(FOLDER), torch(FOLDER))));
    assertEquals(
        "same shape (vs. train-000001)",
        SummaryTables.since(added(torch(FOLDER), Optional.of(was))));
  }

  @Test
  @DisplayName(
      "since the last run of a removed run is —, of a run whose JobSet cannot be read 'JobSet unreadable'")
  void sinceWithoutFacts() {
    RunChange removed =
        new RunChange(
            RunChange.Status.REMOVED,
            FOLDER,
            Optional.of(torch(FOLDER)),
            Optional.empty(),
            Optional.empty(),
            List.of());
    assertEquals("—", SummaryTables.since(removed));
    RunChange unreadable =
        new RunChange(
            RunChange.Status.CHANGED,
            FOLDER,
            Optional.of(torch(FOLDER)),
            Optional.empty(),
            Optional.empty(),
            List.of());
    assertEquals("JobSet unreadable", SummaryTables.since(unreadable));
    assertEquals(
        "| changed | `train-abc123` | jobs/train/train.yaml | torch@2.13.0-1 | `pytorch:2.13` (`sha256:0123456789ab`) | 2 × 8 | 16 H100 | small"
            + " | prod/team-a | JobSet unreadable |",
        row(unreadable));
  }

  @Test
  @DisplayName(
      "a queue's row: GPUs asked beside the nominal quota and its cohort; a queue without GPUs, borrowing and over quota say so; a queue platform.yaml lacks is never admitted, GPUs or not")
  void queueRows() {
    BigDecimal eight = BigDecimal.valueOf(8);
    List<QueueTotal> queues =
        List.of(
            new QueueTotal(
                "team-a",
                "fits",
                Optional.of("cq"),
                1,
                eight,
                Optional.of(eight),
                Optional.empty()),
            new QueueTotal(
                "team-a",
                "borrow",
                Optional.of("cq"),
                2,
                BigDecimal.valueOf(9),
                Optional.of(eight),
                Optional.of("research")),
            new QueueTotal(
                "team-a",
                "over",
                Optional.of("cq"),
                1,
                BigDecimal.valueOf(9),
                Optional.of(eight),
                Optional.empty()),
            new QueueTotal(
                "team-a",
                "cpu-only",
                Optional.of("cq"),
                1,
                eight,
                Optional.empty(),
                Optional.of("research")),
            new QueueTotal(
                "team-a",
                "none",
                Optional.empty(),
                1,
                BigDecimal.ZERO,
                Optional.empty(),
                Optional.empty()),
            new QueueTotal(
                "team-a",
                "cpu",
                Optional.of("cpu"),
                1,
                BigDecimal.ZERO,
                Optional.empty(),
                Optional.empty()));
    assertEquals(
        List.of(
            "| team-a/fits | cq | 1 | 8 | 8 | fits |",
            "| team-a/borrow | cq | 2 | 9 | 8 (cohort `research`) | **over: only by borrowing** |",
            "| team-a/over | cq | 1 | 9 | 8 | **over quota** |",
            "| team-a/cpu-only | cq | 1 | 8 | GPUs not covered (cohort `research`) | **over quota** |",
            "| team-a/none | — | 1 | 0 | no such queue | **never admitted** |",
            "| team-a/cpu | cpu | 1 | 0 | GPUs not covered | fits |"),
        SummaryTables.queues(preview(List.of(), queues)).body());
  }

  @Test
  @DisplayName("a table split between comments repeats its header rows")
  void headersRepeat() {
    Block runs =
        SummaryTables.runs(preview(List.of(added(torch(FOLDER), Optional.empty())), List.of()));
    assertEquals(runs.head(), runs.reopen());
    assertEquals(2, runs.head().size());
    assertEquals(List.of(""), runs.tail());
  }

  private static RunFacts checkpointed(RunFolder folder, String resume) {
    RunFacts f = torch(folder);
    return new RunFacts(
        f.folder(),
        f.jobName(),
        f.sourceRepo(),
        f.sourcePath(),
        f.sourceCommit(),
        f.createdAt(),
        f.runtime(),
        f.image(),
        f.runtimeDigest(),
        f.queue(),
        f.nodes(),
        f.procsPerNode(),
        f.gpusPerNode(),
        f.gpuType(),
        new TreeMap<>(),
        "train-3f2a1b",
        resume);
  }

  @Test
  @DisplayName(
      "the checkpoints table: one row per added or changed run with a checkpoint (claim, where it starts); none without checkpointed runs; a removed run is not listed")
  void checkpoints() {
    RunFacts latest = checkpointed(FOLDER, "latest");
    RunFacts fresh = checkpointed(new RunFolder("prod", "team-a", "train-def456"), "fresh");
    RunChange removed =
        new RunChange(
            RunChange.Status.REMOVED,
            EARLIER,
            Optional.of(checkpointed(EARLIER, "latest")),
            Optional.empty(),
            Optional.empty(),
            List.of());
    Block block =
        SummaryTables.checkpoints(
                preview(
                    List.of(
                        added(latest, Optional.empty()),
                        changed(torch(FOLDER), fresh),
                        added(torch(EARLIER), Optional.empty()),
                        removed),
                    List.of()))
            .orElseThrow();
    assertEquals(
        List.of(
            "| `train-abc123` | `train-3f2a1b` | the job's newest complete checkpoint, if any (`RESUME_FROM`) |",
            "| `train-def456` | `train-3f2a1b` | step 0: `--fresh` (later runs resume from its checkpoints) |"),
        block.body());
    assertEquals(
        List.of(
            "**Checkpoints** (kept across restarts and runs of the job)",
            "",
            "| run | checkpoint claim | starts from |",
            "|---|---|---|"),
        block.head());
    assertEquals(
        List.of("| run | checkpoint claim | starts from |", "|---|---|---|"), block.reopen());
    assertEquals(
        Optional.empty(),
        SummaryTables.checkpoints(
            preview(List.of(added(torch(FOLDER), Optional.empty())), List.of())));
    assertEquals("", torch(FOLDER).checkpoint());
    assertEquals("", torch(FOLDER).checkpointResume());
    assertEquals("fresh", fresh.of(EARLIER, "d".repeat(40), "").checkpointResume());
    assertEquals("train-3f2a1b", fresh.of(EARLIER, "d".repeat(40), "").checkpoint());
  }

  @Test
  @DisplayName(
      "JSON: a checkpointed run carries checkpoint {claim, resume}; a run without one has no checkpoint key")
  void checkpointJson() throws Exception {
    var json =
        new ObjectMapper()
            .readTree(
                JsonPreview.render(
                    preview(
                        List.of(
                            added(checkpointed(FOLDER, "fresh"), Optional.empty()),
                            added(torch(EARLIER), Optional.empty())),
                        List.of())));
    assertEquals(
        "{\"claim\":\"train-3f2a1b\",\"resume\":\"fresh\"}",
        json.path("runs").path(0).path("checkpoint").toString());
    assertEquals(true, json.path("runs").path(1).path("checkpoint").isMissingNode());
  }
}
