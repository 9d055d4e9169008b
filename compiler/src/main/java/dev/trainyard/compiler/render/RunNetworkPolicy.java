package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.resolve.ResolvedJob;

/**
 * The run's own NetworkPolicy (platform.yaml {@code networkPolicy.runs: true}): the run's pods
 * accept connections from the run's pods, on every port, so ranks meet in a namespace whose
 * baseline denies ingress. Pods are selected by {@value #JOBSET_NAME}, the label the JobSet
 * controller puts on every pod of a JobSet (jobset {@code api/jobset/v1alpha2} {@code
 * JobSetNameKey}); the policy names no {@code Egress} type, so the run's egress (git clone, pip,
 * the API server) stays what the namespace allows (kubernetes.io NetworkPolicy: a policy that lists
 * only Ingress leaves egress unaffected, and allowed connections are the union of all policies that
 * select a pod).
 */
final class RunNetworkPolicy {

  static final String JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name";

  private RunNetworkPolicy() {}

  /** {@code networking.k8s.io/v1} NetworkPolicy {@code <run>-ranks} in the run's namespace. */
  static Manifest of(ResolvedJob job) {
    String run = job.naming().runName();
    ObjectNode o =
        Manifest.skeleton(
            "networking.k8s.io/v1", "NetworkPolicy", run + "-ranks", job.target().namespace());
    ObjectNode spec = o.putObject("spec");
    spec.putObject("podSelector").putObject("matchLabels").put(JOBSET_NAME, run);
    spec.putArray("policyTypes").add("Ingress");
    spec.putArray("ingress")
        .addObject()
        .putArray("from")
        .addObject()
        .putObject("podSelector")
        .putObject("matchLabels")
        .put(JOBSET_NAME, run);
    return Manifest.of(o);
  }
}
