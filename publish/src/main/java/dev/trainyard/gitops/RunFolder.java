package dev.trainyard.gitops;

import dev.trainyard.compiler.manifest.TreeLayout;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one run lives in the GitOps tree: {@code clusters/<cluster>/<namespace>/<run>/} ({@link
 * TreeLayout}, which owns the layout).
 *
 * @param cluster cluster name from platform.yaml
 * @param namespace Kubernetes namespace
 * @param run run name ({@code <job>-<runid>}), also the JobSet's name
 */
public record RunFolder(String cluster, String namespace, String run) {
  public RunFolder {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(run, "run");
  }

  /** The folder's path from the repository root, without a trailing slash. */
  public String path() {
    return TreeLayout.runFolder(cluster, namespace, run);
  }

  /** The path of the run's JobSet file (one object per file, {@code <kind>-<name>.yaml}). */
  public String jobSetFile() {
    return path() + "/jobset-" + run + ".yaml";
  }

  /** {@code <namespace>/<run>}, as prune records it. */
  public String key() {
    return namespace + "/" + run;
  }

  /**
   * The run folder a repository path lies in: {@code clusters/<cluster>/<namespace>/<run>/<file>}
   * with no Trainyard folder ({@code _cluster}, {@code _queues}) or hidden one on the way; empty
   * for any other path ({@link TreeLayout#of}).
   */
  public static Optional<RunFolder> containing(String path) {
    TreeLayout place = TreeLayout.of(path);
    return place
        .run()
        .map(
            run ->
                new RunFolder(place.cluster().orElseThrow(), place.namespace().orElseThrow(), run));
  }
}
