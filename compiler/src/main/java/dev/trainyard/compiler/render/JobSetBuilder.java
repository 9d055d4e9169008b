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
 * Assembles the {@code jobset.x-k8s.io/v1alpha2} JobSet. Every field the JobSet webhook would default is
 * written explicitly, so the object in git equals the stored one (jobset#766): {@code network}
 * ({@code enableDNSHostnames}, {@code publishNotReadyAddresses}, {@code subdomain}), {@code successPolicy},
 * {@code startupPolicy}, {@code completionMode: Indexed}, pod {@code restartPolicy}. Never emitted:
 * {@code suspend} (Kueue owns it, kueue#8228), {@code ttlSecondsAfterFinished} (GitOps would re-create the
 * finished run, argo-cd#8586), {@code generateName} (jobset PR #1267).
 *
 * <p>Failures: pods never restart in place ({@code restartPolicy: Never}, {@code backoffLimit: 0}); a
 * disruption (preemption, node drain) is ignored by the Job's {@code podFailurePolicy}, a non-zero exit of
 * the {@code node} container fails the Job with reason {@code PodFailurePolicy}, which the JobSet's
 * {@code failurePolicy} rule turns into {@code FailJobSet} (a user error is not retried); any other Job
 * failure restarts the JobSet up to {@code retries} times.
 */
final class JobSetBuilder {
  private JobSetBuilder() {}

  static Manifest build(ResolvedJob job, FrameworkOutput out, ObjectNode skeleton, Map<String, String> labels, Map<String, String> annotations) {
    String name = job.naming().runName();
    ObjectNode js = Manifest.skeleton("jobset.x-k8s.io/v1alpha2", "JobSet", name, job.target().namespace());
    ObjectNode meta = (ObjectNode) js.get("metadata");
    labels.forEach(meta.withObject("labels")::put);
    annotations.forEach(meta.withObject("annotations")::put);
    ObjectNode spec = js.putObject("spec");
    spec.putObject("network").put("enableDNSHostnames", true).put("publishNotReadyAddresses", true).put("subdomain", name);
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
    ObjectNode fp = spec.putObject("failurePolicy").put("maxRestarts", retries).put("restartStrategy", "Recreate");
    ObjectNode rule = fp.putArray("rules").addObject();
    rule.put("name", "FailOnUserExitCode").put("action", "FailJobSet");
    rule.putArray("onJobFailureReasons").add("PodFailurePolicy");
  }

  private static ObjectNode replicatedJob(ResolvedJob job, ReplicatedJobPart part, ObjectNode base) {
    ObjectNode rj = CanonicalJson.mapper().createObjectNode();
    rj.put("name", part.shape().name()).put("groupName", "default").put("replicas", 1);
    part.dependsOnReady().ifPresent(d -> rj.putArray("dependsOn").addObject().put("name", d).put("status", "Ready"));
    ObjectNode jobSpec = rj.putObject("template").putObject("spec");
    int pods = part.shape().pods();
    jobSpec.put("parallelism", pods).put("completions", pods).put("completionMode", "Indexed")
        .put("backoffLimit", 0).put("activeDeadlineSeconds", job.timeoutSeconds());
    podFailurePolicy(jobSpec);
    ObjectNode pod = jobSpec.putObject("template");
    pod.putObject("metadata").putObject("labels").put("trainyard.dev/run", job.naming().runName());
    pod.set("spec", part.podSpec());
    TreeMerge.merge(base, rj);
    return base;
  }

  private static void podFailurePolicy(ObjectNode jobSpec) {
    ArrayNode rules = jobSpec.putObject("podFailurePolicy").putArray("rules");
    ObjectNode ignore = rules.addObject().put("action", "Ignore");
    ignore.putArray("onPodConditions").addObject().put("type", "DisruptionTarget").put("status", "True");
    ObjectNode fail = rules.addObject().put("action", "FailJob");
    ObjectNode codes = fail.putObject("onExitCodes").put("containerName", PodSpecBuilder.CONTAINER).put("operator", "NotIn");
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
