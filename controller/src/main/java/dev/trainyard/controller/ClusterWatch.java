package dev.trainyard.controller;

import dev.trainyard.controller.state.RunObservation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The informers: JobSets carrying {@code trainyard.dev/source-commit}, pods labelled {@code
 * jobset.sigs.k8s.io/jobset-name}, and Kueue Workloads (kueue.x-k8s.io/v1beta2, when the API is
 * served) indexed by their owning JobSet, with Kueue's LocalQueues (their names only: whether a
 * Workload's "LocalQueue … doesn't exist" is still true, {@link
 * dev.trainyard.controller.state.WorkloadSnapshot#localQueueExists}). Event handlers only enqueue
 * the run's key; the reconciler reads back through {@link RunSource}. A deleted JobSet's final
 * object is kept until the reconciler has closed its commit status ({@link #deleted}, {@link
 * #forget}). A resync every {@code resync} re-enqueues every run, which is what notices a run that
 * stalled without any object changing. The caches hold pruned copies ({@link CachePruning}).
 */
public final class ClusterWatch implements RunSource, AutoCloseable {

  static final String JOBSET_API = "jobset.x-k8s.io/v1alpha2";
  static final String WORKLOAD_API = "kueue.x-k8s.io/v1beta2";
  private static final String BY_JOBSET = "jobset";

  private final SharedIndexInformer<GenericKubernetesResource> jobSets;
  private final SharedIndexInformer<Pod> pods;
  private final SharedIndexInformer<GenericKubernetesResource> workloads;
  private final SharedIndexInformer<GenericKubernetesResource> localQueues;
  private final Clock clock;
  private final KubernetesClient client;

  /**
   * Final objects of deleted JobSets, until their status is settled ({@link #forget}); bounded,
   * oldest dropped.
   */
  private final Map<RunKey, GenericKubernetesResource> deletedJobSets =
      Collections.synchronizedMap(
          new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(
                Map.Entry<RunKey, GenericKubernetesResource> eldest) {
              return size() > MAX_DELETED;
            }
          });

  /**
   * Deleted JobSets kept at most (a follower never settles them; a mass delete must not grow
   * without bound).
   */
  static final int MAX_DELETED = 10_000;

  /**
   * Builds the informers; {@code enqueue} receives every run key a change touches, {@code resynced}
   * the keys of periodic resyncs (same resource version: nothing changed).
   */
  public ClusterWatch(
      KubernetesClient client,
      Duration resync,
      Clock clock,
      Consumer<RunKey> enqueue,
      Consumer<RunKey> resynced) {
    this.clock = clock;
    this.client = client;
    long resyncMillis = resync.toMillis();
    jobSets =
        client
            .genericKubernetesResources(JOBSET_API, "JobSet")
            .inAnyNamespace()
            .runnableInformer(resyncMillis);
    jobSets.itemStore(CachePruning.store(CachePruning::jobSet));
    jobSets.addEventHandler(new RunEvents<>(RunKeys::ofJobSet, enqueue, resynced, this::gone));
    pods = client.pods().inAnyNamespace().withLabel(Snapshots.JOBSET_NAME).runnableInformer(0);
    pods.itemStore(CachePruning.store(CachePruning::pod));
    pods.addIndexers(
        Map.of(
            BY_JOBSET,
            p ->
                List.of(
                    p.getMetadata().getNamespace()
                        + "/"
                        + p.getMetadata().getLabels().get(Snapshots.JOBSET_NAME))));
    pods.addEventHandler(new RunEvents<>(RunKeys::ofPod, enqueue, resynced));
    workloads =
        kueueServed(client)
            ? client
                .genericKubernetesResources(WORKLOAD_API, "Workload")
                .inAnyNamespace()
                .runnableInformer(0)
            : null;
    if (workloads == null) {
      System.getLogger(ClusterWatch.class.getName())
          .log(
              System.Logger.Level.WARNING,
              "the API server does not serve Kueue's Workload API ("
                  + WORKLOAD_API
                  + "): a run waiting for quota shows only as suspended, without Kueue's reason,"
                  + " and Kueue's evictions and deactivations are not seen; install Kueue 0.15 or"
                  + " later (the first to serve v1beta2)");
    }
    localQueues =
        workloads == null
            ? null
            : client
                .genericKubernetesResources(WORKLOAD_API, "LocalQueue")
                .inAnyNamespace()
                .runnableInformer(0);
    if (workloads != null) {
      localQueues.itemStore(CachePruning.store(CachePruning::name));
      workloads.itemStore(CachePruning.store(CachePruning::workload));
      workloads.addIndexers(
          Map.of(
              BY_JOBSET, w -> RunKeys.owner(w).map(k -> List.of(k.cacheKey())).orElse(List.of())));
      workloads.addEventHandler(new RunEvents<>(RunKeys::owner, enqueue, resynced));
    }
  }

  /** Starts listing and watching; returns at once. */
  public void start() {
    jobSets.start();
    pods.start();
    if (workloads != null) {
      workloads.start();
      localQueues.start();
    }
  }

  /** Whether every informer has listed once (readiness). */
  public boolean synced() {
    return jobSets.hasSynced()
        && pods.hasSynced()
        && (workloads == null || workloads.hasSynced() && localQueues.hasSynced());
  }

  /** Whether Kueue Workloads are watched. */
  public boolean watchesWorkloads() {
    return workloads != null;
  }

  /** Every run key in the JobSet cache, for a full re-enqueue. */
  public List<RunKey> runs() {
    return jobSets.getStore().list().stream()
        .map(RunKeys::ofJobSet)
        .flatMap(Optional::stream)
        .toList();
  }

  /** Objects cached, by informer: jobsets, pods, workloads, localqueues. */
  public Map<String, Integer> cached() {
    return Map.of(
        "jobsets",
        jobSets.getStore().list().size(),
        "pods",
        pods.getStore().list().size(),
        "workloads",
        workloads == null ? 0 : workloads.getStore().list().size(),
        "localqueues",
        localQueues == null ? 0 : localQueues.getStore().list().size());
  }

  /** Whether the LocalQueue {@code namespace/name} is cached; false without Kueue. */
  private boolean localQueue(String key) {
    return localQueues != null && localQueues.getStore().getByKey(key) != null;
  }

  @Override
  public Optional<RunObservation> observe(RunKey key) {
    GenericKubernetesResource js = jobSets.getStore().getByKey(key.cacheKey());
    if (js == null) {
      return Optional.empty();
    }
    List<GenericKubernetesResource> owned =
        workloads == null ? List.of() : workloads.getIndexer().byIndex(BY_JOBSET, key.cacheKey());
    return Optional.of(
        ListedRuns.observation(
            js,
            pods.getIndexer().byIndex(BY_JOBSET, key.cacheKey()),
            owned,
            this::localQueue,
            clock.instant()));
  }

  /** The names of the cached Workloads {@code key}'s JobSet owns; empty without Kueue. */
  public List<String> workloadNames(RunKey key) {
    return workloads == null
        ? List.of()
        : workloads.getIndexer().byIndex(BY_JOBSET, key.cacheKey()).stream()
            .map(w -> w.getMetadata().getName())
            .sorted()
            .toList();
  }

  /** The cached pod {@code name} in {@code namespace} (pods of JobSets only); empty if none. */
  public Optional<Pod> pod(String namespace, String name) {
    return Optional.ofNullable(pods.getStore().getByKey(namespace + "/" + name));
  }

  @Override
  public Optional<RunProvenance> provenance(RunKey key) {
    GenericKubernetesResource js = jobSets.getStore().getByKey(key.cacheKey());
    return js == null
        ? Optional.empty()
        : RunProvenance.of(
            js.getMetadata().getAnnotations(),
            js.getMetadata().getLabels(),
            js.getMetadata().getName());
  }

  /**
   * The run whose JobSet {@code key} names was deleted: provenance and last observation from the
   * final object the delete event carried (the pods and Workload still cached with it). Empty while
   * the JobSet is cached.
   */
  @Override
  public Optional<DeletedRun> deleted(RunKey key) {
    GenericKubernetesResource last = deletedJobSets.get(key);
    if (last == null || jobSets.getStore().getByKey(key.cacheKey()) != null) {
      return Optional.empty();
    }
    List<GenericKubernetesResource> owned =
        workloads == null ? List.of() : workloads.getIndexer().byIndex(BY_JOBSET, key.cacheKey());
    return RunProvenance.of(
            last.getMetadata().getAnnotations(),
            last.getMetadata().getLabels(),
            last.getMetadata().getName())
        .map(
            p ->
                new DeletedRun(
                    p,
                    ListedRuns.observation(
                        last,
                        pods.getIndexer().byIndex(BY_JOBSET, key.cacheKey()),
                        owned,
                        this::localQueue,
                        clock.instant())));
  }

  @Override
  public void forget(RunKey key) {
    deletedJobSets.remove(key);
  }

  /**
   * A JobSet deleted ({@code last}: its final object) or added ({@code null}: nothing of it is
   * gone).
   */
  void gone(RunKey key, GenericKubernetesResource last) {
    if (last == null) {
      deletedJobSets.remove(key);
    } else {
      deletedJobSets.put(key, last);
    }
  }

  @Override
  public Optional<String> logTail(
      RunKey key, String pod, String container, int lines, int maxBytes) {
    var log = client.pods().inNamespace(key.namespace()).withName(pod).inContainer(container);
    return LogTail.newest(
        n -> {
          try {
            return log.limitBytes(maxBytes).tailingLines(n).getLog();
          } catch (KubernetesClientException e) {
            return null;
          }
        },
        lines,
        maxBytes);
  }

  @Override
  public void close() {
    jobSets.stop();
    pods.stop();
    if (workloads != null) {
      workloads.stop();
      localQueues.stop();
    }
  }

  private static boolean kueueServed(KubernetesClient client) {
    try {
      return client.getApiResources(WORKLOAD_API) != null;
    } catch (KubernetesClientException e) {
      return false;
    }
  }
}
