package dev.trainyard.cli;

import dev.trainyard.controller.ClusterAccessException;
import dev.trainyard.controller.ConfigFile;
import dev.trainyard.controller.ObservedRun;
import dev.trainyard.controller.RunLogs;
import dev.trainyard.controller.RunReader;
import dev.trainyard.controller.state.RunStateMapper;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code trainyard logs RUN [--node N] [--all] [-f]}: the run's logs, each line prefixed by its node. */
@Command(
    name = "logs",
    description = {
      "Print a run's logs through your kubeconfig: the launcher (MPI) or node 0 (rank 0) by default, one node with --node N, every pod with --all. Each line is prefixed by its node, e.g. [node-1].",
      "With -f, follow until the followed containers end or the run ends (or --timeout)."
    },
    mixinStandardHelpOptions = true,
    footer = {"", "Exit codes: 0 ok, 1 no such run or node, 2 usage, 3 cluster unreachable, 4 internal error."})
final class LogsCommand implements Callable<Integer> {
  /** Only whether the run ended matters here, which the stall time does not change. */
  private static final Duration STALL = Duration.ofMinutes(10);
  @Spec CommandSpec spec;
  @Mixin ClusterTarget target;

  @Parameters(paramLabel = "RUN", description = "a run name (label trainyard.dev/run) or JobSet name")
  String run;

  @Option(names = "--node", paramLabel = "N", description = "node index (rank) to read")
  Integer node;

  @Option(names = "--all", description = "every pod of the run")
  boolean all;

  @Option(names = {"-f", "--follow"}, description = "stream until the containers end")
  boolean follow;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "24h", description = "longest follow")
  String timeout;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (all && node != null) {
      err.println("trainyard logs: --node and --all exclude each other");
      return 2;
    }
    Duration limit;
    try {
      limit = ConfigFile.parseDuration(timeout);
    } catch (IllegalArgumentException e) {
      err.println("trainyard logs: " + e.getMessage());
      return 2;
    }
    try (RunReader reader = RunReader.connect(Optional.ofNullable(target.kubeconfig), Optional.ofNullable(target.context), Clock.systemUTC())) {
      String ns = target.namespace != null ? target.namespace : reader.defaultNamespace();
      Optional<ObservedRun> found = reader.get(ns, run);
      if (found.isEmpty()) {
        err.println("trainyard logs: run \"" + run + "\" not found in namespace \"" + ns + "\"");
        err.println("  hint: list the runs with `trainyard status -n " + ns + "`");
        return 1;
      }
      RunStateMapper mapper = new RunStateMapper(STALL);
      // The run ended (or its JobSet is gone): -f stops shortly after, even when the log server keeps streams open.
      BooleanSupplier ended = () -> {
        try {
          return reader.get(ns, run).map(r -> mapper.map(r.observation()).phase().terminal()).orElse(true);
        } catch (ClusterAccessException e) {
          return false;
        }
      };
      int pods = new RunLogs(reader, Clock.systemUTC()).print(found.get(), new RunLogs.Selection(all, node), follow, out, limit, ended);
      if (pods == 0) {
        err.println("trainyard logs: run \"" + run + "\" has no " + (node == null ? "" : "node " + node + " ")
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
