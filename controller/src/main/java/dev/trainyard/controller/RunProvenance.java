package dev.trainyard.controller;

import dev.trainyard.compiler.render.Provenance;
import java.util.Map;
import java.util.Optional;

/**
 * Where a run comes from, read from the compiler's provenance keys on its JobSet (the only thing
 * the controller shares with the compiler, {@link Provenance}): source repo URL, source commit,
 * train.yaml path, target cluster and run name (label {@code trainyard.dev/run}, else the JobSet
 * name).
 */
public record RunProvenance(
    String sourceRepo, String sourceCommit, String sourcePath, String cluster, String run) {

  /** The provenance in {@code annotations} and {@code labels}; empty without a source commit. */
  public static Optional<RunProvenance> of(
      Map<String, String> annotations, Map<String, String> labels, String jobSetName) {
    Map<String, String> a = annotations == null ? Map.of() : annotations;
    Map<String, String> l = labels == null ? Map.of() : labels;
    String commit = a.getOrDefault(Provenance.SOURCE_COMMIT, "");
    if (commit.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(
        new RunProvenance(
            a.getOrDefault(Provenance.SOURCE_REPO, ""),
            commit,
            a.getOrDefault(Provenance.SOURCE_PATH, ""),
            a.getOrDefault(Provenance.CLUSTER, ""),
            l.getOrDefault(Provenance.RUN, jobSetName)));
  }

  /**
   * The commit status context of this run in {@code namespace}: {@code
   * trainyard/<cluster>/<namespace>/<run>}. The namespace is part of it because the run name is not
   * unique across namespaces: the compiler derives it from the job name and a hash of source
   * commit, train.yaml path and attempt ({@code ResolveStage.runId}), so one train.yaml submitted
   * to two namespaces of a cluster makes two runs of one name, whose statuses would overwrite each
   * other. At most 10 + cluster + 1 + 63 + 1 + 63 characters (namespace and JobSet names are DNS
   * labels), well inside GitHub's 255; a longer one is refused before posting ({@code Limits}).
   */
  public String context(String namespace) {
    return "trainyard/" + (cluster.isEmpty() ? "default" : cluster) + "/" + namespace + "/" + run;
  }
}
