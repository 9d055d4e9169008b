package dev.trainyard.cli;

import dev.trainyard.controller.ClusterAccessException;
import dev.trainyard.controller.ObservedRun;
import dev.trainyard.controller.RunLogs;
import dev.trainyard.controller.RunReader;
import dev.trainyard.controller.state.RunStateMapper;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code trainyard logs RUN [--node N] [--all] [-f]}: the run's logs, each line prefixed by its
 * node.
 */
@Command(
    name = "logs",
    header = "Print a run's logs: the MPI launcher or node 0, or every rank.",
    description = {
      "Print a run's logs through your kubeconfig: the launcher (MPI) or node 0 (rank",
      "0) by default, one node with --node N, every pod with --all. Each line is",
      "prefixed by its node, e.g. [node-1].",
      "With -f, follow until the followed containers end or the run ends (or",
      "--timeout)."
    },
    mixinStandardHelpOptions = true,
    footer = {
      "",
      "Without -f, a pod that has not started yet (Pending) is exit 1; with -f, logs",
      "waits for it (one line says so), up to --timeout.",
      "Exit codes: 0 ok, 1 no such run or node, or not started (within --timeout with",
      "-f), 2 usage, 3 cluster, kubelet or API server not answering, 4 internal error."
    })
final class LogsCommand implements Callable<Integer> {
  /** Only whether the run ended matters here, which the stall time does not change. */
  private static final Duration STALL = Duration.ofMinutes(10);

  /** How often {@code -f} checks whether the chosen pod has started. */
  private static final Duration WAIT_POLL = Duration.ofSeconds(1);

  @Spec CommandSpec spec;
  @Mixin ClusterTarget target;

  @Parameters(
      paramLabel = "RUN",
      description = "a run name (label trainyard.dev/run) or JobSet name")
  String run;

  @Option(names = "--node", paramLabel = "N", description = "node index (rank) to read")
  Integer node;

  @Option(names = "--all", description = "every pod of the run")
  boolean all;

  @Option(
      names = {"-f", "--follow"},
      description = "stream until the containers end")
  boolean follow;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "24h",
      description = "longest follow (default: ${DEFAULT-VALUE})")
  String timeout;

  /**
   * With {@code -f}: the run once the chosen pod has started, printing one line while it waits;
   * empty when the deadline passed first. A run that ended, or whose pods exist and have started,
   * returns at once.
   */
  private Optional<ObservedRun> awaitStart(
      RunReader reader,
      String ns,
      RunLogs logs,
      RunLogs.Selection selection,
      BooleanSupplier ended,
      Instant deadline,
      PrintWriter err) {
    boolean said = false;
    while (Instant.now().isBefore(deadline)) {
      Optional<ObservedRun> now = reader.get(ns, run);
      if (now.isEmpty() || ended.getAsBoolean()) {
        return now;
      }
      Optional<String> why = logs.notStarted(now.get(), selection);
      if (why.isEmpty() && logs.hasPods(now.get(), selection)) {
        return now;
      }
      if (!said) {
        err.println(
            "trainyard logs: waiting for "
                + why.map(w -> w.replace(" has not started", " to start"))
                    .orElse("the run's pods to be created")
                + " (up to --timeout "
                + timeout
                + ")");
        err.flush();
        said = true;
      }
      try {
        Thread.sleep(WAIT_POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (all && node != null) {
      throw new ParameterException(spec.commandLine(), "--node and --all exclude each other");
    }
    if (node != null && node < 0) {
      throw new ParameterException(
          spec.commandLine(), "--node must be a node index, 0 or more, got " + node);
    }
    Duration limit = DurationFlag.parse(spec, "--timeout", timeout);
    try (RunReader reader =
        RunReader.connect(
            Optional.ofNullable(target.kubeconfig),
            Optional.ofNullable(target.context),
            Clock.systemUTC())) {
      String ns = target.namespace != null ? target.namespace : reader.defaultNamespace();
      Optional<ObservedRun> found = reader.get(ns, run);
      if (found.isEmpty()) {
        err.println("trainyard logs: run \"" + run + "\" not found in namespace \"" + ns + "\"");
        err.println("  hint: list the runs with `trainyard status -n " + ns + "`");
        return 1;
      }
      RunStateMapper mapper = new RunStateMapper(STALL);
      // The run ended (or its JobSet is gone): -f stops shortly after, even when the log server
      // keeps streams open.
      BooleanSupplier ended =
          () -> {
            try {
              return reader
                  .get(ns, run)
                  .map(r -> mapper.map(r.observation()).phase().terminal())
                  .orElse(true);
            } catch (ClusterAccessException e) {
              return false;
            }
          };
      RunLogs logs = new RunLogs(reader, Clock.systemUTC());
      RunLogs.Selection selection = new RunLogs.Selection(all, node);
      Instant deadline = Instant.now().plus(limit);
      Optional<ObservedRun> started =
          follow
              ? awaitStart(reader, ns, logs, selection, ended, deadline, err)
              : found.filter(r -> logs.notStarted(r, selection).isEmpty() || all);
      if (started.isEmpty()) {
        String why =
            reader
                .get(ns, run)
                .flatMap(r -> logs.notStarted(r, selection))
                .orElse("the run has not started");
        err.println("trainyard logs: " + why + (follow ? " after --timeout " + timeout : ""));
        err.println(
            "  hint: `trainyard status "
                + run
                + "` shows what it waits for; `logs -f` waits for it");
        return 1;
      }
      int pods =
          logs.print(
              started.get(),
              selection,
              follow,
              out,
              Duration.between(Instant.now(), deadline),
              ended);
      if (logs.failure().isPresent()) {
        err.println("trainyard logs: cannot read the logs of " + logs.failure().get());
        err.println(
            "  hint: the node's kubelet or the API server did not answer; try again, or ask your platform team");
        return Main.EXIT_ENVIRONMENT;
      }
      if (pods == 0 && node != null) {
        List<String> nodes =
            logs.labels(started.get()).stream().filter(l -> l.matches("node-\\d+")).toList();
        err.println(
            "trainyard logs: run \""
                + run
                + "\" has no node "
                + node
                + (nodes.isEmpty()
                    ? " (no node pods yet)"
                    : "; the run has nodes 0–"
                        + nodes.get(nodes.size() - 1).substring("node-".length())));
        return 1;
      }
      if (pods == 0) {
        err.println(
            "trainyard logs: run \""
                + run
                + "\" has no "
                + (node == null ? "" : "node " + node + " ")
                + "pod in its current attempt");
        err.println("  hint: `trainyard status " + run + "` shows whether it has started");
        return 1;
      }
      return 0;
    } catch (ClusterAccessException e) {
      err.println("trainyard logs: " + e.getMessage());
      err.println("  hint: " + e.hint());
      return Main.EXIT_ENVIRONMENT;
    }
  }
}
