package dev.trainyard.gitops;

import dev.trainyard.compiler.manifest.EmitStage;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one run lives in the GitOps tree: {@code clusters/<cluster>/<namespace>/<run>/}. Cluster,
 * namespace and run names are DNS labels, so they never start with {@code _} like Trainyard's own
 * folders ({@code _cluster}, {@code _queues}).
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
    return EmitStage.runFolder(cluster, namespace, run);
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
   * for any other path. The one parser of the layout {@link #path()} writes.
   */
  public static Optional<RunFolder> containing(String path) {
    String[] parts = path.split("/");
    if (parts.length < 5 || !parts[0].equals("clusters")) {
      return Optional.empty();
    }
    for (int i = 1; i <= 3; i++) {
      if (reserved(parts[i])) {
        return Optional.empty();
      }
    }
    return Optional.of(new RunFolder(parts[1], parts[2], parts[3]));
  }

  /**
   * Whether a folder name is one of Trainyard's own ({@code _cluster}, {@code _queues}), not a
   * namespace or run.
   */
  static boolean reserved(String name) {
    return name.startsWith("_") || name.startsWith(".");
  }
}
