package dev.trainyard.controller;

import dev.trainyard.compiler.render.Provenance;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which run an object belongs to, for the informers' handlers and indexes and for list calls: a
 * JobSet is a run when it carries {@code trainyard.dev/source-commit}; a pod belongs to the JobSet
 * its {@code jobset.sigs.k8s.io/jobset-name} label names; a Kueue Workload to the JobSet that owns
 * it (Kueue sets the JobSet as its controller owner, apiVersion {@code jobset.x-k8s.io/*}).
 */
final class RunKeys {

  private RunKeys() {}

  /** Whether {@code o} carries a source commit (Trainyard provenance). */
  static boolean hasCommit(HasMetadata o) {
    Map<String, String> a = o.getMetadata().getAnnotations();
    return a != null && a.containsKey(Provenance.SOURCE_COMMIT);
  }

  /** The run a JobSet is; empty without a source commit. */
  static Optional<RunKey> ofJobSet(HasMetadata jobSet) {
    return hasCommit(jobSet)
        ? Optional.of(
            new RunKey(jobSet.getMetadata().getNamespace(), jobSet.getMetadata().getName()))
        : Optional.empty();
  }

  /** The run a pod belongs to, by its JobSet name label; empty without it. */
  static Optional<RunKey> ofPod(HasMetadata pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    String jobSet = labels == null ? null : labels.get(Snapshots.JOBSET_NAME);
    return jobSet == null
        ? Optional.empty()
        : Optional.of(new RunKey(pod.getMetadata().getNamespace(), jobSet));
  }

  /** The JobSet owning a Workload; empty when no JobSet owns it. */
  static Optional<RunKey> owner(HasMetadata workload) {
    List<OwnerReference> refs = workload.getMetadata().getOwnerReferences();
    return refs == null
        ? Optional.empty()
        : refs.stream()
            .filter(
                r ->
                    "JobSet".equals(r.getKind())
                        && r.getApiVersion() != null
                        && r.getApiVersion().startsWith("jobset.x-k8s.io/"))
            .findFirst()
            .map(r -> new RunKey(workload.getMetadata().getNamespace(), r.getName()));
  }
}
