package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;
import java.util.Optional;

/**
 * Framework behaviour as Java code, one implementation per framework (like Kubeflow Trainer's
 * plugins): the env each rank needs, the command, and any extra objects (hostfile ConfigMap, SSH
 * Secret, RBAC).
 */
interface FrameworkPlugin {

  /** Pod specs for every replicated job of {@code layout}, plus the framework's extra objects. */
  FrameworkOutput render(ResolvedJob job, JobLayout layout, RenderServices services);

  /**
   * What a plugin produces.
   *
   * @param jobs one part per replicated job, in JobSet order
   * @param extraObjects objects of the run besides the JobSet
   * @param successTargets replicated jobs whose completion completes the JobSet; empty means all
   */
  record FrameworkOutput(
      List<ReplicatedJobPart> jobs, List<Manifest> extraObjects, List<String> successTargets) {
    public FrameworkOutput {
      jobs = List.copyOf(jobs);
      extraObjects = List.copyOf(extraObjects);
      successTargets = List.copyOf(successTargets);
    }
  }

  /**
   * One replicated job's pod spec.
   *
   * @param shape name and pod count
   * @param podSpec the pod template's {@code spec}
   * @param dependsOnReady the replicated job that must be Ready before this one starts
   */
  record ReplicatedJobPart(
      JobLayout.ReplicatedJobShape shape, ObjectNode podSpec, Optional<String> dependsOnReady) {}
}
