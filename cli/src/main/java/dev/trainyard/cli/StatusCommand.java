package dev.trainyard.cli;

import dev.trainyard.controller.ClusterAccessException;
import dev.trainyard.controller.ConfigException;
import dev.trainyard.controller.ConfigFile;
import dev.trainyard.controller.ObservedRun;
import dev.trainyard.controller.PlatformFile;
import dev.trainyard.controller.RunKey;
import dev.trainyard.controller.RunReader;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.Resumed;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.RunStateMapper;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code trainyard status [RUN] [-w] [--output json]}: runs and their state, as the PR check shows
 * them.
 */
@Command(
    name = "status",
    header = "Show runs: state, queue, nodes ready, attempt, progress, ETA, age and commit.",
    description = {
      "Show runs: state, queue, nodes ready, attempt, progress and ETA (read once from",
      "rank 0's log, as the controller reads it), age, source commit and the same",
      "description the commit status on the source commit carries (one state mapping",
      "for both). With RUN, its last metrics follow the table; --output json carries",
      "them as progress.metrics.",
      "With -w, redraw on every change; with RUN, stop when the run has ended, and wait",
      "--appear-timeout for a run not in the cluster yet (just submitted).",
      "A run is stalled when it was admitted longer ago than --stall-after without all",
      "its nodes ready, or when it runs and its progress and log stood still for",
      "status.progress.stallAfter (30m); give the platform team's platform.yaml with",
      "--platform to use its status settings, as the controller does."
    },
    mixinStandardHelpOptions = true,
    footer = {
      "",
      "Exit codes: 0 ok (with RUN -w: the run succeeded), 1 no such run or a --platform",
      "that does not load (with RUN -w: the run failed), 2 usage, 3 cluster unreachable",
      "(with RUN -w: --timeout passed first), 4 internal error."
    })
final class StatusCommand implements Callable<Integer> {
  enum Format {
    table,
    json
  }

  @Spec CommandSpec spec;
  @Mixin ClusterTarget target;

  @Parameters(
      arity = "0..1",
      paramLabel = "RUN",
      description = "a run name (label trainyard.dev/run) or JobSet name")
  String run;

  @Option(
      names = {"-w", "--watch"},
      description = "redraw on change until RUN ends (or --timeout)")
  boolean watch;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "table (default) or json")
  Format output = Format.table;

  @Option(
      names = {"-A", "--all-namespaces"},
      description = "runs of every namespace")
  boolean allNamespaces;

  @Option(
      names = "--stall-after",
      paramLabel = "DURATION",
      description =
          "an admitted run not started after this is reported stalled (default: --platform's status.stallAfter, else 10m)")
  String stallAfter;

  @Option(
      names = "--platform",
      paramLabel = "FILE",
      description =
          "platform.yaml whose status.stallAfter the controller uses, so both call the same runs stalled")
  Path platform;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      defaultValue = "2s",
      description = "watch poll interval (default: ${DEFAULT-VALUE})")
  String interval;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "24h",
      description = "longest watch (default: ${DEFAULT-VALUE})")
  String timeout;

  @Option(
      names = "--appear-timeout",
      paramLabel = "DURATION",
      defaultValue = "10m",
      description =
          "with RUN -w: how long to wait for a run that is not in the cluster yet (a submit"
              + " reaches it at Flux's or Argo CD's next sync; default: ${DEFAULT-VALUE})")
  String appearTimeout;

  Clock clock = Clock.systemUTC();

  /**
   * {@code status RUN -w} reached --timeout before the run ended: as kubectl wait, not a success.
   */
  static final int EXIT_TIMEOUT = 3;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Duration stall;
    Duration progressStall;
    RunStateMapper.Limits limits;
    Duration every;
    Duration limit;
    Duration appear;
    try {
      stall = stallAfter();
      progressStall = progressStallAfter();
      limits = limits();
      every = DurationFlag.parse(spec, "--interval", interval);
      limit = DurationFlag.parse(spec, "--timeout", timeout);
      appear = DurationFlag.parse(spec, "--appear-timeout", appearTimeout);
    } catch (ConfigException e) {
      err.println(e.getMessage());
      return 1;
    }
    try (RunReader reader =
        RunReader.connect(
            Optional.ofNullable(target.kubeconfig), Optional.ofNullable(target.context), clock)) {
      String ns =
          allNamespaces
              ? null
              : target.namespace != null ? target.namespace : reader.defaultNamespace();
      return loop(
          reader,
          ns,
          new RunStateMapper(stall, progressStall, limits),
          every,
          clock.instant().plus(limit),
          clock.instant().plus(appear.compareTo(limit) < 0 ? appear : limit),
          out,
          err);
    } catch (ClusterAccessException e) {
      err.println("trainyard status: " + e.getMessage());
      err.println("  hint: " + e.hint());
      err.flush();
      if (output == Format.json) {
        Reporting.jsonError(spec, e.getMessage(), e.hint(), Main.EXIT_ENVIRONMENT);
      }
      return Main.EXIT_ENVIRONMENT;
    }
  }

  /**
   * When a run is stalled: {@code --stall-after}, else {@code --platform}'s {@code
   * status.stallAfter} (what the controller uses), else {@link ConfigFile#DEFAULT_STALL_AFTER}.
   *
   * @throws picocli.CommandLine.ParameterException {@code --stall-after} is not a duration (usage,
   *     exit 2)
   * @throws ConfigException {@code --platform} does not load, as its diagnostics (input, exit 1)
   */
  Duration stallAfter() throws ConfigException {
    if (stallAfter != null) {
      return DurationFlag.parse(spec, "--stall-after", stallAfter);
    }
    return platform == null
        ? ConfigFile.DEFAULT_STALL_AFTER
        : PlatformFile.load(platform).status().stallAfter().orElse(ConfigFile.DEFAULT_STALL_AFTER);
  }

  /** How long a watch reuses a run's progress before it reads rank 0's log again. */
  static final Duration PROGRESS_REFRESH = Duration.ofSeconds(30);

  private record Read(Instant at, Optional<Progress> progress, Optional<Resumed> resumed) {}

  private final Map<RunKey, Read> progressRead = new HashMap<>();

  /** A finished run's rank 0 log, read once per run (a watch does not read it again). */
  private final Map<RunKey, RunObservation> endRead = new HashMap<>();

  /**
   * {@code r} with its progress when it is RUNNING: rank 0's log read once ({@link
   * RunReader#progress}), in a watch again after {@link #PROGRESS_REFRESH}; the same mapping as the
   * controller's then shows it. {@code status RUN} of a run that SUCCEEDED reads rank 0's log too
   * ({@link RunReader#withRankZeroLog}): "did it train?" as on the commit.
   */
  private ObservedRun withProgress(RunReader reader, ObservedRun r, RunStateMapper mapper) {
    Phase phase = mapper.map(r.observation()).phase();
    if (phase == Phase.SUCCEEDED && run != null) {
      // One run asked for: did it train? Rank 0's log read once, as the controller reads it.
      RunObservation read = endRead.computeIfAbsent(r.key(), k -> reader.withRankZeroLog(r));
      return new ObservedRun(
          r.key(),
          r.provenance(),
          r.observation().withProgress(read.progress()).withSigns(read.signs()));
    }
    if (phase != Phase.RUNNING) {
      return r;
    }
    Instant now = clock.instant();
    Read read = progressRead.get(r.key());
    if (read == null || !now.isBefore(read.at().plus(PROGRESS_REFRESH))) {
      read = new Read(now, reader.progress(r), reader.resumed(r));
      progressRead.put(r.key(), read);
    }
    return new ObservedRun(
        r.key(),
        r.provenance(),
        r.observation().withProgress(read.progress()).withResumed(read.resumed()));
  }

  /**
   * When a running run is stalled: {@code --platform}'s {@code status.progress.stallAfter} (the
   * controller's), else 30 minutes.
   *
   * @throws ConfigException {@code --platform} does not load, as its diagnostics (input, exit 1)
   */
  Duration progressStallAfter() throws ConfigException {
    return platform == null
        ? RunStateMapper.DEFAULT_PROGRESS_STALL
        : PlatformFile.load(platform).status().progress().stallAfter();
  }

  /**
   * What {@code --platform}'s {@code status.progress} makes a failure (untrained,
   * failStalledAfter), as the controller reads it; none without {@code --platform}.
   *
   * @throws ConfigException {@code --platform} does not load, as its diagnostics (input, exit 1)
   */
  RunStateMapper.Limits limits() throws ConfigException {
    if (platform == null) {
      return RunStateMapper.Limits.NONE;
    }
    var p = PlatformFile.load(platform).status().progress();
    return new RunStateMapper.Limits(p.failUntrained(), p.failStalledAfter().orElse(null));
  }

  /** The runs named {@link #run} (run label or JobSet name), at most one per namespace. */
  private List<ObservedRun> named(List<ObservedRun> all) {
    return all.stream()
        .filter(r -> r.provenance().run().equals(run) || r.key().name().equals(run))
        .collect(Collectors.toMap(r -> r.key().namespace(), r -> r, (a, b) -> a, TreeMap::new))
        .values()
        .stream()
        .toList();
  }

  private int loop(
      RunReader reader,
      String ns,
      RunStateMapper mapper,
      Duration every,
      Instant deadline,
      Instant appearBy,
      PrintWriter out,
      PrintWriter err)
      throws InterruptedException {
    String last = null;
    boolean waitingToAppear = false;
    while (true) {
      List<ObservedRun> runs = run == null ? reader.list(ns) : named(reader.list(ns));
      List<String> namespaces =
          runs.stream().map(r -> r.key().namespace()).distinct().sorted().toList();
      if (run != null && namespaces.size() > 1) {
        err.println(
            "trainyard status: run \""
                + run
                + "\" is in "
                + namespaces.size()
                + " namespaces: "
                + String.join(", ", namespaces));
        err.println(
            "  hint: pick one with `trainyard status " + run + " -n " + namespaces.get(0) + "`");
        return 1;
      }
      if (run == null && runs.isEmpty() && last == null && ns != null) {
        err.println("trainyard status: no runs in namespace \"" + ns + "\" (or it does not exist)");
        err.println("  hint: `trainyard status -A` lists the runs of every namespace");
      }
      if (run != null && runs.isEmpty() && watch && clock.instant().isBefore(appearBy)) {
        if (!waitingToAppear) {
          err.println(
              "trainyard status: run \""
                  + run
                  + "\" is not in namespace \""
                  + (ns == null ? "*" : ns)
                  + "\" yet; waiting up to "
                  + appearTimeout
                  + " for it to appear (a submit reaches the cluster at the GitOps tool's next"
                  + " sync)");
          err.flush();
          waitingToAppear = true;
        }
        Thread.sleep(every.toMillis());
        continue;
      }
      if (run != null && runs.isEmpty()) {
        err.println(
            "trainyard status: run \""
                + run
                + "\" not found in namespace \""
                + (ns == null ? "*" : ns)
                + "\""
                + (waitingToAppear ? " within --appear-timeout " + appearTimeout : ""));
        err.println(
            "  hint: list the runs with `trainyard status"
                + (ns == null ? " -A" : " -n " + ns)
                + "`");
        return 1;
      }
      List<StatusTable.Row> rows =
          runs.stream()
              .map(r -> withProgress(reader, r, mapper))
              .map(r -> new StatusTable.Row(r, mapper.map(r.observation())))
              .toList();
      // The JSON has no age, so a ticking AGE column alone does not redraw the table.
      String state = StatusTable.json(rows);
      if (!state.equals(last)) {
        String text =
            output == Format.json
                ? state
                : StatusTable.table(rows, clock.instant(), ns == null)
                    + (run == null ? "" : StatusTable.metrics(rows.get(0)));
        out.print(last == null || output == Format.json ? text : "\n" + text);
        out.flush();
        last = state;
      }
      boolean ended = run != null && rows.get(0).state().phase().terminal();
      if (!watch) {
        return 0;
      }
      if (ended) {
        return rows.get(0).state().phase() == Phase.SUCCEEDED ? 0 : 1;
      }
      if (!clock.instant().isBefore(deadline)) {
        err.println(
            "trainyard status: --timeout "
                + timeout
                + " passed before "
                + (run == null ? "the watch ended" : "run \"" + run + "\" ended"));
        return run == null ? 0 : EXIT_TIMEOUT;
      }
      Thread.sleep(every.toMillis());
    }
  }
}
