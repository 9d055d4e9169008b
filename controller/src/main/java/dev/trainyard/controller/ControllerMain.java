package dev.trainyard.controller;

import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.cluster.ClusterDryRun;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The controller process: {@code java -cp ... dev.trainyard.controller.ControllerMain
 * --config=/etc/trainyard/controller/controller.yaml}. The Kubernetes connection is the one {@code
 * trainyard validate --cluster} uses ({@link ClusterDryRun#clientConfig}): {@code --kubeconfig},
 * else {@code $KUBECONFIG}, else ~/.kube/config, else the in-cluster service account; a broken
 * kubeconfig is a one-line {@code file:line:col} error, never its text. Exit codes: 0 stopped
 * (SIGTERM or leadership lost), 1 configuration mistake, 2 usage (an unknown option, a port outside
 * 0..65535, a lease under 1 s), 3 environment (the cluster unreachable, the port taken). Each is
 * one line on stderr starting with {@code trainyard-controller:}, never a stack trace.
 */
@Command(
    name = "trainyard-controller",
    mixinStandardHelpOptions = true,
    version = "trainyard-controller " + Compiler.VERSION,
    description =
        "Posts each Trainyard run's state as a commit status (or, with a GitHub App, a check run)"
            + " on its source commit.")
public final class ControllerMain implements Callable<Integer> {

  private static final Duration SHUTDOWN = Duration.ofSeconds(10);

  @Spec CommandSpec spec;

  @Option(
      names = "--config",
      description = "controller YAML (env TRAINYARD_CONTROLLER_CONFIG)",
      defaultValue =
          "${env:TRAINYARD_CONTROLLER_CONFIG:-/etc/trainyard/controller/controller.yaml}")
  Path config;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "kubeconfig to use outside a pod (default: $KUBECONFIG, else ~/.kube/config, else the pod's"
              + " service account)")
  Path kubeconfig;

  @Option(
      names = "--port",
      description = "health and metrics port; overrides the file",
      defaultValue = "-1")
  int port;

  @Option(
      names = "--bind",
      description =
          "address to listen on (default: ${DEFAULT-VALUE}; in a pod the Deployment passes the pod's own IP)",
      defaultValue = "127.0.0.1")
  String bind;

  @Option(
      names = "--leader-election",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description = "campaign for a Lease; only the leader posts")
  boolean leaderElection;

  @Option(
      names = "--lease-namespace",
      defaultValue = "${env:POD_NAMESPACE:-trainyard-system}",
      description =
          "namespace of the Lease (default: $POD_NAMESPACE, else ${DEFAULT-VALUE}); it must exist and"
              + " the controller needs create/update on leases there")
  String leaseNamespace;

  @Option(
      names = "--lease-name",
      defaultValue = "trainyard-controller",
      description =
          "name of the coordination.k8s.io Lease the replicas share (default: ${DEFAULT-VALUE})")
  String leaseName;

  @Option(
      names = "--identity",
      defaultValue = "${env:POD_NAME:-${env:HOSTNAME:-trainyard-controller}}",
      description =
          "this replica's name in the Lease, unique per replica (default: $POD_NAME, else $HOSTNAME;"
              + " now ${DEFAULT-VALUE})")
  String identity;

  @Option(
      names = "--lease-seconds",
      defaultValue = "15",
      description = "lease duration; renew within 2/3, retry every 1/7")
  int leaseSeconds;

  /** The JDK's property for {@link SimpleFormatter}'s format. */
  static final String LOG_FORMAT_PROPERTY = "java.util.logging.SimpleFormatter.format";

  /** One line a record: time, level, message (and a stack trace only for a bug). */
  static final String LOG_FORMAT = "%1$tFT%1$tT%1$tz %4$s %5$s%6$s%n";

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** The process without its exit: one-line logs, then the command; returns the exit code. */
  static int execute(String... args) {
    oneLineLogs();
    return commandLine().execute(args);
  }

  /**
   * Log records on one line each. The JDK's default {@link SimpleFormatter} writes two per record
   * (the time and the logging method, then the level and the message), which log collectors split
   * into two events; an operator's own {@code -Djava.util.logging.SimpleFormatter.format} is kept.
   */
  static void oneLineLogs() {
    if (System.getProperty(LOG_FORMAT_PROPERTY) == null) {
      System.setProperty(LOG_FORMAT_PROPERTY, LOG_FORMAT);
    }
    for (Handler h : Logger.getLogger("").getHandlers()) {
      if (h.getFormatter() instanceof SimpleFormatter) {
        h.setFormatter(new SimpleFormatter());
      }
    }
  }

  /**
   * The command, with usage errors printed as one line {@code trainyard-controller: <error>} and
   * one pointing at {@code --help} (exit 2), not the whole help.
   */
  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new ControllerMain());
    cl.setParameterExceptionHandler(
        (e, args) -> {
          PrintWriter err = e.getCommandLine().getErr();
          err.println("trainyard-controller: " + e.getMessage());
          err.println("  try: trainyard-controller --help");
          err.flush();
          return 2;
        });
    return cl;
  }

  @Override
  public Integer call() throws InterruptedException {
    if (port < -1 || port > 65535) {
      throw new ParameterException(
          spec.commandLine(), "--port must be 0 to 65535 (0: any free port), got " + port);
    }
    if (leaderElection && leaseSeconds < 1) {
      throw new ParameterException(
          spec.commandLine(), "--lease-seconds must be at least 1, got " + leaseSeconds);
    }
    ControllerConfig cfg;
    try {
      cfg = ConfigFile.read(config);
    } catch (ConfigException e) {
      System.err.println("trainyard-controller: " + e.getMessage());
      return 1;
    }
    if (cfg.forges().isEmpty()) {
      System.err.println(
          "trainyard-controller: warning: platform.yaml has no status.forges, so no commit status"
              + " will be posted; add `status: {forges: [{source: github.com, kind: github, api: ..., token: ...}]}`");
    }
    return run(configure(cfg));
  }

  /**
   * {@code cfg} with the command line's overrides: the port when given, the Lease unless
   * --no-leader-election.
   */
  ControllerConfig configure(ControllerConfig cfg) {
    ControllerConfig out = port >= 0 ? cfg.withPort(port) : cfg;
    return leaderElection
        ? out.withElection(
            LeaseElection.Settings.scaled(
                leaseNamespace, leaseName, identity, Duration.ofSeconds(leaseSeconds)))
        : out;
  }

  private int run(ControllerConfig cfg) throws InterruptedException {
    Config kube;
    try {
      kube = ClusterDryRun.clientConfig(Optional.ofNullable(kubeconfig), Optional.empty());
    } catch (ClusterDryRun.ClusterUnavailableException e) {
      System.err.println("trainyard-controller: " + e.getMessage());
      return 3;
    }
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    // On SIGTERM the hook lets main close the controller (releasing the Lease) before the JVM
    // halts.
    Runtime.getRuntime().addShutdownHook(new Thread(onShutdown(stop, closed)));
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(kube).build()) {
      client.getKubernetesVersion();
      try (Controller controller =
          new Controller(client, cfg, Clock.systemUTC(), bind, onLostLease(cfg.election(), stop))) {
        controller.start();
        System.err.println(
            "trainyard-controller: serving on port "
                + controller.port()
                + " as "
                + identity
                + ", forges "
                + cfg.forges().stream().map(f -> f.prefix()).sorted().toList());
        stop.await();
      }
    } catch (KubernetesClientException e) {
      System.err.println(
          "trainyard-controller: "
              + ClusterErrors.of(e, kube.getMasterUrl(), "start").getMessage());
      return 3;
    } catch (ClusterAccessException e) {
      System.err.println("trainyard-controller: " + e.getMessage() + "\n  hint: " + e.hint());
      return 3;
    } catch (UncheckedIOException e) {
      // The health server's port: taken (another controller on this machine), or an address this
      // host does not have.
      System.err.println(
          "trainyard-controller: " + e.getMessage() + "; pass --port N (0: any free port)");
      return 3;
    } finally {
      closed.countDown();
    }
    return 0;
  }

  /**
   * What a replica under leader election does when its Lease is lost (not renewed within the renew
   * deadline, or taken by another replica; without election, {@code lease} null, it never runs):
   * one line saying so, then {@code stop}, so the process exits 0 and its Deployment starts a fresh
   * replica, as a controller-runtime manager does on "leader election lost". A stale leader must
   * never post, and without the line the exit would look like a clean stop.
   */
  static Runnable onLostLease(LeaseElection.Settings lease, CountDownLatch stop) {
    return () -> {
      System.err.println(
          "trainyard-controller: lost the Lease "
              + lease.namespace()
              + "/"
              + lease.leaseName()
              + " (another replica holds it, or it was not renewed within "
              + lease.renewDeadline().toMillis()
              + " ms); stopping, so that only the Lease holder posts");
      stop.countDown();
    };
  }

  /**
   * The shutdown hook's work: tell {@code run} to stop, then hold the JVM until the controller is
   * {@code closed} (its Lease released), at most {@link #SHUTDOWN}.
   */
  static Runnable onShutdown(CountDownLatch stop, CountDownLatch closed) {
    return () -> {
      stop.countDown();
      await(closed, SHUTDOWN);
    };
  }

  private static void await(CountDownLatch latch, Duration limit) {
    try {
      latch.await(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
