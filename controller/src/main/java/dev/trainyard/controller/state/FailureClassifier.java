package dev.trainyard.controller.state;

import dev.trainyard.compiler.render.GpuCheck;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Tells what a pod shows about a run's failure, and whose it is, from reasons, never from message
 * text.
 *
 * <p>Platform evidence ({@link #platform}) wins over user evidence: an evicted or preempted pod
 * makes its siblings exit with 137/143 as a consequence, never the other way round. Platform
 * signals: pod condition {@code DisruptionTarget=True} (reasons PreemptionByScheduler,
 * DeletionByTaintManager, DeletionByPodGC, EvictionByEvictionAPI, TerminationByKubelet; k8s docs
 * "Pod disruption conditions"), pod reason Evicted, NodeLost or Shutdown, the exit code of the
 * compiled GPU start-up check ({@link GpuCheck#EXIT_CODE}), the code-sync init container OOMKilled,
 * and a Kueue Workload {@code Evicted=True}; an image that is not train.yaml's (the runtime's, the
 * code-sync's) that cannot be pulled is the platform's too ({@link #startBlocker}).
 *
 * <p>What train.yaml controls is the user's ({@link #userSetting}), each naming the field to
 * change: a container OOMKilled (its own limit, {@code resources.memory}; a node under memory
 * pressure evicts instead, which is DisruptionTarget/TerminationByKubelet), an {@code image:} of
 * train.yaml that cannot be pulled or is no valid name, the pod reason DeadlineExceeded ({@code
 * timeout}), and a container the kubelet cannot create (CreateContainerConfigError: a Secret or
 * ConfigMap key that does not exist, e.g. a typo in {@code secrets:}; CreateContainerError,
 * RunContainerError). Then the user's exits ({@link #userExit}): a non-zero exit of an init
 * container or of a main container (the command, pip install).
 */
final class FailureClassifier {

  /**
   * The kubelet alternates these two on every retry of one pull: one phrase for both (no churn).
   */
  static final Set<String> PULL = Set.of("ErrImagePull", "ImagePullBackOff");

  static final Set<String> IMAGE =
      Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull");

  /**
   * Waiting reasons of a container the kubelet cannot create or start (kubernetes
   * pkg/kubelet/kuberuntime {@code ErrCreateContainerConfig}, {@code ErrCreateContainer};
   * pkg/kubelet/container {@code ErrRunContainer}). Such a pod stays Pending: without this its run
   * would only say "waiting for readiness" until its timeout.
   */
  static final Set<String> CANNOT_CREATE =
      Set.of("CreateContainerConfigError", "CreateContainerError", "RunContainerError");

  /**
   * The compiled main container, running the user's command (compiler {@code
   * PodSpecBuilder.CONTAINER}).
   */
  static final String MAIN = "node";

  /**
   * The compiled init container that fetches the source (compiler {@code
   * PodSpecBuilder.CODE_SYNC}).
   */
  static final String CODE_SYNC = "code-sync";

  static final String MEMORY_HINT = "raise resources.memory in train.yaml";
  static final String TIMEOUT_HINT = "raise timeout in train.yaml";
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
          "Shutdown", "node shut down");

  private FailureClassifier() {}

  /** The first evidence {@code find} gives for {@code pods} in {@link PodOrder#EVIDENCE} order. */
  static Optional<Failure> first(
      List<PodSnapshot> pods, Function<PodSnapshot, Optional<Failure>> find) {
    return PodOrder.sorted(pods).stream().map(find).flatMap(Optional::stream).findFirst();
  }

  /**
   * Platform evidence on one pod that makes its siblings fail too: disruption, pod reason, the GPU
   * check, the code-sync container OOMKilled. (A platform image that cannot be pulled is a {@link
   * #startBlocker}: it keeps only its own pod from starting.)
   */
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
      if (oomKilled(c) && CODE_SYNC.equals(c.name())) {
        return Optional.of(platform("OOMKilled in init container " + c.name(), pod, c.exitCode()));
      }
      if (c.status() == ContainerSnapshot.Status.TERMINATED
          && Integer.valueOf(GpuCheck.EXIT_CODE).equals(c.exitCode())) {
        return Optional.of(platform(gpuCheck(c), pod, c.exitCode()));
      }
    }
    return Optional.empty();
  }

  /**
   * What keeps one pod from starting: an image that cannot be pulled (the user's when train.yaml
   * names it) or a container the kubelet cannot create (the user's). Empty when the pod is merely
   * on its way.
   */
  static Optional<Failure> startBlocker(PodSnapshot pod, UserSettings settings) {
    for (ContainerSnapshot c : all(pod)) {
      if (waiting(c, IMAGE)) {
        boolean user = settings.named(c.image());
        return Optional.of(
            new Failure(
                user ? Cause.USER : Cause.PLATFORM,
                imagePull(c),
                pod.node(),
                null,
                user ? imageHint(c) : ""));
      }
      if (waiting(c, CANNOT_CREATE)) {
        return Optional.of(
            new Failure(
                Cause.USER,
                c.reason()
                    + (MAIN.equals(c.name()) ? "" : " in container " + c.name())
                    + kubeletSaid(c),
                pod.node(),
                null,
                "CreateContainerConfigError".equals(c.reason())
                    ? "check secrets in train.yaml"
                    : ""));
      }
    }
    return Optional.empty();
  }

  /**
   * What train.yaml controls, on one pod: the pod ran past its deadline ({@code timeout}), a
   * container was OOMKilled ({@code resources.memory}), or could not start ({@link #startBlocker},
   * when it is the user's).
   */
  static Optional<Failure> userSetting(PodSnapshot pod, UserSettings settings) {
    if ("DeadlineExceeded".equals(pod.reason())) {
      return Optional.of(timeout(settings, pod.node()));
    }
    for (ContainerSnapshot c : all(pod)) {
      if (oomKilled(c) && !CODE_SYNC.equals(c.name())) {
        return Optional.of(
            new Failure(
                Cause.USER,
                "out of memory (OOMKilled) in container " + c.name(),
                pod.node(),
                c.exitCode(),
                MEMORY_HINT));
      }
    }
    // Also a platform blocker (the runtime's image): it blocks the pod as a user's would, and says
    // whose it is.
    return startBlocker(pod, settings);
  }

  /**
   * User evidence on one pod: an init container (code sync) or main container (command) exited
   * non-zero.
   */
  static Optional<Failure> userExit(PodSnapshot pod) {
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

  /**
   * The run ran past its {@code timeout} (the Job's or the pod's activeDeadlineSeconds): the user's
   * to raise.
   */
  static Failure timeout(UserSettings settings, String node) {
    String limit =
        settings.timeout() == null ? "" : " of " + Description.duration(settings.timeout());
    return new Failure(Cause.USER, "ran past its timeout" + limit, node, null, TIMEOUT_HINT);
  }

  /**
   * The compiled GPU start-up check failed (the pod does not see the GPUs it requested, or the
   * driver is too old): its termination message says which, else a generic sentence.
   */
  static String gpuCheck(ContainerSnapshot c) {
    String said = c.message().strip().replaceFirst("^trainyard: platform error: ", "");
    return "GPU check failed in container "
        + c.name()
        + ": "
        + (said.isEmpty()
            ? "the container does not see the GPUs it requested"
            : said.lines().findFirst().orElseThrow());
  }

  /**
   * "cannot pull image IMAGE" for both ErrImagePull and ImagePullBackOff (the kubelet alternates
   * them on every retry: one phrase, so no new post per retry), "invalid image name IMAGE", "image
   * IMAGE is not on the node" (ErrImageNeverPull).
   */
  static String imagePull(ContainerSnapshot c) {
    String image = c.image().isEmpty() ? "of container " + c.name() : c.image();
    return switch (c.reason()) {
      case "InvalidImageName" ->
          "invalid image name " + (c.image().isEmpty() ? "in container " + c.name() : c.image());
      case "ErrImageNeverPull" -> "image " + image + " is not on the node (imagePullPolicy: Never)";
      default -> "cannot pull image " + image;
    };
  }

  private static String imageHint(ContainerSnapshot c) {
    return "InvalidImageName".equals(c.reason())
        ? "fix image in train.yaml"
        : "check image in train.yaml";
  }

  /**
   * ": MESSAGE", the kubelet's first line (e.g. {@code secret "hf-token" not found}) without
   * container ids (64 hex digits, new on every retry), or "" when it said nothing.
   */
  static String kubeletSaid(ContainerSnapshot c) {
    String said =
        c.message()
            .strip()
            .lines()
            .findFirst()
            .orElse("")
            .replaceAll("\\b[0-9a-f]{64}\\b", "…")
            .strip();
    return said.isEmpty() ? "" : ": " + said;
  }

  static Optional<Failure> workloadEviction(WorkloadSnapshot workload) {
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

  private static boolean oomKilled(ContainerSnapshot c) {
    return c.status() == ContainerSnapshot.Status.TERMINATED && "OOMKilled".equals(c.reason());
  }

  private static boolean waiting(ContainerSnapshot c, Set<String> reasons) {
    return c.status() == ContainerSnapshot.Status.WAITING && reasons.contains(c.reason());
  }

  private static Failure platform(String what, PodSnapshot pod, Integer exitCode) {
    return new Failure(Cause.PLATFORM, what, pod.node(), exitCode);
  }

  private static List<ContainerSnapshot> all(PodSnapshot pod) {
    return Stream.concat(pod.initContainers().stream(), pod.containers().stream()).toList();
  }
}
