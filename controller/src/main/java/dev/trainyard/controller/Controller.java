package dev.trainyard.controller;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.controller.forge.ForgeDirectory;
import dev.trainyard.controller.forge.JdkTransport;
import dev.trainyard.controller.forge.RetryingTransport;
import dev.trainyard.controller.forge.Sleeper;
import dev.trainyard.controller.state.RunStateMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The running controller: informers feed a work queue, one worker thread reconciles while this
 * replica leads (always, without election), and the health server answers probes and scrapes. The
 * worker never waits for a forge: a rate limit or an outage closes that forge's gate and requeues
 * its runs' keys, so the other forges' runs keep posting.
 *
 * <pre>
 * informer event → WorkQueue.add(run key) → worker: Reconciler.reconcile(key) → forge post
 * </pre>
 *
 * When leadership starts the ledger is cleared and every cached run is enqueued, so the new leader
 * reads the forge before posting; when it is lost the worker stops posting and {@code
 * onLostLeadership} runs (the process exits in production, as controller-runtime does).
 */
public final class Controller implements AutoCloseable {

  private final ControllerConfig config;
  private final WorkQueue queue;
  private final ControllerMetrics metrics = new ControllerMetrics();
  private final ClusterWatch watch;
  private final Reconciler reconciler;
  private final LogFollower follower;
  private final HealthServer health;
  private final Leadership leadership;
  private final Thread worker;
  private final KubernetesClient client;
  private final Optional<RunPruning> pruning;
  private final ScheduledExecutorService pruneTimer;
  private volatile boolean closed;
  private LeaseElection election;
  private final LeaseHealth leaseHealth;
  private final PushedProgress pushed = new PushedProgress();
  private final ProgressEndpoint progress;
  private static final System.Logger LOG = System.getLogger(Controller.class.getName());

  /** Wires everything; nothing runs before {@link #start()} except the health server. */
  public Controller(
      KubernetesClient client,
      ControllerConfig config,
      Clock clock,
      String bindHost,
      Runnable onLostLeadership) {
    this.client = client;
    this.config = config;
    // A key the forge could not take is retried after 1 s, 2 s, 4 s ... at most requeueAfter (its
    // own back-off).
    this.queue = new WorkQueue(Duration.ofSeconds(1), config.requeueAfter());
    RetryingTransport http =
        new RetryingTransport(
            new JdkTransport(config.requestTimeout()),
            config.retry(),
            clock,
            Sleeper.system(),
            metrics);
    this.watch = new ClusterWatch(client, config.resync(), clock, queue::add, queue::addBackground);
    Platform.ProgressSettings progress =
        config.platform() == null
            ? Platform.ProgressSettings.DEFAULT
            : config.platform().status().progress();
    RunStateMapper mapper =
        new RunStateMapper(
            config.stallAfter(),
            progress.stallAfter(),
            new RunStateMapper.Limits(
                progress.failUntrained(), progress.failStalledAfter().orElse(null)));
    this.pruning =
        config
            .prune()
            .map(
                p ->
                    new RunPruning(
                        p, config.platform(), this::observed, mapper, System.getenv(), clock));
    this.pruneTimer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "trainyard-prune");
              t.setDaemon(true);
              return t;
            });
    this.follower =
        new LogFollower(
            client, LogFollower.Settings.DEFAULT, clock, progress.stallAfter(), queue::add);
    this.reconciler =
        new Reconciler(
            new StartEvidence(new FailedJobs(watch, FailedJobs.reader(client))),
            mapper,
            new ForgeDirectory(config.forges(), http),
            new StatusLedger(),
            config.targetUrl(),
            metrics,
            clock,
            RunProgress.newest(List.of(follower, pushed)),
            new ProgressPosts.Settings(
                progress.step(), progress.every(), ProgressPosts.DEFAULT.budget()));
    if (progress.failStalledAfter().isPresent()) {
      reconciler.stopStalledWith(RunStopper.workloads(client, watch::workloadNames));
    }
    metrics.gauge(
        "trainyard_runs_stalled",
        "Running runs whose progress and log stood still for progressStallAfter.",
        reconciler::stalledRunning);
    metrics.gauge(
        "trainyard_logs_followed", "Rank 0 logs followed for progress.", follower::following);
    metrics.gauge(
        "trainyard_log_bytes_read",
        "Log bytes read from followed logs within the follow budget since the start.",
        follower::read);
    metrics.gauge(
        "trainyard_log_bytes_dropped",
        "Log bytes dropped over the follow budget since the start.",
        follower::dropped);
    metrics.queueDepth(queue::depth);
    metrics.cached(watch::cached);
    this.leaseHealth =
        new LeaseHealth(
            config.election() == null ? "" : config.election().identity(),
            why -> LOG.log(System.Logger.Level.ERROR, why));
    this.health =
        new HealthServer(
            new InetSocketAddress(bindHost, config.port()), this::notReady, metrics::render);
    this.leadership =
        new Leadership(
            reconciler::reset,
            () -> watch.runs().forEach(queue::add),
            onLostLeadership,
            () -> closed,
            metrics);
    this.worker =
        new Thread(
            new ReconcileWorker(
                queue,
                reconciler::reconcile,
                reconciler::retryAfter,
                leadership::leading,
                () -> closed,
                metrics),
            "trainyard-reconciler");
    this.worker.setDaemon(true);
    // Only where platform.yaml turns progress push on: its pods then carry the token and URL.
    this.progress =
        config.pushesProgress()
            ? new ProgressEndpoint(
                new InetSocketAddress(bindHost, config.progress().port()),
                new ServingCertificate(config.progress().tls(), System::nanoTime).context(),
                new ProgressEndpoint.Parts(
                    new PodTokenReview(client),
                    watch::pod,
                    pushed,
                    queue::add,
                    clock,
                    metrics::pushed))
            : null;
  }

  /**
   * Starts informers, the worker and (when configured) the Lease election, after asking the API
   * server whether this user has every right they need.
   *
   * @throws ClusterAccessException naming each right RBAC denies ({@link AccessCheck})
   */
  public void start() {
    AccessCheck.require(
        client,
        watch.watchesWorkloads(),
        config.election(),
        new AccessCheck.Features(config.pushesProgress(), stopsStalled()));
    watch.start();
    worker.start();
    if (config.election() == null) {
      leadership.start();
    } else {
      election =
          new LeaseElection(
              client, config.election(), leadership::start, leadership::stop, leaseHealth::leader);
      long every = config.election().retryPeriod().toMillis();
      pruneTimer.scheduleWithFixedDelay(
          () -> leaseHealth.probe(client, config.election(), leadership.leading()),
          every,
          every,
          TimeUnit.MILLISECONDS);
    }
    config
        .prune()
        .ifPresent(
            p ->
                pruneTimer.scheduleWithFixedDelay(
                    this::prunePass,
                    p.every().toMillis(),
                    p.every().toMillis(),
                    TimeUnit.MILLISECONDS));
  }

  /**
   * "" when ready: informers synced and, under election, leading or a standby of a known leader.
   */
  private String notReady() {
    if (!watch.synced()) {
      return "informers not synced";
    }
    return config.election() == null ? "" : leaseHealth.notReady(leadership.leading());
  }

  /** Every cached run with its provenance, for the retention pass. */
  private List<ObservedRun> observed() {
    List<ObservedRun> out = new ArrayList<>();
    for (RunKey key : watch.runs()) {
      watch
          .observe(key)
          .ifPresent(
              o -> watch.provenance(key).ifPresent(p -> out.add(new ObservedRun(key, p, o))));
    }
    return out;
  }

  private void prunePass() {
    pruning.ifPresent(p -> p.pass(leadership.leading(), watch.synced(), metrics));
  }

  /** Whether platform.yaml fails stalled runs and Kueue is there to stop them. */
  private boolean stopsStalled() {
    return watch.watchesWorkloads()
        && config.platform() != null
        && config.platform().status().progress().failStalledAfter().isPresent();
  }

  /** The progress endpoint's port; empty when platform.yaml does not enable progress push. */
  public OptionalInt progressPort() {
    return progress == null ? OptionalInt.empty() : OptionalInt.of(progress.port());
  }

  /** The progress the runs' pods pushed. */
  public PushedProgress pushed() {
    return pushed;
  }

  /** The health server's port. */
  public int port() {
    return health.port();
  }

  public boolean leading() {
    return leadership.leading();
  }

  public ControllerMetrics metrics() {
    return metrics;
  }

  @Override
  public void close() {
    closed = true;
    if (election != null) {
      election.close();
    }
    pruneTimer.shutdownNow();
    queue.close();
    follower.close();
    watch.close();
    health.close();
    if (progress != null) {
      progress.close();
    }
    worker.interrupt();
  }
}
