package dev.trainyard.cluster;

import dev.trainyard.controller.forge.FakeForge;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The status controller as its own JVM ({@code dev.trainyard.controller.ControllerMain} from this
 * test classpath), talking to the test cluster through its kubeconfig and to a {@link FakeForge}.
 * Its forges are test-unique hosts ({@code gh-<tag>.test}, {@code gl-<tag>.test}, {@code
 * gt-<tag>.test}) so runs of other tests, whose repos are on other hosts, never reach this forge.
 * Lease in {@code leaseNamespace}, {@link #LEASE} unless {@link Tuning#lease} says otherwise;
 * resync 2 s, forge request timeout 1 s, requeue after 1 s. The forges come from a platform.yaml
 * {@code status:} as in production, their tokens from files laid out as the Deployment mounts the
 * Secret; a running run whose progress stood still for {@link #PROGRESS_STALL} is stalled
 * (production: 30m) unless {@link Tuning} says otherwise.
 */
final class ControllerProcess implements AutoCloseable {

  static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  /**
   * The Lease of a replica: the production default (renew within 10 s). A replica loses a Lease it
   * does not renew within 2/3 of it and then exits, as in production, where its Deployment starts
   * it again; here nothing does, so a shorter Lease let a loaded 2-core CI machine (the
   * kube-apiserver, etcd, seven controllers and Maven's JVM sharing it) end a test's only replica
   * mid-run. Failover tests that need a quick hand-over give a short one ({@link #FAILOVER_LEASE}).
   */
  static final Duration LEASE = Duration.ofSeconds(15);

  /** A Lease short enough that a killed leader's successor takes over within seconds. */
  static final Duration FAILOVER_LEASE = Duration.ofSeconds(3);

  /** platform.yaml's {@code status.progress.stallAfter} here. */
  static final Duration PROGRESS_STALL = Duration.ofSeconds(20);

  private final ClusterProcess process;
  private final int port;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private ControllerProcess(ClusterProcess process, int port) {
    this.process = process;
    this.port = port;
  }

  /** The host names this tag's forges answer for: github, gitlab, gitea. */
  static String host(String kind, String tag) {
    return switch (kind) {
      case "github" -> "gh-" + tag + ".test";
      case "gitlab" -> "gl-" + tag + ".test";
      default -> "gt-" + tag + ".test";
    };
  }

  /** Starts a replica named {@code identity}; returns once it listens (not necessarily leading). */
  static ControllerProcess start(
      KubeCluster cluster,
      FakeForge forge,
      String tag,
      String leaseNamespace,
      String identity,
      Duration stallAfter) {
    return start(cluster, forge, tag, leaseNamespace, identity, stallAfter, Duration.ofSeconds(2));
  }

  /** As above with informer resync {@code resync} (the benchmark uses the production 60 s). */
  static ControllerProcess start(
      KubeCluster cluster,
      FakeForge forge,
      String tag,
      String leaseNamespace,
      String identity,
      Duration stallAfter,
      Duration resync) {
    return start(
        cluster, forge, tag, leaseNamespace, identity, new Tuning(stallAfter, resync, "128m"));
  }

  /**
   * Stall threshold, informer resync and the JVM's -Xmx (e.g. {@code 128m}; the benchmark at
   * 100,000 cached JobSets gives 512m, the Deployment's heap at its 384Mi limit being ~288 MiB),
   * and the Lease ({@link #LEASE} unless {@link #withLease}).
   */
  record Tuning(
      Duration stallAfter,
      Duration resync,
      String maxHeap,
      Duration progressStallAfter,
      Duration failStalledAfter,
      Duration lease) {
    /** With the Lease {@link #LEASE}. */
    Tuning(
        Duration stallAfter,
        Duration resync,
        String maxHeap,
        Duration progressStallAfter,
        Duration failStalledAfter) {
      this(stallAfter, resync, maxHeap, progressStallAfter, failStalledAfter, LEASE);
    }

    /** This tuning with a Lease of {@code lease}. */
    Tuning withLease(Duration lease) {
      return new Tuning(stallAfter, resync, maxHeap, progressStallAfter, failStalledAfter, lease);
    }

    /** With the progress stall {@link #PROGRESS_STALL}. */
    Tuning(Duration stallAfter, Duration resync, String maxHeap) {
      this(stallAfter, resync, maxHeap, PROGRESS_STALL);
    }

    /** Never failing a stalled run. */
    Tuning(Duration stallAfter, Duration resync, String maxHeap, Duration progressStallAfter) {
      this(stallAfter, resync, maxHeap, progressStallAfter, null);
    }
  }

  /** As above with {@code tuning}. */
  static ControllerProcess start(
      KubeCluster cluster,
      FakeForge forge,
      String tag,
      String leaseNamespace,
      String identity,
      Tuning tuning) {
    Duration stallAfter = tuning.stallAfter();
    Duration resync = tuning.resync();
    Path dir = dir(tag);
    Path config = dir.resolve("controller.yaml");
    Path tokens = dir.resolve("tokens");
    writeTokens(tokens);
    write(
        dir.resolve("platform.yaml"),
        """
                apiVersion: trainyard.dev/v1
                kind: Platform
                clusters: [{name: it}]
                namespaces: [{name: default, cluster: it}]
                queues:
                  resourceFlavors: [{name: f}]
                  clusterQueues: [{name: default, flavors: [{name: f, quota: {cpu: "8"}}]}]
                  localQueues: [{name: default, namespace: default, clusterQueue: default}]
                status:
                  forges:
                  - {source: %s, kind: github, api: %s, token: {secret: forge-tokens, key: github}}
                  - {source: %s, kind: gitlab, api: %s, token: {secret: forge-tokens, key: gitlab}}
                  - {source: %s, kind: gitea, api: %s, token: {secret: forge-tokens, key: gitea}}
                  targetUrl: https://grafana.example/d/trainyard?var-namespace={namespace}&var-run={run}
                  progress: {stallAfter: %ds%s}
                """
            .formatted(
                host("github", tag),
                forge.githubApi(),
                host("gitlab", tag),
                forge.gitlabApi(),
                host("gitea", tag),
                forge.giteaApi(),
                tuning.progressStallAfter().toSeconds(),
                tuning.failStalledAfter() == null
                    ? ""
                    : ", failStalledAfter: " + tuning.failStalledAfter().toSeconds() + "s"));
    write(
        config,
        """
                platform: %s
                tokens: %s
                stallAfter: %ds
                resync: %ds
                requestTimeout: 1s
                requeueAfter: 1s
                """
            .formatted(
                dir.resolve("platform.yaml"), tokens, stallAfter.toSeconds(), resync.toSeconds()));
    return launch(cluster, dir, config, leaseNamespace, identity, tuning.maxHeap(), tuning.lease());
  }

  /**
   * A replica for a caller that wrote its own {@code platform} (its {@code status.forges} naming
   * {@code forge-tokens} keys {@code github}, {@code gitlab} and {@code gitea}, as this class's own
   * platform.yaml does): the fake forge's tokens under {@code dir/tokens}, resync 2 s, the
   * production stall threshold (10 m). The sandbox ({@link Sandbox}) uses it.
   */
  static ControllerProcess startWithPlatform(
      KubeCluster cluster, Path dir, Path platform, String leaseNamespace, String identity) {
    Path tokens = dir.resolve("tokens");
    writeTokens(tokens);
    Path config = dir.resolve("controller.yaml");
    write(
        config,
        """
                platform: %s
                tokens: %s
                stallAfter: 10m
                resync: 2s
                requestTimeout: 5s
                requeueAfter: 1s
                """
            .formatted(platform, tokens));
    return launch(cluster, dir, config, leaseNamespace, identity, "128m", LEASE);
  }

  /** The fake forge's tokens laid out as the Deployment mounts Secret {@code forge-tokens}. */
  private static void writeTokens(Path tokens) {
    write(
        LocalCluster.mkdirs(tokens.resolve("forge-tokens")).resolve("github"),
        FakeForge.GITHUB_TOKEN);
    write(tokens.resolve("forge-tokens/gitlab"), FakeForge.GITLAB_TOKEN);
    write(tokens.resolve("forge-tokens/gitea"), FakeForge.GITEA_TOKEN);
  }

  /** Starts ControllerMain with {@code config}; returns once /readyz answers 200. */
  private static ControllerProcess launch(
      KubeCluster cluster,
      Path dir,
      Path config,
      String leaseNamespace,
      String identity,
      String maxHeap,
      Duration lease) {
    int port = LoopbackPorts.free();
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx" + maxHeap,
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            "dev.trainyard.controller.ControllerMain",
            "--config=" + config,
            "--port=" + port,
            "--bind=127.0.0.1",
            "--lease-namespace=" + leaseNamespace,
            "--identity=" + identity,
            "--lease-seconds=" + lease.toSeconds());
    ClusterProcess p =
        ClusterProcess.start(
            "controller-" + identity,
            command,
            Map.of("KUBECONFIG", cluster.kubeconfig().toString()),
            dir);
    ControllerProcess c = new ControllerProcess(p, port);
    Eventually.await(
        "controller " + identity + " ready",
        READY_TIMEOUT,
        () -> {
          p.requireAlive();
          return c.status("/readyz") == 200;
        },
        () -> p.tail(20));
    return c;
  }

  /** Whether this replica holds the Lease (its metrics say trainyard_leader 1.0). */
  boolean leading() {
    return metrics().contains("\ntrainyard_leader 1.0\n");
  }

  /** The Prometheus text of /metrics, "" when it does not answer. */
  String metrics() {
    return scrape(Duration.ofSeconds(2));
  }

  private String scrape(Duration timeout) {
    try {
      return http.send(
              HttpRequest.newBuilder(uri("/metrics")).timeout(timeout).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  int status(String path) {
    try {
      return http.send(
              HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(2)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }

  /** Heap in use (bytes) after a full GC requested with jcmd, read from /metrics. */
  long heapAfterGc() {
    try {
      Process gc =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  Long.toString(process.pid()),
                  "GC.run")
              .redirectErrorStream(true)
              .start();
      gc.getInputStream().readAllBytes();
      gc.waitFor(30, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // A controller near its -Xmx may answer a scrape slower than metrics()' 2 s: ask for a minute.
    long heap = -1;
    for (int attempt = 0; attempt < 3 && heap < 0; attempt++) {
      heap = heapUsed(scrape(Duration.ofSeconds(20)));
    }
    return heap;
  }

  /** {@code trainyard_jvm_heap_used_bytes} of a /metrics text, or -1 when it has none. */
  static long heapUsed(String metrics) {
    return metrics
        .lines()
        .filter(l -> l.startsWith("trainyard_jvm_heap_used_bytes "))
        // The text format writes every value as a double, e.g. 1.23456789E8.
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.indexOf(' ') + 1)))
        .findFirst()
        .orElse(-1);
  }

  String log() {
    return process.tail(400);
  }

  /**
   * Throws {@link ClusterProcess.Exited} (which ends an {@link Eventually} wait at once) when the
   * replica has exited, e.g. after losing its Lease: no later post can come from it.
   */
  void requireAlive() {
    process.requireAlive();
  }

  /** The port of /healthz, /readyz and /metrics on 127.0.0.1. */
  int port() {
    return port;
  }

  /** The controller's process id (its CPU time is read from /proc). */
  long pid() {
    return process.pid();
  }

  /** SIGKILL: no Lease release, no cleanup. */
  void kill() {
    process.kill();
  }

  boolean alive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    process.stop();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private static Path dir(String tag) {
    Path dir =
        Path.of(System.getProperty("trainyard.work.dir", "target/cluster"))
            .toAbsolutePath()
            .resolve("controller")
            .resolve(tag);
    return LocalCluster.mkdirs(dir);
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
