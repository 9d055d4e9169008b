package dev.trainyard.controller.state;

import dev.trainyard.compiler.render.GpuCheck;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Tells a user error from a platform error using reasons only, never message text.
 *
 * <p>Platform evidence wins over user evidence: an evicted or preempted pod makes its siblings exit
 * with 137/143 as a consequence, never the other way round. Platform signals: pod condition {@code
 * DisruptionTarget=True} (reasons PreemptionByScheduler, DeletionByTaintManager, DeletionByPodGC,
 * EvictionByEvictionAPI, TerminationByKubelet; k8s docs "Pod disruption conditions"), pod reason
 * Evicted, NodeLost or DeadlineExceeded, a container terminated with reason OOMKilled or with the
 * exit code of the compiled GPU start-up check ({@link GpuCheck#EXIT_CODE}), a container waiting on
 * an image pull, and a Kueue Workload {@code Evicted=True}. User signals: a non-zero exit of an
 * init container (code clone, setup) or of a main container (the command, pip install).
 */
final class FailureClassifier {

  static final Set<String> IMAGE_PULL =
      Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull");
  private static final Map<String, String> DISRUPTIONS =
      Map.of(
          "PreemptionByScheduler", "preempted by the scheduler",
          "DeletionByTaintManager", "node lost (not ready or unreachable)",
          "DeletionByPodGC", "node lost (node deleted)",
          "EvictionByEvictionAPI", "evicted (drain or eviction API)",
          "TerminationByKubelet", "evicted by the kubelet (node pressure or shutdown)");
  private static final Map<String, String> POD_REASONS =
      Map.of(
          "Evicted", "evicted by the kubelet",
          "NodeLost", "node lost",
          "DeadlineExceeded", "deadline exceeded (activeDeadlineSeconds)",
          "Shutdown", "node shut down");

  private FailureClassifier() {}

  /**
   * The failure explaining {@code pods} (all attempts) and {@code workload}; empty without
   * evidence.
   */
  static Optional<Failure> classify(List<PodSnapshot> pods, Optional<WorkloadSnapshot> workload) {
    return classify(pods, workload, Optional.empty());
  }

  /**
   * As {@link #classify(List, Optional)}, with {@code first} (a pod name) looked at before the
   * other pods of its attempt: the pod whose own exit failed the Job, whose peers then ended
   * non-zero because they were stopped.
   */
  static Optional<Failure> classify(
      List<PodSnapshot> pods, Optional<WorkloadSnapshot> workload, Optional<String> first) {
    List<PodSnapshot> ordered =
        pods.stream()
            .sorted(
                Comparator.comparingInt(PodSnapshot::attempt)
                    .reversed()
                    .thenComparing(p -> !first.map(p.name()::equals).orElse(false))
                    .thenComparing(PodSnapshot::name))
            .toList();
    for (PodSnapshot pod : ordered) {
      Optional<Failure> platform = platform(pod);
      if (platform.isPresent()) {
        return platform;
      }
    }
    Optional<Failure> evicted = workload.flatMap(FailureClassifier::workloadEviction);
    if (evicted.isPresent()) {
      return evicted;
    }
    return ordered.stream().map(FailureClassifier::user).flatMap(Optional::stream).findFirst();
  }

  /** Platform evidence on one pod: disruption, pod reason, OOMKilled, image pull. */
  static Optional<Failure> platform(PodSnapshot pod) {
    Optional<ConditionSnapshot> disruption =
        ConditionSnapshot.find(pod.conditions(), "DisruptionTarget")
            .filter(ConditionSnapshot::isTrue);
    if (disruption.isPresent()) {
      String reason = disruption.get().reason();
      return Optional.of(
          platform(DISRUPTIONS.getOrDefault(reason, "disrupted (" + reason + ")"), pod, null));
    }
    if (POD_REASONS.containsKey(pod.reason())) {
      return Optional.of(platform(POD_REASONS.get(pod.reason()), pod, null));
    }
    for (ContainerSnapshot c : all(pod)) {
      if (c.status() == ContainerSnapshot.Status.TERMINATED && "OOMKilled".equals(c.reason())) {
        return Optional.of(platform("OOMKilled in container " + c.name(), pod, c.exitCode()));
      }
      if (c.status() == ContainerSnapshot.Status.TERMINATED
          && Integer.valueOf(GpuCheck.EXIT_CODE).equals(c.exitCode())) {
        return Optional.of(platform(gpuCheck(c), pod, c.exitCode()));
      }
      if (c.status() == ContainerSnapshot.Status.WAITING && IMAGE_PULL.contains(c.reason())) {
        return Optional.of(platform(imagePull(c), pod, null));
      }
    }
    return Optional.empty();
  }

  /**
   * The compiled GPU start-up check failed (the pod does not see the GPUs it requested, or the
   * driver is too old): its termination message says which, else a generic sentence.
   */
  static String gpuCheck(ContainerSnapshot c) {
    String said =
        c.message() == null
            ? ""
            : c.message().strip().replaceFirst("^trainyard: platform error: ", "");
    return "GPU check failed in container "
        + c.name()
        + ": "
        + (said.isEmpty()
            ? "the container does not see the GPUs it requested"
            : said.lines().findFirst().orElseThrow());
  }

  /** "cannot pull image IMAGE (REASON)", the image left out when unknown. */
  static String imagePull(ContainerSnapshot c) {
    return "cannot pull image "
        + (c.image().isEmpty() ? "of container " + c.name() : c.image())
        + " ("
        + c.reason()
        + ")";
  }

  private static Optional<Failure> workloadEviction(WorkloadSnapshot workload) {
    return ConditionSnapshot.find(workload.conditions(), "Evicted")
        .filter(ConditionSnapshot::isTrue)
        .map(
            c ->
                new Failure(
                    Cause.PLATFORM,
                    "Preempted".equals(c.reason())
                        ? "preempted by Kueue"
                        : "evicted by Kueue (" + c.reason() + ")",
                    "",
                    null));
  }

  /**
   * User evidence on one pod: an init container (setup) or main container (command) exited
   * non-zero.
   */
  private static Optional<Failure> user(PodSnapshot pod) {
    for (ContainerSnapshot c : pod.initContainers()) {
      if (c.failed()) {
        return Optional.of(
            new Failure(
                Cause.USER,
                "setup failed in init container " + c.name() + " with exit code " + c.exitCode(),
                pod.node(),
                c.exitCode()));
      }
    }
    return pod.containers().stream()
        .filter(ContainerSnapshot::failed)
        .findFirst()
        .map(
            c ->
                new Failure(
                    Cause.USER,
                    "command exited with code " + c.exitCode() + " in container " + c.name(),
                    pod.node(),
                    c.exitCode()));
  }

  private static Failure platform(String what, PodSnapshot pod, Integer exitCode) {
    return new Failure(Cause.PLATFORM, what, pod.node(), exitCode);
  }

  private static List<ContainerSnapshot> all(PodSnapshot pod) {
    return java.util.stream.Stream.concat(pod.initContainers().stream(), pod.containers().stream())
        .toList();
  }
}
