package dev.trainyard.gitops.preview;

import dev.trainyard.gitops.RunFolder;
import dev.trainyard.gitops.RunIndex;
import dev.trainyard.gitops.Snapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the latest earlier run of the same train.yaml in a GitOps tree: same {@code source-repo} and
 * {@code source-path} provenance, newest {@code created-at} (then the greater run name). Only runs whose
 * folder name starts with the same job name ({@code <job>-<runid>}) are read, so a tree of 10,000 runs
 * costs a listing and a few JobSet reads per run, not 10,000 reads.
 */
final class PreviousRuns {
  private static final Comparator<RunFacts> NEWEST =
      Comparator.comparing(RunFacts::createdAt).thenComparing(f -> f.folder().run());
  private final Snapshot base;
  private final JobSetFacts reader;
  private Map<String, List<RunFolder>> byJob;

  PreviousRuns(Snapshot base, JobSetFacts reader) {
    this.base = base;
    this.reader = reader;
  }

  /** The run {@code run} follows, if the tree holds an earlier run of its train.yaml. */
  Optional<RunFacts> of(RunFacts run) {
    if (run.sourcePath().isEmpty()) {
      return Optional.empty();
    }
    List<RunFacts> earlier = new ArrayList<>();
    for (RunFolder candidate : index().getOrDefault(jobOf(run.folder().run(), run.jobName()), List.of())) {
      if (candidate.equals(run.folder())) {
        continue;
      }
      reader.read(candidate, base.read(candidate.jobSetFile()))
          .filter(f -> f.sourcePath().equals(run.sourcePath()) && f.sourceRepo().equals(run.sourceRepo()))
          .ifPresent(earlier::add);
    }
    return earlier.stream().max(NEWEST);
  }

  private Map<String, List<RunFolder>> index() {
    if (byJob == null) {
      byJob = new HashMap<>();
      for (RunFolder r : new RunIndex(base).runs()) {
        byJob.computeIfAbsent(jobOf(r.run(), ""), k -> new ArrayList<>()).add(r);
      }
    }
    return byJob;
  }

  /** The job name of a run: its label when known, else the run name without its last {@code -<runid>}. */
  private static String jobOf(String run, String label) {
    if (!label.isEmpty()) {
      return label;
    }
    int dash = run.lastIndexOf('-');
    return dash < 0 ? run : run.substring(0, dash);
  }
}
