package dev.trainyard.gitops.preview;

import dev.trainyard.gitops.RunFolder;
import java.math.BigDecimal;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a reviewer needs to know about one run, read from its JobSet file and provenance
 * annotations. Unknown values are {@code ""} (a hand-written JobSet may lack Trainyard's
 * annotations).
 *
 * @param folder where the run lives
 * @param jobName {@code trainyard.dev/job}, the run name without its run id
 * @param sourceRepo {@code trainyard.dev/source-repo}
 * @param sourcePath {@code trainyard.dev/source-path}, the train.yaml in the source repo
 * @param sourceCommit {@code trainyard.dev/source-commit}
 * @param createdAt {@code trainyard.dev/created-at} (RFC 3339) or ""
 * @param runtime {@code name@version}
 * @param image the container image (tag or digest as pinned)
 * @param runtimeDigest {@code trainyard.dev/runtime-digest}
 * @param queue the LocalQueue ({@code kueue.x-k8s.io/queue-name})
 * @param nodes nodes (pods that run ranks)
 * @param procsPerNode processes per node
 * @param gpusPerNode GPUs per node
 * @param gpuType the platform's gpuType whose node labels the pods select, or ""
 * @param requests the whole JobSet's requests by resource name (all pods; what Kueue admits at
 *     once)
 * @param checkpoint {@code trainyard.dev/checkpoint}: the job's checkpoint key (its claim), or ""
 * @param checkpointResume {@code trainyard.dev/checkpoint-resume}: {@code latest} (resumes from the
 *     job's newest complete checkpoint) or {@code fresh} ({@code --fresh}), or ""
 */
public record RunFacts(
    RunFolder folder,
    String jobName,
    String sourceRepo,
    String sourcePath,
    String sourceCommit,
    String createdAt,
    String runtime,
    String image,
    String runtimeDigest,
    String queue,
    int nodes,
    int procsPerNode,
    int gpusPerNode,
    String gpuType,
    SortedMap<String, BigDecimal> requests,
    String checkpoint,
    String checkpointResume) {
  /** Facts of a run without a checkpoint. */
  public RunFacts(
      RunFolder folder,
      String jobName,
      String sourceRepo,
      String sourcePath,
      String sourceCommit,
      String createdAt,
      String runtime,
      String image,
      String runtimeDigest,
      String queue,
      int nodes,
      int procsPerNode,
      int gpusPerNode,
      String gpuType,
      SortedMap<String, BigDecimal> requests) {
    this(
        folder,
        jobName,
        sourceRepo,
        sourcePath,
        sourceCommit,
        createdAt,
        runtime,
        image,
        runtimeDigest,
        queue,
        nodes,
        procsPerNode,
        gpusPerNode,
        gpuType,
        requests,
        "",
        "");
  }

  public RunFacts {
    Objects.requireNonNull(folder, "folder");
    requests = new TreeMap<>(requests);
  }

  /**
   * A run whose JobSet file is missing or unreadable: every value unknown ("", 0 nodes, no
   * requests).
   */
  public static RunFacts unknown(RunFolder folder) {
    return new RunFacts(folder, "", "", "", "", "", "", "", "", "", 0, 0, 0, "", new TreeMap<>());
  }

  /**
   * These facts as another run's: {@code folder}, source commit and creation time replaced, the
   * rest kept.
   */
  public RunFacts of(RunFolder folder, String sourceCommit, String createdAt) {
    return new RunFacts(
        folder,
        jobName,
        sourceRepo,
        sourcePath,
        sourceCommit,
        createdAt,
        runtime,
        image,
        runtimeDigest,
        queue,
        nodes,
        procsPerNode,
        gpusPerNode,
        gpuType,
        requests,
        checkpoint,
        checkpointResume);
  }

  /** The JobSet's total request of {@code resource} (0 when none). */
  public BigDecimal total(String resource) {
    return requests.getOrDefault(resource, BigDecimal.ZERO);
  }

  /** The requests as an unmodifiable map. */
  public Map<String, BigDecimal> requestsView() {
    return Collections.unmodifiableSortedMap(requests);
  }
}
