package dev.trainyard.controller;

import dev.trainyard.controller.state.ConditionSnapshot;
import dev.trainyard.controller.state.JobSnapshot;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.RunStateMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A {@link RunSource} that adds the child Jobs to the observation of a Failed JobSet, read on
 * demand rather than watched: only failed runs need them, and a Job's Failed condition is the
 * durable record of why the run failed after its pods are gone (a user who deletes the failed pod,
 * a pod GC). One read per failed JobSet while the failure is still unexplained; once a Job shows
 * Failed=True (or the failure has settled) the answer is kept until the JobSet is gone or
 * re-created. Needs get/list on batch Jobs (controller/deploy).
 */
final class FailedJobs implements RunSource {

  private static final System.Logger LOG = System.getLogger(FailedJobs.class.getName());
  private final RunSource cache;
  private final Function<RunKey, List<JobSnapshot>> read;
  private final Map<RunKey, Known> known = new ConcurrentHashMap<>();

  /**
   * What was read for one JobSet incarnation (its creation time tells a re-created JobSet apart).
   */
  private record Known(Instant created, List<JobSnapshot> jobs) {}

  FailedJobs(RunSource cache, Function<RunKey, List<JobSnapshot>> read) {
    this.cache = cache;
    this.read = read;
  }

  /**
   * Reads the Jobs labelled {@code jobset.sigs.k8s.io/jobset-name}; none (logged) when the API
   * refuses.
   */
  static Function<RunKey, List<JobSnapshot>> reader(KubernetesClient client) {
    return key -> {
      try {
        return client
            .batch()
            .v1()
            .jobs()
            .inNamespace(key.namespace())
            .withLabel(Snapshots.JOBSET_NAME, key.name())
            .list()
            .getItems()
            .stream()
            .map(Snapshots::job)
            .toList();
      } catch (KubernetesClientException e) {
        LOG.log(
            System.Logger.Level.WARNING,
            "run {0}: cannot read its Jobs (HTTP {1}); the failure is"
                + " explained from its pods only",
            key.cacheKey(),
            e.getCode());
        return List.of();
      }
    };
  }

  @Override
  public Optional<RunObservation> observe(RunKey key) {
    Optional<RunObservation> o = cache.observe(key);
    if (o.isEmpty() || !ConditionSnapshot.holds(o.get().jobSet().conditions(), "Failed")) {
      known.remove(key);
      return o;
    }
    Instant created = o.get().jobSet().created();
    Known k = known.get(key);
    if (k != null && Objects.equals(k.created(), created)) {
      return Optional.of(o.get().withJobs(k.jobs()));
    }
    RunObservation withJobs = o.get().withJobs(read.apply(key));
    boolean failedJob =
        withJobs.jobs().stream().anyMatch(j -> ConditionSnapshot.holds(j.conditions(), "Failed"));
    if (failedJob || !RunStateMapper.provisional(withJobs)) {
      known.put(key, new Known(created, withJobs.jobs()));
    }
    return Optional.of(withJobs);
  }

  @Override
  public Optional<RunProvenance> provenance(RunKey key) {
    return cache.provenance(key);
  }

  @Override
  public Optional<DeletedRun> deleted(RunKey key) {
    return cache.deleted(key);
  }

  @Override
  public void forget(RunKey key) {
    known.remove(key);
    cache.forget(key);
  }

  @Override
  public Optional<String> logTail(
      RunKey key, String pod, String container, int lines, int maxBytes) {
    return cache.logTail(key, pod, container, lines, maxBytes);
  }
}
