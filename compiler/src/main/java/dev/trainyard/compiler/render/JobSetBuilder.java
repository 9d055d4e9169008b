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
 * Assembles the {@code jobset.x-k8s.io/v1alpha2} JobSet. Every field the JobSet webhook would
 * default is written explicitly, so the object in git equals the stored one (jobset#766): {@code
 * network} ({@code enableDNSHostnames}, {@code publishNotReadyAddresses}, {@code subdomain}),
 * {@code successPolicy}, {@code startupPolicy}, {@code completionMode: Indexed}, pod {@code
 * restartPolicy}. Never emitted: {@code suspend} (Kueue owns it, kueue#8228), {@code
 * ttlSecondsAfterFinished} (GitOps would re-create the finished run, argo-cd#8586), {@code
 * generateName} (jobset PR #1267).
 *
 * <p>Failures: pods never restart in place ({@code restartPolicy: Never}). The Job's {@code
 * podFailurePolicy} (Kubernetes {@code pkg/controller/job/pod_failure_policy.go}: per failed pod,
 * first matching rule; a pod counts only once its phase is Failed) sorts each failed pod:
 *
 * <ol start="0">
 *   <li>condition {@code DisruptionTarget} (eviction, preemption, node loss) → {@code FailJob},
 *       message "Pod NS/NAME has condition DisruptionTarget matching FailJob rule at index 0";
 *   <li>a non-zero exit of the {@code node} container → {@code FailIndex}: that index is done, the
 *       Job goes on. With {@code backoffLimitPerIndex: 0} and no Job-wide limit ({@code
 *       backoffLimit} 2147483647) the Job fails with reason {@code FailedIndexes} only when every
 *       index has ended;
 *   <li>a non-zero exit of the {@code code-sync} init container → {@code FailJob} (a source fetch,
 *       not the user's command).
 * </ol>
 *
 * Why {@code FailIndex} and not {@code FailJob} for the user's exit: in a single-Job run (torch,
 * JAX: all nodes' pods in one Job) the survivors of a disrupted pod lose their peer and exit
 * non-zero, often before the disrupted pod reaches phase Failed. The Job controller fixes the Job's
 * failure message at the first failed pod matching a {@code FailJob} rule, and never revises it
 * (the {@code FailureTarget} condition is kept, {@code job_controller.go} syncJob), so a {@code
 * FailJob} on exit codes made the survivor's exit win and the run fail. Under {@code FailIndex} the
 * survivor's exit ends only its index; the disrupted pod, whenever it fails before the last index
 * ends, fails the Job with the DisruptionTarget message. The price: a user's crash fails the Job
 * only once its peers have exited too (they lose the crashed rank, as they do today, or hit their
 * collective timeout, or the run's {@code timeout}).
 *
 * <p>The JobSet's {@code failurePolicy} rules, first match wins over all failed Jobs (jobset {@code
 * pkg/controllers/failure_policy.go}), then decide:
 *
 * <ol>
 *   <li>{@code RestartOnDisruption}: reason PodFailurePolicy and the DisruptionTarget message →
 *       {@code RestartJobSet}, counted against {@code retries} ({@code maxRestarts}). It comes
 *       first, so an MPI launcher that failed because its node pod was evicted restarts the run
 *       when both Jobs have failed by the time JobSet looks;
 *   <li>{@code FailOnDeadline}: {@code DeadlineExceeded} ({@code timeout}, the Job's {@code
 *       activeDeadlineSeconds}) → {@code FailJobSet}: a limit, never a reason to restart;
 *   <li>{@code FailOnUserExitCode}: {@code FailedIndexes} (every index ended, some by the user's
 *       exit code) → {@code FailJobSet}, with no restart.
 * </ol>
 *
 * A code-sync failure matches no JobSet rule and gets JobSet's default, {@code RestartJobSet}. A
 * pod that fails matching no pod rule (e.g. rejected by the kubelet) is counted against its index's
 * limit of 0: it ends its index like a user's exit. In MPI runs the launcher is a Job of its own,
 * and mpirun fails as soon as an evicted node's sshd goes: launch.sh then waits {@code
 * MpiFiles.DISRUPTION_GRACE_SECONDS} before it exits, so the node's Job fails first on its {@code
 * DisruptionTarget} and the run restarts. When a node pod's sshd does not answer at all (its node
 * lost without an eviction: the pod is Failed only by PodGC once the Node is deleted) it waits
 * {@code MpiFiles.DISRUPTED_NODE_WAIT_SECONDS} instead. A node that is never deleted still fails
 * the run.
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
