package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reading and shaping JobSets ({@code jobset.x-k8s.io/v1alpha2}) as generic objects: the tests need
 * a handful of fields, not a generated model. Status fields from jobset api/jobset/v1alpha2
 * jobset_types.go: {@code status.conditions[]} (Completed, Failed, Suspended, ...), {@code
 * status.restarts}.
 */
final class JobSets {

  static final String API_VERSION = "jobset.x-k8s.io/v1alpha2";
  static final String NAME_LABEL = "jobset.sigs.k8s.io/jobset-name";
  static final String RJOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name";
  static final String JOB_INDEX_LABEL = "jobset.sigs.k8s.io/job-index";
  static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

  private JobSets() {}

  static MixedOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      api(KubernetesClient client) {
    return client.genericKubernetesResources(API_VERSION, "JobSet");
  }

  /** {@code manifests/jobset-minimal.yaml} with one replicated job of the given shape. */
  static GenericKubernetesResource minimal(
      String name, String replicatedJob, int replicas, int completions) {
    GenericKubernetesResource jobSet =
        Manifests.loadResource("manifests/jobset-minimal.yaml").get(0);
    jobSet.getMetadata().setName(name);
    Map<String, Object> rjob = firstReplicatedJob(jobSet);
    rjob.put("name", replicatedJob);
    rjob.put("replicas", replicas);
    Map<String, Object> jobSpec = map(map(rjob, "template"), "spec");
    jobSpec.put("parallelism", completions);
    jobSpec.put("completions", completions);
    return jobSet;
  }

  /** Adds a label to every replicated job's pod template, e.g. kwok's failure trigger. */
  static void labelPods(GenericKubernetesResource jobSet, String key, String value) {
    for (Map<String, Object> rjob : replicatedJobs(jobSet)) {
      Map<String, Object> podMeta =
          map(map(map(map(rjob, "template"), "spec"), "template"), "metadata");
      podMeta.computeIfAbsent("labels", k -> new LinkedHashMap<String, Object>());
      map(podMeta, "labels").put(key, value);
    }
  }

  /**
   * Adds an annotation to every replicated job's pod template, e.g. kwok's {@code
   * trainyard.dev/kwok-run-for}.
   */
  static void annotatePods(GenericKubernetesResource jobSet, String key, String value) {
    for (Map<String, Object> rjob : replicatedJobs(jobSet)) {
      Map<String, Object> podMeta =
          map(map(map(map(rjob, "template"), "spec"), "template"), "metadata");
      podMeta.computeIfAbsent("annotations", k -> new LinkedHashMap<String, Object>());
      map(podMeta, "annotations").put(key, value);
    }
  }

  /** Sets every replicated job's {@code activeDeadlineSeconds} (the compiled {@code timeout}). */
  static void setActiveDeadlineSeconds(GenericKubernetesResource jobSet, long seconds) {
    for (Map<String, Object> rjob : replicatedJobs(jobSet)) {
      map(map(rjob, "template"), "spec").put("activeDeadlineSeconds", seconds);
    }
  }

  /**
   * Pins one replicated job's pods to nodes labelled {@code key=value} (none exist: pods stay
   * Pending).
   */
  static void pinPods(
      GenericKubernetesResource jobSet, String replicatedJob, String key, String value) {
    for (Map<String, Object> rjob : replicatedJobs(jobSet)) {
      if (replicatedJob.equals(rjob.get("name"))) {
        map(map(map(map(rjob, "template"), "spec"), "template"), "spec")
            .put("nodeSelector", new LinkedHashMap<>(Map.of(key, value)));
      }
    }
  }

  /**
   * Adds a toleration of the NoSchedule taint {@code key=value} to every replicated job's pod
   * template.
   */
  static void tolerate(GenericKubernetesResource jobSet, String key, String value) {
    for (Map<String, Object> rjob : replicatedJobs(jobSet)) {
      Map<String, Object> podSpec =
          map(map(map(map(rjob, "template"), "spec"), "template"), "spec");
      @SuppressWarnings("unchecked")
      List<Object> tolerations =
          (List<Object>) podSpec.computeIfAbsent("tolerations", k -> new ArrayList<>());
      tolerations.add(
          new LinkedHashMap<>(
              Map.of("key", key, "operator", "Equal", "value", value, "effect", "NoSchedule")));
    }
  }

  /**
   * Puts each pod of {@code replicatedJob} on a node of its own: required pod anti-affinity on
   * {@code kubernetes.io/hostname} against pods with the same {@code labelKey=labelValue}.
   */
  static void spreadPods(
      GenericKubernetesResource jobSet, String replicatedJob, String labelKey, String labelValue) {
    Map<String, Object> term =
        Map.of(
            "topologyKey",
            "kubernetes.io/hostname",
            "labelSelector",
            Map.of("matchLabels", Map.of(labelKey, labelValue)));
    for (Map<String, Object> rjob : replicatedJobs(jobSet)) {
      if (replicatedJob.equals(rjob.get("name"))) {
        map(map(map(map(rjob, "template"), "spec"), "template"), "spec")
            .put(
                "affinity",
                Map.of(
                    "podAntiAffinity",
                    Map.of("requiredDuringSchedulingIgnoredDuringExecution", List.of(term))));
      }
    }
  }

  static void setMaxRestarts(GenericKubernetesResource jobSet, int maxRestarts) {
    map(spec(jobSet), "failurePolicy").put("maxRestarts", maxRestarts);
  }

  /** Drops the Kueue queue label so a run does not wait for a LocalQueue (lifecycle tests). */
  static void unqueue(GenericKubernetesResource jobSet) {
    if (jobSet.getMetadata().getLabels() != null) {
      jobSet.getMetadata().getLabels().remove("kueue.x-k8s.io/queue-name");
    }
  }

  static boolean hasCondition(GenericKubernetesResource jobSet, String type) {
    return conditions(jobSet).stream()
        .anyMatch(c -> type.equals(c.get("type")) && "True".equals(c.get("status")));
  }

  static String conditionReason(GenericKubernetesResource jobSet, String type) {
    return conditions(jobSet).stream()
        .filter(c -> type.equals(c.get("type")))
        .map(c -> String.valueOf(c.get("reason")))
        .findFirst()
        .orElse("");
  }

  static int restarts(GenericKubernetesResource jobSet) {
    Object restarts = jobSet == null ? null : jobSet.get("status", "restarts");
    return restarts instanceof Number n ? n.intValue() : 0;
  }

  /** {@code status.restartsCountTowardsMax}: the restarts that used up {@code maxRestarts}. */
  static int restartsCountTowardsMax(GenericKubernetesResource jobSet) {
    Object restarts = jobSet == null ? null : jobSet.get("status", "restartsCountTowardsMax");
    return restarts instanceof Number n ? n.intValue() : 0;
  }

  static boolean suspended(GenericKubernetesResource jobSet) {
    return Boolean.TRUE.equals(jobSet.get("spec", "suspend"));
  }

  /** One line for failure messages: conditions and restarts. */
  static String describe(GenericKubernetesResource jobSet) {
    return jobSet == null
        ? "(JobSet gone)"
        : "status: " + jobSet.getAdditionalProperties().get("status");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> conditions(GenericKubernetesResource jobSet) {
    Object conditions = jobSet == null ? null : jobSet.get("status", "conditions");
    return conditions instanceof List<?> list ? (List<Map<String, Object>>) list : List.of();
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> replicatedJobs(GenericKubernetesResource jobSet) {
    return (List<Map<String, Object>>) spec(jobSet).get("replicatedJobs");
  }

  private static Map<String, Object> firstReplicatedJob(GenericKubernetesResource jobSet) {
    return replicatedJobs(jobSet).get(0);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(GenericKubernetesResource jobSet) {
    return (Map<String, Object>) jobSet.getAdditionalProperties().get("spec");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Map<String, Object> parent, String key) {
    return (Map<String, Object>) parent.get(key);
  }
}
