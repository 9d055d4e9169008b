package dev.trainyard.controller;

import dev.trainyard.compiler.cluster.ClusterDryRun;
import dev.trainyard.controller.state.ConditionSnapshot;
import dev.trainyard.controller.state.JobSnapshot;
import dev.trainyard.controller.state.LogProgress;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.Resumed;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.TrainingSigns;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads runs with list calls through the user's kubeconfig, for {@code trainyard status} and {@code
 * trainyard logs}: the same snapshots the controller builds from its informer caches, so both map
 * through the same {@code RunStateMapper}. A run is a JobSet carrying {@code
 * trainyard.dev/source-commit}; it is named by its {@code trainyard.dev/run} label (or the JobSet
 * name).
 */
public final class RunReader implements AutoCloseable {

  private final KubernetesClient client;
  private final Clock clock;

  public RunReader(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /**
   * A reader on {@code kubeconfig} (else $KUBECONFIG or ~/.kube/config) and {@code context} (else
   * current), configured as {@code validate --cluster} is ({@link ClusterDryRun#clientConfig}).
   *
   * @throws ClusterAccessException (exit 3) no kubeconfig, one that is not YAML ({@code
   *     file:line:col}, never its text), not a kubeconfig, or without {@code context} (listing the
   *     contexts it has)
   */
  public static RunReader connect(
      Optional<Path> kubeconfig, Optional<String> context, Clock clock) {
    try {
      Config config = ClusterDryRun.clientConfig(kubeconfig, context);
      // A person waits at the terminal: fail within seconds rather than after fabric8's 10 retries.
      config.setRequestRetryBackoffLimit(1);
      config.setConnectionTimeout(5_000);
      return new RunReader(new KubernetesClientBuilder().withConfig(config).build(), clock);
    } catch (ClusterDryRun.ClusterUnavailableException e) {
      throw new ClusterAccessException(
          e.getMessage(), "pass --kubeconfig FILE or --context NAME, or fix the file", e);
    } catch (KubernetesClientException e) {
      throw new ClusterAccessException(
          "cannot configure the Kubernetes client: " + ClusterErrors.unreachable(e, "(unknown)"),
          e);
    }
  }

  /** The namespace the kubeconfig context names, else "default". */
  public String defaultNamespace() {
    String ns = client.getConfiguration().getNamespace();
    return ns == null || ns.isBlank() ? "default" : ns;
  }

  /** Every run in {@code namespace} (null: all namespaces), sorted by namespace and run name. */
  public List<ObservedRun> list(String namespace) {
    try {
      var jobSets =
          namespace == null
              ? client
                  .genericKubernetesResources(ClusterWatch.JOBSET_API, "JobSet")
                  .inAnyNamespace()
                  .list()
                  .getItems()
              : client
                  .genericKubernetesResources(ClusterWatch.JOBSET_API, "JobSet")
                  .inNamespace(namespace)
                  .list()
                  .getItems();
      return withJobs(
          ListedRuns.assemble(
              jobSets,
              pods(namespace),
              workloads(namespace),
              localQueues(namespace)::contains,
              clock.instant()),
          namespace);
    } catch (KubernetesClientException e) {
      throw ClusterErrors.of(e, server(), "list runs");
    }
  }

  /** The run named {@code run} (run label or JobSet name) in {@code namespace}. */
  public Optional<ObservedRun> get(String namespace, String run) {
    return list(namespace).stream()
        .filter(r -> r.provenance().run().equals(run) || r.key().name().equals(run))
        .findFirst();
  }

  /** The lines of rank 0's log {@link #progress} reads back, and the bytes at most. */
  static final int PROGRESS_LINES = 200;

  static final int PROGRESS_BYTES = 64 * 1024;

  /**
   * {@code run}'s progress as its rank 0 log shows it (the MPI launcher, else node 0, of the
   * current attempt; {@link RunLogs#choose}), read once: its last {@link #PROGRESS_LINES} lines (at
   * most {@link #PROGRESS_BYTES} bytes) with the API server's timestamps, so the stall is measured
   * from the last line as the controller measures it. Empty when no progress line is among them or
   * the log cannot be read (the pod is gone or not started, the API server refuses): {@code
   * trainyard status} then shows "-", never an error.
   */
  public Optional<Progress> progress(ObservedRun run) {
    return parsedRankZeroLog(run).flatMap(LogProgress::current);
  }

  /**
   * Where {@code run}'s current attempt resumed from: the checkpoint script's line ({@link
   * dev.trainyard.controller.state.Resumed}) among the first {@link LogFollower#HEAD_BYTES} bytes
   * of its rank 0 log (the line comes before setup's and the program's output, so a tail need not
   * reach it). Empty when there is none or the log cannot be read.
   */
  public Optional<Resumed> resumed(ObservedRun run) {
    return rankZeroLog(run, false, LogFollower.HEAD_BYTES, 0)
        .flatMap(
            log -> {
              LogProgress lines = new LogProgress();
              lines.acceptText(log, clock.instant());
              return lines.resumed();
            });
  }

  /**
   * {@code run}'s observation with what rank 0's log shows, read as {@link #progress} reads it: its
   * progress and {@link TrainingSigns} (the log was read, the world size it printed), so a run that
   * succeeded is asked "did it train?" as the controller asks it (without its job's history, which
   * only the controller keeps). Unchanged when the log cannot be read.
   */
  public RunObservation withRankZeroLog(ObservedRun run) {
    RunObservation o = run.observation();
    return parsedRankZeroLog(run)
        .map(
            log ->
                o.withProgress(log.current())
                    .withSigns(new TrainingSigns(true, log.worldSize(), null)))
        .orElse(o);
  }

  /**
   * Rank 0's last {@link #PROGRESS_LINES} lines with timestamps, parsed ({@link TimedLog#parse});
   * empty when it cannot be read.
   */
  private Optional<LogProgress> parsedRankZeroLog(ObservedRun run) {
    return rankZeroLog(run, true, PROGRESS_BYTES, PROGRESS_LINES)
        .map(log -> TimedLog.parse(log, clock.instant()));
  }

  /**
   * Rank 0's log of {@code run}'s current attempt: its first {@code bytes} bytes ({@code lines} 0),
   * else its newest lines, at most {@code lines} of them within {@code bytes} bytes ({@link
   * LogTail}); empty when it cannot be read.
   */
  private Optional<String> rankZeroLog(ObservedRun run, boolean timestamps, int bytes, int lines) {
    try {
      List<Pod> pods =
          RunLogs.choose(
              podsOf(run.key()),
              run.observation().jobSet().restarts(),
              new RunLogs.Selection(false, null));
      if (pods.isEmpty() || pods.get(0).getSpec() == null) {
        return Optional.empty();
      }
      Pod pod = pods.get(0);
      var container =
          client
              .pods()
              .inNamespace(run.key().namespace())
              .withName(pod.getMetadata().getName())
              .inContainer(pod.getSpec().getContainers().get(0).getName());
      if (lines == 0) {
        return Optional.ofNullable(container.limitBytes(bytes).getLog());
      }
      var log = timestamps ? container.usingTimestamps() : container;
      return LogTail.newest(
          n -> {
            try {
              return log.limitBytes(bytes).tailingLines(n).getLog();
            } catch (KubernetesClientException e) {
              return null;
            }
          },
          lines,
          bytes);
    } catch (KubernetesClientException | ClusterAccessException e) {
      return Optional.empty();
    }
  }

  /** The pods of {@code key}'s JobSet, typed, for log reading. */
  List<Pod> podsOf(RunKey key) {
    try {
      return client
          .pods()
          .inNamespace(key.namespace())
          .withLabel(Snapshots.JOBSET_NAME, key.name())
          .list()
          .getItems();
    } catch (KubernetesClientException e) {
      throw ClusterErrors.of(e, server(), "list the pods of " + key.cacheKey());
    }
  }

  /** The API server's URL, for messages. */
  String server() {
    return String.valueOf(client.getConfiguration().getMasterUrl()).replaceFirst("/$", "");
  }

  KubernetesClient client() {
    return client;
  }

  private List<Pod> pods(String namespace) {
    var op = client.pods();
    return namespace == null
        ? op.inAnyNamespace().withLabel(Snapshots.JOBSET_NAME).list().getItems()
        : op.inNamespace(namespace).withLabel(Snapshots.JOBSET_NAME).list().getItems();
  }

  /**
   * The failed runs with their child Jobs (one list call, only when a run failed): the Jobs' Failed
   * conditions explain a failure whose pods are gone, as in the controller ({@link FailedJobs}). A
   * user who may not list Jobs still sees the run, explained from its pods.
   */
  private List<ObservedRun> withJobs(List<ObservedRun> runs, String namespace) {
    if (runs.stream()
        .noneMatch(r -> ConditionSnapshot.holds(r.observation().jobSet().conditions(), "Failed"))) {
      return runs;
    }
    List<Job> jobs;
    try {
      var op = client.batch().v1().jobs();
      jobs =
          namespace == null
              ? op.inAnyNamespace().withLabel(Snapshots.JOBSET_NAME).list().getItems()
              : op.inNamespace(namespace).withLabel(Snapshots.JOBSET_NAME).list().getItems();
    } catch (KubernetesClientException e) {
      return runs;
    }
    Map<RunKey, List<JobSnapshot>> byRun =
        jobs.stream()
            .collect(
                Collectors.groupingBy(
                    j ->
                        new RunKey(
                            j.getMetadata().getNamespace(),
                            j.getMetadata().getLabels().get(Snapshots.JOBSET_NAME)),
                    Collectors.mapping(Snapshots::job, Collectors.toList())));
    return runs.stream()
        .map(
            r ->
                new ObservedRun(
                    r.key(),
                    r.provenance(),
                    r.observation().withJobs(byRun.getOrDefault(r.key(), List.of()))))
        .toList();
  }

  /** Every Workload; none when Kueue's API is not served. */
  private List<GenericKubernetesResource> workloads(String namespace) {
    try {
      var op = client.genericKubernetesResources(ClusterWatch.WORKLOAD_API, "Workload");
      return namespace == null
          ? op.inAnyNamespace().list().getItems()
          : op.inNamespace(namespace).list().getItems();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return List.of();
      }
      throw e;
    }
  }

  /**
   * The LocalQueues ({@code namespace/name}); none when Kueue's API is not served or the reader may
   * not list them (a run's "LocalQueue … doesn't exist" then stays Kueue's words).
   */
  private Set<String> localQueues(String namespace) {
    try {
      var op = client.genericKubernetesResources(ClusterWatch.WORKLOAD_API, "LocalQueue");
      var items =
          namespace == null
              ? op.inAnyNamespace().list().getItems()
              : op.inNamespace(namespace).list().getItems();
      return items.stream()
          .map(q -> q.getMetadata().getNamespace() + "/" + q.getMetadata().getName())
          .collect(Collectors.toSet());
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404 || e.getCode() == 403) {
        return Set.of();
      }
      throw e;
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
