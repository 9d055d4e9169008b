package dev.trainyard.controller;

import dev.trainyard.compiler.render.Provenance;
import dev.trainyard.controller.state.ConditionSnapshot;
import dev.trainyard.controller.state.ContainerSnapshot;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.JobSnapshot;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.UserSettings;
import dev.trainyard.controller.state.WorkloadSnapshot;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns Kubernetes objects into the state package's snapshots, so no fabric8 type reaches the
 * mapping. JobSet and Workload are generic objects (jobset.x-k8s.io/v1alpha2,
 * kueue.x-k8s.io/v1beta2); pods are and Jobs typed. Missing fields read as defaults: replicas 1,
 * parallelism 1, restarts 0, maxRestarts 0. A pod, or a replicated job's pod template, annotated
 * {@link Provenance#RUNS_RANKS} {@code "false"} (the compiled MPI launcher) is no node: it counts
 * in the pods, not in the nodes.
 */
public final class Snapshots {

  /** Label JobSet puts on its pods: the restart attempt they belong to (jobset pkg/constants). */
  public static final String RESTART_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt";

  /** Label JobSet puts on its pods: the JobSet's name. */
  public static final String JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name";

  private Snapshots() {}

  public static JobSetSnapshot jobSet(GenericKubernetesResource js) {
    Map<String, Object> spec = map(js.getAdditionalProperties().get("spec"));
    Map<String, Object> status = map(js.getAdditionalProperties().get("status"));
    Map<String, String> labels =
        js.getMetadata().getLabels() == null ? Map.of() : js.getMetadata().getLabels();
    return new JobSetSnapshot(
        js.getMetadata().getNamespace(),
        js.getMetadata().getName(),
        time(js.getMetadata().getCreationTimestamp()),
        Boolean.TRUE.equals(spec.get("suspend")),
        expectedPods(spec, false),
        expectedPods(spec, true),
        integer(status.get("restarts"), 0),
        integer(map(spec.get("failurePolicy")).get("maxRestarts"), 0),
        labels.getOrDefault(Provenance.QUEUE_NAME, ""),
        conditions(status.get("conditions")),
        settings(js.getMetadata().getAnnotations(), spec));
  }

  /**
   * What train.yaml set: the image it names (annotation {@link Provenance#IMAGE} when {@link
   * Provenance#IMAGE_SOURCE} says train.yaml) and the timeout (the longest {@code
   * activeDeadlineSeconds} of the replicated jobs; the compiler writes the run's timeout on each).
   */
  static UserSettings settings(Map<String, String> annotations, Map<String, Object> spec) {
    Map<String, String> a = annotations == null ? Map.of() : annotations;
    String image =
        Provenance.IMAGE_FROM_TRAIN_YAML.equals(a.get(Provenance.IMAGE_SOURCE))
            ? a.getOrDefault(Provenance.IMAGE, "")
            : "";
    long deadline = 0;
    int procs = 0;
    for (Object o : list(spec.get("replicatedJobs"))) {
      Map<String, Object> jobSpec = map(map(map(o).get("template")).get("spec"));
      deadline = Math.max(deadline, integer(jobSpec.get("activeDeadlineSeconds"), 0));
      if (templateRunsRanks(jobSpec)) {
        procs = Math.max(procs, processesPerNode(jobSpec));
      }
    }
    return new UserSettings(image, deadline > 0 ? Duration.ofSeconds(deadline) : null, procs);
  }

  /**
   * The {@code PET_NPROC_PER_NODE} value of a node's containers (torchrun's processes per node, as
   * the compiler writes it), 0 when none is a number.
   */
  static int processesPerNode(Map<String, Object> jobSpec) {
    int procs = 0;
    Map<String, Object> podSpec = map(map(jobSpec.get("template")).get("spec"));
    for (Object c : list(podSpec.get("containers"))) {
      for (Object e : list(map(c).get("env"))) {
        Map<String, Object> env = map(e);
        if ("PET_NPROC_PER_NODE".equals(env.get("name"))) {
          procs = Math.max(procs, integer(env.get("value"), 0));
        }
      }
    }
    return procs;
  }

  /**
   * Pods of one attempt: sum over replicated jobs of replicas × min(parallelism, completions); with
   * {@code nodesOnly}, without the replicated jobs whose pod template runs no ranks.
   */
  static int expectedPods(Map<String, Object> spec, boolean nodesOnly) {
    int total = 0;
    for (Object o : list(spec.get("replicatedJobs"))) {
      Map<String, Object> rjob = map(o);
      Map<String, Object> jobSpec = map(map(rjob.get("template")).get("spec"));
      if (nodesOnly && !templateRunsRanks(jobSpec)) {
        continue;
      }
      int parallelism = integer(jobSpec.get("parallelism"), 1);
      int completions = integer(jobSpec.get("completions"), parallelism);
      total += integer(rjob.get("replicas"), 1) * Math.min(parallelism, completions);
    }
    return total;
  }

  /**
   * A Workload: its ClusterQueue, conditions and {@code spec.active} (absent reads as Kueue's
   * default, true).
   */
  public static WorkloadSnapshot workload(GenericKubernetesResource wl) {
    Map<String, Object> status = map(wl.getAdditionalProperties().get("status"));
    Object cq = map(status.get("admission")).get("clusterQueue");
    boolean active =
        !Boolean.FALSE.equals(map(wl.getAdditionalProperties().get("spec")).get("active"));
    return new WorkloadSnapshot(
        cq == null ? "" : cq.toString(), conditions(status.get("conditions")), active);
  }

  public static PodSnapshot pod(Pod pod) {
    var status = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
    Map<String, String> labels =
        pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    List<ConditionSnapshot> conditions =
        status.getConditions() == null
            ? List.of()
            : status.getConditions().stream().map(Snapshots::condition).toList();
    List<Container> specInit =
        pod.getSpec() == null ? List.of() : pod.getSpec().getInitContainers();
    List<Container> specMain = pod.getSpec() == null ? List.of() : pod.getSpec().getContainers();
    return new PodSnapshot(
        pod.getMetadata().getName(),
        pod.getSpec() == null ? "" : pod.getSpec().getNodeName(),
        status.getPhase(),
        status.getReason(),
        integer(labels.get(RESTART_ATTEMPT), 0),
        ConditionSnapshot.holds(conditions, "Ready"),
        pod.getMetadata().getDeletionTimestamp() != null,
        time(status.getStartTime()),
        containers(status.getInitContainerStatuses(), specInit),
        containers(status.getContainerStatuses(), specMain),
        conditions,
        runsRanks(
            pod.getMetadata().getAnnotations() == null
                ? Map.of()
                : pod.getMetadata().getAnnotations()));
  }

  /**
   * Whether the pods of a Job spec's {@code template} are nodes: its metadata has no runs-ranks
   * "false".
   */
  static boolean templateRunsRanks(Map<String, Object> jobSpec) {
    return runsRanks(map(map(map(jobSpec.get("template")).get("metadata")).get("annotations")));
  }

  /**
   * Whether {@code annotations} (of a pod or pod template) leave the pod a node: no runs-ranks
   * "false".
   */
  static boolean runsRanks(Map<String, ?> annotations) {
    return !"false".equals(annotations.get(Provenance.RUNS_RANKS));
  }

  /**
   * A child Job: name, restart attempt label, {@code status.conditions} and {@code
   * status.failedIndexes}.
   */
  public static JobSnapshot job(Job job) {
    Map<String, String> labels =
        job.getMetadata().getLabels() == null ? Map.of() : job.getMetadata().getLabels();
    List<ConditionSnapshot> conditions =
        job.getStatus() == null || job.getStatus().getConditions() == null
            ? List.of()
            : job.getStatus().getConditions().stream()
                .map(
                    c ->
                        new ConditionSnapshot(
                            c.getType(),
                            "True".equals(c.getStatus()),
                            c.getReason(),
                            c.getMessage(),
                            time(c.getLastTransitionTime())))
                .toList();
    String failedIndexes = job.getStatus() == null ? "" : job.getStatus().getFailedIndexes();
    return new JobSnapshot(
        job.getMetadata().getName(),
        integer(labels.get(RESTART_ATTEMPT), 0),
        conditions,
        failedIndexes);
  }

  private static List<ContainerSnapshot> containers(
      List<ContainerStatus> statuses, List<Container> spec) {
    if (statuses == null) {
      return List.of();
    }
    return statuses.stream().map(s -> container(s, spec)).toList();
  }

  private static ContainerSnapshot container(ContainerStatus s, List<Container> spec) {
    String image =
        spec == null
            ? ""
            : spec.stream()
                .filter(c -> Objects.equals(c.getName(), s.getName()))
                .map(Container::getImage)
                .findFirst()
                .orElse(s.getImage());
    ContainerState st = s.getState();
    if (st != null && st.getTerminated() != null) {
      return new ContainerSnapshot(
          s.getName(),
          image,
          ContainerSnapshot.Status.TERMINATED,
          st.getTerminated().getReason(),
          st.getTerminated().getMessage(),
          st.getTerminated().getExitCode(),
          time(st.getTerminated().getFinishedAt()));
    }
    if (st != null && st.getWaiting() != null) {
      return new ContainerSnapshot(
          s.getName(),
          image,
          ContainerSnapshot.Status.WAITING,
          st.getWaiting().getReason(),
          st.getWaiting().getMessage(),
          null);
    }
    ContainerSnapshot.Status kind =
        st != null && st.getRunning() != null
            ? ContainerSnapshot.Status.RUNNING
            : ContainerSnapshot.Status.UNKNOWN;
    return new ContainerSnapshot(s.getName(), image, kind, "", "", null);
  }

  private static ConditionSnapshot condition(PodCondition c) {
    return new ConditionSnapshot(
        c.getType(),
        "True".equals(c.getStatus()),
        c.getReason(),
        c.getMessage(),
        time(c.getLastTransitionTime()));
  }

  static List<ConditionSnapshot> conditions(Object value) {
    return list(value).stream()
        .map(Snapshots::map)
        .map(
            c ->
                new ConditionSnapshot(
                    String.valueOf(c.get("type")),
                    "True".equals(c.get("status")),
                    str(c.get("reason")),
                    str(c.get("message")),
                    time(str(c.get("lastTransitionTime")))))
        .toList();
  }

  static Instant time(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static String str(Object o) {
    return o == null ? null : o.toString();
  }

  static int integer(Object o, int fallback) {
    if (o instanceof Number n) {
      return n.intValue();
    }
    try {
      return o == null ? fallback : Integer.parseInt(o.toString());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  static List<?> list(Object o) {
    return o instanceof List<?> l ? l : List.of();
  }
}
