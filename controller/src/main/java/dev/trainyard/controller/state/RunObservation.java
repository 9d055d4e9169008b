package dev.trainyard.controller.state;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Everything known about one run at instant {@code now}: its JobSet, the pods carrying its JobSet's
 * name (all attempts; the mapper picks the current one), its Kueue Workload when there is one, the
 * child Jobs of a failed JobSet ({@code jobs}, else empty) and what kept its pods from starting in
 * an earlier observation ({@code earlier}, e.g. an image that could not be pulled, before Kueue's
 * PodsReady timeout evicted the pods and with them the evidence; see {@link
 * RunStateMapper#startBlocker}), its last {@link Progress} while it runs ({@code progress}, else
 * empty), where its current attempt resumed from ({@code resumed}, the checkpoint script's line in
 * rank 0's log, else empty) and what tells whether it trained ({@code signs}, {@link
 * TrainingSigns}). Built by the controller from informer caches and by {@code trainyard status}
 * from a list call; no Kubernetes client types cross this boundary.
 */
public record RunObservation(
    JobSetSnapshot jobSet,
    List<PodSnapshot> pods,
    Optional<WorkloadSnapshot> workload,
    Instant now,
    List<JobSnapshot> jobs,
    Optional<Failure> earlier,
    Optional<Progress> progress,
    Optional<Resumed> resumed,
    TrainingSigns signs) {

  public RunObservation {
    pods = List.copyOf(pods);
    jobs = List.copyOf(jobs);
    earlier = earlier == null ? Optional.empty() : earlier;
    progress = progress == null ? Optional.empty() : progress;
    resumed = resumed == null ? Optional.empty() : resumed;
    signs = signs == null ? TrainingSigns.NONE : signs;
  }

  /** Not known to have resumed, without training signs. */
  public RunObservation(
      JobSetSnapshot jobSet,
      List<PodSnapshot> pods,
      Optional<WorkloadSnapshot> workload,
      Instant now,
      List<JobSnapshot> jobs,
      Optional<Failure> earlier,
      Optional<Progress> progress) {
    this(
        jobSet, pods, workload, now, jobs, earlier, progress, Optional.empty(), TrainingSigns.NONE);
  }

  /** No progress seen. */
  public RunObservation(
      JobSetSnapshot jobSet,
      List<PodSnapshot> pods,
      Optional<WorkloadSnapshot> workload,
      Instant now,
      List<JobSnapshot> jobs,
      Optional<Failure> earlier) {
    this(jobSet, pods, workload, now, jobs, earlier, Optional.empty());
  }

  /** Nothing remembered from earlier observations. */
  public RunObservation(
      JobSetSnapshot jobSet,
      List<PodSnapshot> pods,
      Optional<WorkloadSnapshot> workload,
      Instant now,
      List<JobSnapshot> jobs) {
    this(jobSet, pods, workload, now, jobs, Optional.empty());
  }

  /**
   * Without child Jobs: they are read only for a failed JobSet (their Failed condition explains
   * it).
   */
  public RunObservation(
      JobSetSnapshot jobSet,
      List<PodSnapshot> pods,
      Optional<WorkloadSnapshot> workload,
      Instant now) {
    this(jobSet, pods, workload, now, List.of());
  }

  /** This observation with {@code jobs} as its child Jobs. */
  public RunObservation withJobs(List<JobSnapshot> jobs) {
    return new RunObservation(jobSet, pods, workload, now, jobs, earlier, progress, resumed, signs);
  }

  /** This observation with {@code earlier} as what kept its pods from starting before. */
  public RunObservation withEarlier(Optional<Failure> earlier) {
    return new RunObservation(jobSet, pods, workload, now, jobs, earlier, progress, resumed, signs);
  }

  /** This observation with {@code progress} as the run's last progress. */
  public RunObservation withProgress(Optional<Progress> progress) {
    return new RunObservation(jobSet, pods, workload, now, jobs, earlier, progress, resumed, signs);
  }

  /** This observation with {@code resumed} as where its current attempt resumed from. */
  public RunObservation withResumed(Optional<Resumed> resumed) {
    return new RunObservation(jobSet, pods, workload, now, jobs, earlier, progress, resumed, signs);
  }

  /** This observation with {@code signs} as what tells whether it trained. */
  public RunObservation withSigns(TrainingSigns signs) {
    return new RunObservation(jobSet, pods, workload, now, jobs, earlier, progress, resumed, signs);
  }
}
