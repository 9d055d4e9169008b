package dev.trainyard.compiler.render;

import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.Map;
import java.util.TreeMap;

/**
 * Labels and provenance annotations stamped on every object of a run, so any object in the cluster
 * leads back to the source commit, the train.yaml, the runtime version and digest, and the compiler
 * that made it. The status controller reads the same keys.
 */
public final class Provenance {
  /** Annotation/label key prefix owned by Trainyard. */
  public static final String PREFIX = "trainyard.dev/";

  public static final String SOURCE_REPO = PREFIX + "source-repo";
  public static final String SOURCE_COMMIT = PREFIX + "source-commit";
  public static final String SOURCE_PATH = PREFIX + "source-path";
  public static final String RUNTIME = PREFIX + "runtime";
  public static final String RUNTIME_DIGEST = PREFIX + "runtime-digest";
  public static final String IMAGE = PREFIX + "image";

  /**
   * {@code "train.yaml"} when train.yaml's {@code image:} replaced the runtime's image (absent
   * otherwise), so the status controller can tell the user's image, which the user must fix when it
   * cannot be pulled, from the platform's.
   */
  public static final String IMAGE_SOURCE = PREFIX + "image-source";

  /** The value of {@link #IMAGE_SOURCE} for an image that train.yaml names. */
  public static final String IMAGE_FROM_TRAIN_YAML = "train.yaml";

  public static final String COMPILER_VERSION = PREFIX + "compiler-version";
  public static final String PLATFORM = PREFIX + "platform";
  public static final String RUN = PREFIX + "run";
  public static final String JOB = PREFIX + "job";
  public static final String CLUSTER = PREFIX + "cluster";

  /**
   * When the run was first submitted, RFC 3339 UTC ({@code 2026-12-01T09:00:00Z}); read by prune.
   */
  public static final String CREATED_AT = PREFIX + "created-at";

  /**
   * On the pod template of a replicated job whose pods run no ranks (an MPI launcher beside its
   * nodes): {@code "false"}, so readers of a JobSet (preview, status) count nodes without guessing
   * from env or resources.
   */
  public static final String RUNS_RANKS = PREFIX + "runs-ranks";

  /**
   * The checkpoint key of a run with {@code checkpoint:} (on every run object) and of its claim (a
   * label): which checkpoints the run resumes from and writes.
   */
  public static final String CHECKPOINT = PREFIX + "checkpoint";

  /**
   * Whether a checkpointed run resumes ({@code latest}: from the newest complete checkpoint of the
   * job) or starts over ({@code fresh}, {@code --fresh}).
   */
  public static final String CHECKPOINT_RESUME = PREFIX + "checkpoint-resume";

  /**
   * On a checkpoint claim: the submit time of the last run that used it, RFC 3339 UTC; checkpoint
   * retention counts from it.
   */
  public static final String LAST_USED_AT = PREFIX + "last-used-at";

  /** Kueue: LocalQueue of the workload, on JobSet metadata (kueue docs, tasks/run/jobsets). */
  public static final String QUEUE_NAME = "kueue.x-k8s.io/queue-name";

  /** Kueue: WorkloadPriorityClass of the workload. */
  public static final String PRIORITY_CLASS = "kueue.x-k8s.io/priority-class";

  private Provenance() {}

  /** Annotations of every run object. */
  public static Map<String, String> annotations(ResolvedJob job) {
    Map<String, String> a = new TreeMap<>();
    a.put(SOURCE_REPO, job.source().repoUrl());
    a.put(SOURCE_COMMIT, job.source().commit());
    a.put(SOURCE_PATH, job.source().trainYamlPath());
    a.put(RUNTIME, job.runtime().ref());
    a.put(RUNTIME_DIGEST, job.runtime().digest());
    a.put(IMAGE, job.command().image());
    if (job.spec().image().isPresent()) {
      a.put(IMAGE_SOURCE, IMAGE_FROM_TRAIN_YAML);
    }
    a.put(COMPILER_VERSION, job.stamp().compilerVersion());
    job.stamp().createdAt().ifPresent(t -> a.put(CREATED_AT, t.toString()));
    a.put(CLUSTER, job.target().cluster());
    job.checkpoint()
        .ifPresent(
            c -> {
              a.put(CHECKPOINT, c.key());
              a.put(CHECKPOINT_RESUME, c.fresh() ? "fresh" : "latest");
            });
    return a;
  }

  /** Labels of every run object. */
  public static Map<String, String> labels(ResolvedJob job) {
    Map<String, String> l = new TreeMap<>();
    l.put("app.kubernetes.io/managed-by", "trainyard");
    l.put(JOB, job.naming().jobName());
    l.put(RUN, job.naming().runName());
    return l;
  }

  /** Labels of the JobSet: the run labels plus Kueue's queue and priority. */
  public static Map<String, String> jobSetLabels(ResolvedJob job) {
    Map<String, String> l = labels(job);
    l.put(QUEUE_NAME, job.target().localQueue());
    if (!job.target().priority().isEmpty()) {
      l.put(PRIORITY_CLASS, job.target().priority());
    }
    return l;
  }
}
