package dev.trainyard.controller;

import dev.trainyard.controller.state.TrainingSigns;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How long each job's successful runs took, as the reconciler saw them end: a job is its namespace,
 * source repo and train.yaml path ({@link #job}), the same for every run the GitOps repo holds of
 * it. The informers list every JobSet the cluster still keeps (the GitOps repo's runs until {@code
 * retention} prunes them), so after a restart the history refills at the first resync. Bounded: the
 * last {@link #PER_JOB} runs of at most {@link #JOBS} jobs (the job seen longest ago is dropped
 * first). Not thread-safe: the reconciler's lock guards it.
 *
 * <pre>
 * record(job, "team-a/llm-7f3a9c", PT2H) … usual(job, "team-a/llm-9d1e20") → PT2H (3 or more runs)
 * </pre>
 */
final class JobHistory {

  /** Runs kept per job, newest last. */
  static final int PER_JOB = 20;

  /** Jobs kept. */
  static final int JOBS = 10_000;

  private final Map<String, LinkedHashMap<String, Duration>> jobs =
      new LinkedHashMap<>(16, 0.75f, true);

  /** The job {@code p}'s run belongs to, in {@code namespace}. */
  static String job(String namespace, RunProvenance p) {
    return namespace + "\n" + p.sourceRepo() + "\n" + p.sourcePath();
  }

  /** Records that {@code run} of {@code job} succeeded in {@code took} (once per run). */
  void record(String job, String run, Duration took) {
    if (took == null || took.isNegative()) {
      return;
    }
    LinkedHashMap<String, Duration> runs = jobs.computeIfAbsent(job, j -> new LinkedHashMap<>());
    runs.putIfAbsent(run, took);
    if (runs.size() > PER_JOB) {
      Iterator<String> oldest = runs.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
    if (jobs.size() > JOBS) {
      Iterator<String> stalest = jobs.keySet().iterator();
      stalest.next();
      stalest.remove();
    }
  }

  /**
   * The median duration of {@code job}'s successful runs other than {@code run}; empty with fewer
   * than {@link TrainingSigns#MIN_HISTORY} of them.
   */
  Optional<Duration> usual(String job, String run) {
    Map<String, Duration> runs = jobs.getOrDefault(job, new LinkedHashMap<>());
    List<Duration> others = new ArrayList<>();
    runs.forEach(
        (r, d) -> {
          if (!r.equals(run)) {
            others.add(d);
          }
        });
    if (others.size() < TrainingSigns.MIN_HISTORY) {
      return Optional.empty();
    }
    others.sort(null);
    return Optional.of(others.get(others.size() / 2));
  }
}
