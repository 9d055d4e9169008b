package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.render.FrameworkPlugin.FrameworkOutput;
import dev.trainyard.compiler.render.FrameworkPlugin.ReplicatedJobPart;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;
import java.util.Map;

/**
 * Assembles the {@code jobset.x-k8s.io/v1alpha2} JobSet, writing every field the JobSet webhook
 * would default (jobset#766) and never {@code suspend}, {@code ttlSecondsAfterFinished} or {@code
 * generateName}. Its Jobs' {@code podFailurePolicy} and the JobSet's {@code failurePolicy} (rules
 * {@link #RESTART_ON_DISRUPTION}, {@link #FAIL_ON_DEADLINE}, {@link #FAIL_ON_USER_EXIT_CODE})
 * decide when a run restarts and when it fails; a user's exit fails the run at once, and the pods'
 * own check ({@link ExitGrace}) keeps a survivor of a disrupted peer from failing it first. The
 * design and its upstream sources are in {@code docs/failure-handling.md}.
 */
final class JobSetBuilder {
  /** Rule names, in order; the controller and tests read them. */
  static final String RESTART_ON_DISRUPTION = "RestartOnDisruption";

  static final String FAIL_ON_DEADLINE = "FailOnDeadline";
  static final String FAIL_ON_USER_EXIT_CODE = "FailOnUserExitCode";

  /**
   * The rule that restarts a checkpointed run on one of its {@code recoverOnExitCodes}, before
   * {@link #FAIL_ON_USER_EXIT_CODE}.
   */
  static final String RESTART_ON_RECOVER_EXIT_CODE = "RestartOnRecoverExitCode";

  /**
   * RE2 over the Job failure message of pod failure policy rule 1 when the run has recover exit
   * codes: that rule matches only them, so its index tells them from any other exit (Kubernetes
   * {@code pod_failure_policy.go}, the message of {@link #USER_EXIT_MESSAGE}).
   */
  static final String RECOVER_EXIT_MESSAGE =
      "^Container "
          + PodSpecBuilder.CONTAINER
          + " for pod [^ ]+ failed with exit code [0-9]+ matching FailJob rule at index 1$";

  /**
   * RE2 over the Job failure message of pod failure policy rule 0 (Kubernetes {@code
   * pod_failure_policy.go}: "Pod %s/%s has condition %v matching %v rule at index %d"); pod names
   * hold no spaces, so no exit-code message can match.
   */
  static final String DISRUPTION_MESSAGE =
      "^Pod [^ ]+ has condition DisruptionTarget matching FailJob rule";

  /**
   * RE2 over the Job failure message of pod failure policy rule 1 (Kubernetes {@code
   * pod_failure_policy.go}: "Container %s for pod %s/%s failed with exit code %v matching %v rule
   * at index %d"): the user's command.
   */
  static final String USER_EXIT_MESSAGE =
      "^Container " + PodSpecBuilder.CONTAINER + " for pod [^ ]+ failed with exit code";

  /**
   * The exit code of a container that SIGTERM ended (128 + 15, as the container runtime reports a
   * process killed by the signal; the MPI node pods' script exits it when stopped, {@link
   * CheckpointParts}, and a multi-node pod's when stopped during setup, {@link RankEnv}): the pod
   * was stopped, which is never the user's command failing. The non-zero-exit rules of the {@code
   * node} and {@code code-sync} containers leave it out ({@code NotIn [0, 143]}), so it matches no
   * {@code FailJob} rule. A pod whose program ends on SIGTERM with another code (torchrun: 1) or is
   * killed after the grace period (137) is not covered.
   *
   * <p>Why: Kueue preempts a run by suspending its JobSet; JobSet suspends the same Jobs and
   * resumes them later, it does not recreate them (JobSet v0.12 {@code jobset_controller.go} {@code
   * suspendJobs}, {@code resumeJobsIfNecessary}). For a suspended Job the Job controller removes
   * its tracking finalizer from each active pod, then deletes it, adding no {@code
   * DisruptionTarget} condition (Kubernetes v1.36.3 {@code pkg/controller/job/job_controller.go}:
   * {@code manageJob}, {@code deleteJobPods}; KEP-2232), so such a pod is never counted ({@code
   * getValidPodsWithFilter} skips pods without the finalizer). But {@code getFailJobMessage}
   * matches every Failed pod the Job still owns against the pod failure policy, finalizer or not
   * (KEP-3329), so when that pod's exit (143) arrives late — while the Job is suspended, or after
   * it resumed, which waits for such pods to be terminal before replacing them ({@code
   * onlyReplaceFailedPods}) — a {@code FailJob} rule on any non-zero exit failed the Job as the
   * user's ({@code KueueLateExitIT} holds that exit on the real controllers). Matching no rule, the
   * untracked pod changes nothing; a tracked pod SIGTERMed without a {@code DisruptionTarget} (e.g.
   * {@code kubectl delete pod}) counts against {@code backoffLimit: 0}, reason {@code
   * BackoffLimitExceeded}, which JobSet restarts by default (counted against {@code retries}), as a
   * disruption.
   */
  static final int SIGTERM_EXIT_CODE = 143;

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
    failurePolicy(spec, job.retries(), recoverExitCodes(job));
    blockingRestart(spec, job);
    ArrayNode rjobs = spec.putArray("replicatedJobs");
    for (ReplicatedJobPart part : out.jobs()) {
      rjobs.add(replicatedJob(job, part, skeletonFor(skeleton, part.shape().name())));
    }
    return Manifest.of(js);
  }

  private static void failurePolicy(ObjectNode spec, int retries, List<Integer> recoverCodes) {
    ObjectNode fp =
        spec.putObject("failurePolicy")
            .put("maxRestarts", retries)
            .put("restartStrategy", "Recreate");
    ArrayNode rules = fp.putArray("rules");
    ObjectNode disruptionRule = rules.addObject();
    if (!recoverCodes.isEmpty()) {
      recoverRule(rules.addObject());
    }
    fillDisruptionAndFailRules(fp, disruptionRule);
  }

  /**
   * A checkpointed run's exit codes that mean "recover" (train.yaml's and the namespace's), sorted;
   * empty without {@code checkpoint}.
   */
  private static List<Integer> recoverExitCodes(ResolvedJob job) {
    return job.checkpoint().map(c -> c.recoverOnExitCodes()).orElse(List.of());
  }

  /**
   * With {@code checkpoint}, {@code BlockingRecreate}: JobSet creates the next attempt's Jobs only
   * once every pod of the last one is gone (JobSet v0.12 {@code
   * api/jobset/v1alpha2/jobset_types.go}, {@code pkg/controllers/jobset_controller.go}), so a pod
   * still saving on SIGTERM finishes before the next attempt looks for the newest checkpoint.
   */
  private static void blockingRestart(ObjectNode spec, ResolvedJob job) {
    if (job.checkpoint().isPresent()) {
      ((ObjectNode) spec.get("failurePolicy")).put("restartStrategy", "BlockingRecreate");
    }
  }

  /** Restart (counted against {@code retries}) when rule 1, the recover codes, failed the Job. */
  private static void recoverRule(ObjectNode rule) {
    rule.put("name", RESTART_ON_RECOVER_EXIT_CODE).put("action", "RestartJobSet");
    rule.putArray("onJobFailureReasons").add("PodFailurePolicy");
    rule.putArray("onJobFailureMessagePatterns").add(RECOVER_EXIT_MESSAGE);
  }

  private static void fillDisruptionAndFailRules(ObjectNode fp, ObjectNode disruption) {
    ArrayNode rules = (ArrayNode) fp.get("rules");
    disruption.put("name", RESTART_ON_DISRUPTION).put("action", "RestartJobSet");
    disruption.putArray("onJobFailureReasons").add("PodFailurePolicy");
    disruption.putArray("onJobFailureMessagePatterns").add(DISRUPTION_MESSAGE);
    ObjectNode deadline =
        rules.addObject().put("name", FAIL_ON_DEADLINE).put("action", "FailJobSet");
    deadline.putArray("onJobFailureReasons").add("DeadlineExceeded");
    ObjectNode user =
        rules.addObject().put("name", FAIL_ON_USER_EXIT_CODE).put("action", "FailJobSet");
    user.putArray("onJobFailureReasons").add("PodFailurePolicy");
    user.putArray("onJobFailureMessagePatterns").add(USER_EXIT_MESSAGE);
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
        .put("backoffLimit", 0)
        .put("activeDeadlineSeconds", job.timeoutSeconds());
    podFailurePolicy(jobSpec, recoverExitCodes(job));
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

  /**
   * Rule 0 must stay the DisruptionTarget rule: {@link #DISRUPTION_MESSAGE} relies on its text;
   * rule 1 the node's exit. No rule matches {@link #SIGTERM_EXIT_CODE} without a {@code
   * DisruptionTarget}: a pod a suspension stopped must not fail the Job.
   */
  private static void podFailurePolicy(ObjectNode jobSpec, List<Integer> recoverCodes) {
    ArrayNode rules = jobSpec.putObject("podFailurePolicy").putArray("rules");
    ObjectNode disrupted = rules.addObject().put("action", "FailJob");
    disrupted
        .putArray("onPodConditions")
        .addObject()
        .put("type", "DisruptionTarget")
        .put("status", "True");
    recoverExits(rules, recoverCodes);
    nonZeroExit(rules.addObject().put("action", "FailJob"), PodSpecBuilder.CONTAINER);
    nonZeroExit(rules.addObject().put("action", "FailJob"), PodSpecBuilder.CODE_SYNC);
  }

  /**
   * Rule 1 when the run has recover exit codes: those exits of the {@code node} container fail the
   * Job with a message {@link #RECOVER_EXIT_MESSAGE} matches (the rule's index is in it).
   */
  private static void recoverExits(ArrayNode rules, List<Integer> codes) {
    if (codes.isEmpty()) {
      return;
    }
    ObjectNode on =
        rules
            .addObject()
            .put("action", "FailJob")
            .putObject("onExitCodes")
            .put("containerName", PodSpecBuilder.CONTAINER)
            .put("operator", "In");
    codes.forEach(on.putArray("values")::add);
  }

  /**
   * {@code container}'s exit other than 0 and {@link #SIGTERM_EXIT_CODE} (values sorted, as the API
   * server requires: Kubernetes {@code pkg/apis/batch/validation} {@code
   * validatePodFailurePolicyRuleOnExitCodes}).
   */
  private static void nonZeroExit(ObjectNode rule, String container) {
    ObjectNode codes =
        rule.putObject("onExitCodes").put("containerName", container).put("operator", "NotIn");
    codes.putArray("values").add(0).add(SIGTERM_EXIT_CODE);
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
