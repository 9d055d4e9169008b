package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.render.FrameworkPlugin.FrameworkOutput;
import dev.trainyard.compiler.render.FrameworkPlugin.ReplicatedJobPart;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.Map;

/**
 * Assembles the {@code jobset.x-k8s.io/v1alpha2} JobSet, writing every field the JobSet webhook
 * would default (jobset#766) and never {@code suspend}, {@code ttlSecondsAfterFinished} or {@code
 * generateName}. Its Jobs' {@code podFailurePolicy} and the JobSet's {@code failurePolicy} (rules
 * {@link #RESTART_ON_DISRUPTION}, {@link #FAIL_ON_DEADLINE}, {@link #FAIL_ON_USER_EXIT_CODE})
 * decide when a run restarts and when it fails; the design and its upstream sources are in {@code
 * docs/failure-handling.md}.
 */
final class JobSetBuilder {
  /** Rule names, in order; the controller and tests read them. */
  static final String RESTART_ON_DISRUPTION = "RestartOnDisruption";

  static final String FAIL_ON_DEADLINE = "FailOnDeadline";
  static final String FAIL_ON_USER_EXIT_CODE = "FailOnUserExitCode";

  /**
   * RE2 over the Job failure message of pod failure policy rule 0 (Kubernetes {@code
   * pod_failure_policy.go}: "Pod %s/%s has condition %v matching %v rule at index %d"); pod names
   * hold no spaces, so no exit-code message can match.
   */
  static final String DISRUPTION_MESSAGE =
      "^Pod [^ ]+ has condition DisruptionTarget matching FailJob rule";

  /**
   * The Job's {@code backoffLimit}: Kubernetes' default (math.MaxInt32) once {@code
   * backoffLimitPerIndex} is set (batch/v1 defaults.go). Any smaller limit counts FailIndex pods
   * too and fails the Job at the first survivor's exit, with reason BackoffLimitExceeded.
   */
  static final int NO_JOB_WIDE_LIMIT = Integer.MAX_VALUE;

  private JobSetBuilder() {}

  static Manifest build(
      ResolvedJob job,
      FrameworkOutput out,
      ObjectNode skeleton,
      Map<String, String> labels,
      Map<String, String> annotations) {
    String name = job.naming().runName();
    ObjectNode js =
        Manifest.skeleton("jobset.x-k8s.io/v1alpha2", "JobSet", name, job.target().namespace());
    ObjectNode meta = (ObjectNode) js.get("metadata");
    labels.forEach(meta.withObject("labels")::put);
    annotations.forEach(meta.withObject("annotations")::put);
    ObjectNode spec = js.putObject("spec");
    spec.putObject("network")
        .put("enableDNSHostnames", true)
        .put("publishNotReadyAddresses", true)
        .put("subdomain", name);
    ObjectNode success = spec.putObject("successPolicy").put("operator", "All");
    if (!out.successTargets().isEmpty()) {
      ArrayNode targets = success.putArray("targetReplicatedJobs");
      out.successTargets().forEach(targets::add);
    }
    spec.putObject("startupPolicy").put("startupPolicyOrder", "AnyOrder");
    failurePolicy(spec, job.retries());
    ArrayNode rjobs = spec.putArray("replicatedJobs");
    for (ReplicatedJobPart part : out.jobs()) {
      rjobs.add(replicatedJob(job, part, skeletonFor(skeleton, part.shape().name())));
    }
    return Manifest.of(js);
  }

  private static void failurePolicy(ObjectNode spec, int retries) {
    ObjectNode fp =
        spec.putObject("failurePolicy")
            .put("maxRestarts", retries)
            .put("restartStrategy", "Recreate");
    ArrayNode rules = fp.putArray("rules");
    ObjectNode disruption =
        rules.addObject().put("name", RESTART_ON_DISRUPTION).put("action", "RestartJobSet");
    disruption.putArray("onJobFailureReasons").add("PodFailurePolicy");
    disruption.putArray("onJobFailureMessagePatterns").add(DISRUPTION_MESSAGE);
    ObjectNode deadline =
        rules.addObject().put("name", FAIL_ON_DEADLINE).put("action", "FailJobSet");
    deadline.putArray("onJobFailureReasons").add("DeadlineExceeded");
    ObjectNode user =
        rules.addObject().put("name", FAIL_ON_USER_EXIT_CODE).put("action", "FailJobSet");
    user.putArray("onJobFailureReasons").add("FailedIndexes");
  }

  private static ObjectNode replicatedJob(
      ResolvedJob job, ReplicatedJobPart part, ObjectNode base) {
    ObjectNode rj = CanonicalJson.mapper().createObjectNode();
    rj.put("name", part.shape().name()).put("groupName", "default").put("replicas", 1);
    part.dependsOnReady()
        .ifPresent(d -> rj.putArray("dependsOn").addObject().put("name", d).put("status", "Ready"));
    ObjectNode jobSpec = rj.putObject("template").putObject("spec");
    int pods = part.shape().pods();
    jobSpec
        .put("parallelism", pods)
        .put("completions", pods)
        .put("completionMode", "Indexed")
        .put("backoffLimit", NO_JOB_WIDE_LIMIT)
        .put("backoffLimitPerIndex", 0)
        .put("activeDeadlineSeconds", job.timeoutSeconds());
    podFailurePolicy(jobSpec);
    ObjectNode pod = jobSpec.putObject("template");
    ObjectNode podMeta = pod.putObject("metadata");
    podMeta.putObject("labels").put("trainyard.dev/run", job.naming().runName());
    if (job.runtime().framework().usesMpi() && !job.platform().serviceMesh().injectMpiPods()) {
      // A mesh sidecar breaks mpirun's pod-to-pod ssh and orted traffic and keeps Jobs from
      // finishing
      // (mpi-operator#480, trainer#1681); platform.yaml serviceMesh.injectMpiPods opts in.
      podMeta
          .withObjectProperty("annotations")
          .put("linkerd.io/inject", "disabled")
          .put("sidecar.istio.io/inject", "false");
    }
    if (!part.shape().runsRanks()) {
      podMeta.withObjectProperty("annotations").put(Provenance.RUNS_RANKS, "false");
    }
    pod.set("spec", part.podSpec());
    TreeMerge.merge(base, rj);
    return base;
  }

  /** Rule 0 must stay the DisruptionTarget rule: {@link #DISRUPTION_MESSAGE} relies on its text. */
  private static void podFailurePolicy(ObjectNode jobSpec) {
    ArrayNode rules = jobSpec.putObject("podFailurePolicy").putArray("rules");
    ObjectNode disrupted = rules.addObject().put("action", "FailJob");
    disrupted
        .putArray("onPodConditions")
        .addObject()
        .put("type", "DisruptionTarget")
        .put("status", "True");
    nonZeroExit(rules.addObject().put("action", "FailIndex"), PodSpecBuilder.CONTAINER);
    nonZeroExit(rules.addObject().put("action", "FailJob"), PodSpecBuilder.CODE_SYNC);
  }

  private static void nonZeroExit(ObjectNode rule, String container) {
    ObjectNode codes =
        rule.putObject("onExitCodes").put("containerName", container).put("operator", "NotIn");
    codes.putArray("values").add(0);
  }

  /** The skeleton's entry for {@code rjob} in {@code spec.replicatedJobs}, or an empty object. */
  private static ObjectNode skeletonFor(ObjectNode skeleton, String rjob) {
    for (var entry : skeleton.path("spec").path("replicatedJobs")) {
      if (entry.path("name").asText().equals(rjob)) {
        return ((ObjectNode) entry).deepCopy();
      }
    }
    return CanonicalJson.mapper().createObjectNode();
  }
}
