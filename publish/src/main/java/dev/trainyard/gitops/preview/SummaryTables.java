package dev.trainyard.gitops.preview;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The two summary tables: one row per run, one row per queue. Split tables repeat their header
 * rows.
 */
final class SummaryTables {
  private static final List<String> RUN_HEADER =
      List.of(
          "| change | run | train.yaml | runtime | image (runtime digest) | nodes × procs | GPUs | queue | cluster/namespace | since the last run |",
          "|---|---|---|---|---|---|---|---|---|---|");
  private static final List<String> QUEUE_HEADER =
      List.of(
          "| LocalQueue | ClusterQueue | runs | GPUs asked | nominal GPU quota | |",
          "|---|---|---|---|---|---|");

  private SummaryTables() {}

  static Block runs(Preview p) {
    List<String> rows = new ArrayList<>();
    for (RunChange r : p.runs()) {
      RunFacts f = r.shown();
      rows.add(
          "| "
              + r.status().name().toLowerCase(Locale.ROOT)
              + " | "
              + Md.code(f.folder().run())
              + " | "
              + Md.cell(f.sourcePath())
              + " | "
              + Md.cell(f.runtime())
              + " | "
              + image(f)
              + " | "
              + f.nodes()
              + " × "
              + f.procsPerNode()
              + " | "
              + gpus(f)
              + " | "
              + Md.cell(f.queue())
              + " | "
              + f.folder().cluster()
              + "/"
              + f.folder().namespace()
              + " | "
              + Md.cell(since(r))
              + " |");
    }
    return new Block(RUN_HEADER, rows, List.of(""), RUN_HEADER);
  }

  private static final List<String> QUOTA_HEADER =
      List.of(
          "| ClusterQueue | resource | nominal quota | runs in git | no longer admitted |",
          "|---|---|---|---|---|");

  /**
   * The platform change: its heading, what the runs counted are (git, not the cluster), and one row
   * per changed ClusterQueue quota with the runs it shuts out.
   */
  static List<Block> platform(PlatformChange change) {
    List<Block> out = new ArrayList<>();
    out.add(
        Block.text(
            List.of(
                "### Platform change",
                "",
                "Judged against the "
                    + change.runs()
                    + (change.runs() == 1 ? " run" : " runs")
                    + " committed at head: queued, running, or finished and not pruned yet"
                    + " (Trainyard reads git, not the cluster). Kueue keeps a running workload"
                    + " admitted when its quota shrinks; the new quota holds it back once it is"
                    + " evicted or restarted.",
                "")));
    if (change.quotas().isEmpty()) {
      out.add(Block.text(List.of("No ClusterQueue quota changes.", "")));
      return out;
    }
    List<String> rows = new ArrayList<>();
    for (QuotaChange q : change.quotas()) {
      List<String> effect = new ArrayList<>();
      if (!q.neverAdmitted().isEmpty()) {
        effect.add(q.neverAdmitted().size() + " never admitted");
      }
      if (!q.borrowing().isEmpty()) {
        effect.add(
            q.borrowing().size() + " only by borrowing from " + Md.code(q.cohort().orElse("")));
      }
      rows.add(
          "| "
              + Md.code(q.clusterQueue())
              + " | "
              + Md.code(q.resource())
              + " | "
              + q.shown()
              + " | "
              + q.runs()
              + " | "
              + (effect.isEmpty() ? "none" : String.join(", ", effect))
              + " |");
    }
    out.add(new Block(QUOTA_HEADER, rows, List.of(""), QUOTA_HEADER));
    return out;
  }

  private static final List<String> CHECKPOINT_HEADER =
      List.of("| run | checkpoint claim | starts from |", "|---|---|---|");

  /**
   * The checkpointed runs among the added and changed ones: the job's claim and where the run
   * starts (docs/checkpoints.md); empty when there are none.
   */
  static Optional<Block> checkpoints(Preview p) {
    List<String> rows = new ArrayList<>();
    for (RunChange r : p.runs()) {
      if (r.after().isEmpty() || r.after().get().checkpoint().isEmpty()) {
        continue;
      }
      RunFacts f = r.after().get();
      rows.add(
          "| "
              + Md.code(f.folder().run())
              + " | "
              + Md.code(f.checkpoint())
              + " | "
              + (f.checkpointResume().equals("fresh")
                  ? "step 0: `--fresh` (later runs resume from its checkpoints)"
                  : "the job's newest complete checkpoint, if any (`RESUME_FROM`)")
              + " |");
    }
    if (rows.isEmpty()) {
      return Optional.empty();
    }
    List<String> head =
        new ArrayList<>(List.of("**Checkpoints** (kept across restarts and runs of the job)", ""));
    head.addAll(CHECKPOINT_HEADER);
    return Optional.of(new Block(head, rows, List.of(""), CHECKPOINT_HEADER));
  }

  static Block queues(Preview p) {
    List<String> rows = new ArrayList<>();
    for (QueueTotal q : p.queues()) {
      String quota =
          q.clusterQueue().isEmpty()
              ? "no such queue"
              : q.quota().map(Quantity::plain).orElse("GPUs not covered")
                  + q.cohort().map(c -> " (cohort " + Md.code(c) + ")").orElse("");
      String verdict =
          q.clusterQueue().isEmpty()
              ? "**never admitted**"
              : !q.over()
                  ? "fits"
                  : q.quota().isPresent() && q.cohort().isPresent()
                      ? "**over: only by borrowing**"
                      : "**over quota**";
      rows.add(
          "| "
              + Md.cell(q.namespace() + "/" + q.queue())
              + " | "
              + Md.cell(q.clusterQueue().orElse("—"))
              + " | "
              + q.runs()
              + " | "
              + Quantity.plain(q.gpus())
              + " | "
              + quota
              + " | "
              + verdict
              + " |");
    }
    return new Block(QUEUE_HEADER, rows, List.of(""), QUEUE_HEADER);
  }

  private static String image(RunFacts f) {
    String digest =
        f.runtimeDigest().startsWith("sha256:") && f.runtimeDigest().length() > 19
            ? f.runtimeDigest().substring(0, 19)
            : f.runtimeDigest();
    return Md.code(f.image()) + (digest.isEmpty() ? "" : " (" + Md.code(digest) + ")");
  }

  private static String gpus(RunFacts f) {
    int total = f.nodes() * f.gpusPerNode();
    return total == 0 ? "—" : total + (f.gpuType().isEmpty() ? "" : " " + f.gpuType());
  }

  /** What changed in the summary's terms since the run this one is compared with. */
  static String since(RunChange r) {
    if (r.status() == RunChange.Status.REMOVED) {
      return "—";
    }
    if (r.after().isEmpty()) {
      return "JobSet unreadable";
    }
    Optional<RunFacts> was = r.comparedWith();
    if (was.isEmpty()) {
      return "first run";
    }
    RunFacts a = was.get();
    RunFacts b = r.after().get();
    List<String> d = new ArrayList<>();
    delta(d, "runtime", a.runtime(), b.runtime());
    delta(d, "image", a.image(), b.image());
    delta(d, "nodes", Integer.toString(a.nodes()), Integer.toString(b.nodes()));
    delta(d, "procs/node", Integer.toString(a.procsPerNode()), Integer.toString(b.procsPerNode()));
    delta(d, "GPUs/node", Integer.toString(a.gpusPerNode()), Integer.toString(b.gpusPerNode()));
    delta(d, "GPU type", a.gpuType(), b.gpuType());
    delta(d, "queue", a.queue(), b.queue());
    String vs = r.status() == RunChange.Status.ADDED ? " (vs. " + a.folder().run() + ")" : "";
    return (d.isEmpty() ? "same shape" : String.join("; ", d)) + vs;
  }

  private static void delta(List<String> out, String what, String a, String b) {
    if (!a.equals(b)) {
      out.add(what + " " + (a.isEmpty() ? "—" : a) + " → " + (b.isEmpty() ? "—" : b));
    }
  }
}
