package dev.trainyard.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.LogWatch;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The logs of a run's pods for {@code trainyard logs}: by default the launcher (an MPI run) or node
 * 0 (rank 0), one node with {@code --node N}, or every pod with {@code --all}; pods of the current
 * attempt only. Every line is prefixed with the pod's node label, e.g. {@code [node-1] step 10 loss
 * 2.31}; a pod not scheduled yet prints {@code [node-1] (no logs yet: pod P is not scheduled on a
 * node)}, and a log the API server refuses prints {@code [node-1] (no logs: <the API server's
 * message>)}. Following ends when every followed container has ended, shortly after the run ended,
 * or after the timeout.
 */
public final class RunLogs {

  /** Which pods: {@code all}, or {@code node} (null: launcher, else node 0). */
  public record Selection(boolean all, Integer node) {}

  static final String RJOB = "jobset.sigs.k8s.io/replicatedjob-name";
  static final String JOB_INDEX = "jobset.sigs.k8s.io/job-index";
  static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

  /** How long after the run ended a follow keeps reading, for the last lines in flight. */
  static final Duration GRACE = Duration.ofSeconds(2);

  /** How often a follow checks whether the run ended. */
  static final Duration POLL = Duration.ofSeconds(1);

  private final RunReader reader;
  private final Clock clock;

  /**
   * The first stream that failed other than by being closed: why, in one line; "" when none did.
   */
  private volatile String failure = "";

  public RunLogs(RunReader reader, Clock clock) {
    this.reader = reader;
    this.clock = clock;
  }

  /**
   * The pods {@code selection} names among {@code pods} of attempt {@code attempt}, in label order.
   */
  public static List<Pod> choose(List<Pod> pods, int attempt, Selection selection) {
    List<Pod> current =
        pods.stream()
            .filter(p -> Snapshots.integer(labels(p).get(Snapshots.RESTART_ATTEMPT), 0) == attempt)
            .sorted(Comparator.comparing(RunLogs::label, RunLogs::byIndex))
            .toList();
    if (selection.all()) {
      return current;
    }
    if (selection.node() == null) {
      Optional<Pod> launcher =
          current.stream().filter(p -> "launcher".equals(labels(p).get(RJOB))).findFirst();
      if (launcher.isPresent()) {
        return List.of(launcher.get());
      }
    }
    String wanted = "node-" + (selection.node() == null ? 0 : selection.node());
    return current.stream().filter(p -> label(p).equals(wanted)).toList();
  }

  /**
   * "launcher", "node-N" (replicated job "node", N the rank: job index × pods per job + completion
   * index is not needed as Trainyard runs one node Job), else "RJOB-JOBINDEX-COMPLETIONINDEX".
   */
  public static String label(Pod pod) {
    Map<String, String> l = labels(pod);
    Map<String, String> a =
        pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations();
    String rjob = l.getOrDefault(RJOB, "pod");
    String completion = a.getOrDefault(COMPLETION_INDEX, l.getOrDefault(COMPLETION_INDEX, "0"));
    if ("launcher".equals(rjob)) {
      return "launcher";
    }
    if ("node".equals(rjob) && "0".equals(l.getOrDefault(JOB_INDEX, "0"))) {
      return "node-" + completion;
    }
    return rjob + "-" + l.getOrDefault(JOB_INDEX, "0") + "-" + completion;
  }

  /**
   * Prints the chosen pods' logs to {@code out}, each line prefixed; returns the number of pods
   * read. With {@code follow}, streams until {@link FollowEnd} says stop: the streams ended, the
   * run ended {@link #GRACE} ago ({@code runEnded} polled every {@link #POLL}), or {@code timeout}
   * passed.
   */
  public int print(
      ObservedRun run,
      Selection selection,
      boolean follow,
      PrintWriter out,
      Duration timeout,
      BooleanSupplier runEnded) {
    List<Pod> pods =
        choose(reader.podsOf(run.key()), run.observation().jobSet().restarts(), selection);
    if (!follow) {
      // One pod after the other, in index order: the output of `logs --all` reads node by node.
      pods.forEach(pod -> stream(pod, false, out, new ArrayList<>(), new AtomicBoolean()));
      return pods.size();
    }
    ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, pods.size()));
    List<LogWatch> watches = new CopyOnWriteArrayList<>();
    AtomicBoolean stopping = new AtomicBoolean();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (Pod pod : pods) {
        futures.add(threads.submit(() -> stream(pod, follow, out, watches, stopping)));
      }
      threads.shutdown();
      FollowEnd end = new FollowEnd(clock.instant().plus(timeout), follow ? GRACE : Duration.ZERO);
      Optional<Instant> endedAt = Optional.empty();
      while (!end.stop(futures.stream().allMatch(Future::isDone), endedAt, clock.instant())) {
        if (endedAt.isEmpty() && follow && runEnded.getAsBoolean()) {
          endedAt = Optional.of(clock.instant());
        }
        threads.awaitTermination(POLL.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stopping.set(true);
      watches.forEach(LogWatch::close);
      threads.shutdownNow();
    }
    return pods.size();
  }

  /**
   * Why the chosen pods of {@code run} give no log yet, e.g. "node-0 has not started
   * (ContainerCreating)" or "node-0 has not started (Pending)"; empty when each has started (or
   * none is chosen: no such pod).
   */
  public Optional<String> notStarted(ObservedRun run, Selection selection) {
    return choose(reader.podsOf(run.key()), run.observation().jobSet().restarts(), selection)
        .stream()
        .filter(
            p ->
                p.getStatus() == null
                    || "Pending".equals(p.getStatus().getPhase())
                    || p.getStatus().getPhase() == null)
        .findFirst()
        .map(p -> label(p) + " has not started (" + waitingReason(p) + ")");
  }

  /** Labels in index order: "launcher", "node-2" before "node-10" (numbers compare as numbers). */
  static int byIndex(String a, String b) {
    String[] x = a.split("(?<=\\D)(?=\\d)|(?<=\\d)(?=\\D)");
    String[] y = b.split("(?<=\\D)(?=\\d)|(?<=\\d)(?=\\D)");
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      boolean numbers =
          x[i].chars().allMatch(Character::isDigit) && y[i].chars().allMatch(Character::isDigit);
      int c =
          numbers ? Long.compare(Long.parseLong(x[i]), Long.parseLong(y[i])) : x[i].compareTo(y[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(x.length, y.length);
  }

  /**
   * The node labels of {@code run}'s current attempt in index order, e.g. [launcher, node-0,
   * node-1].
   */
  public List<String> labels(ObservedRun run) {
    return choose(
            reader.podsOf(run.key()),
            run.observation().jobSet().restarts(),
            new Selection(true, null))
        .stream()
        .map(RunLogs::label)
        .toList();
  }

  /** Whether {@code selection} names any pod of {@code run}'s current attempt. */
  public boolean hasPods(ObservedRun run, Selection selection) {
    return !choose(reader.podsOf(run.key()), run.observation().jobSet().restarts(), selection)
        .isEmpty();
  }

  /** The main container's waiting reason (ContainerCreating, ImagePullBackOff), else "Pending". */
  private static String waitingReason(Pod p) {
    return p.getStatus() == null || p.getStatus().getContainerStatuses() == null
        ? "Pending"
        : p.getStatus().getContainerStatuses().stream()
            .filter(c -> c.getState() != null && c.getState().getWaiting() != null)
            .map(c -> c.getState().getWaiting().getReason())
            .filter(r -> r != null && !r.isBlank())
            .findFirst()
            .orElse("Pending");
  }

  /**
   * Why a log stream of the last {@link #print} got no answer (connection failed, or the API
   * server's 5xx when it cannot reach the kubelet); empty when none did. A 4xx (container not
   * started) is only its pod's line.
   */
  public Optional<String> failure() {
    return failure.isEmpty() ? Optional.empty() : Optional.of(failure);
  }

  /**
   * One line for a failed log read: the server's message, else why it did not answer; never a stack
   * dump.
   */
  /** The query of -f's first read, as the API server passes it on to the kubelet. */
  static final String PROBE = "limitBytes=1";

  static String reason(Exception e, String server) {
    if (e instanceof KubernetesClientException k && k.getCode() > 0) {
      String said =
          k.getStatus() == null || k.getStatus().getMessage() == null
              ? "HTTP " + k.getCode()
              : k.getStatus().getMessage();
      // -f's one-byte probe (below) is in the kubelet URL the API server quotes; it is ours, not
      // the reader's to see.
      return said.lines()
          .findFirst()
          .orElse("HTTP " + k.getCode())
          .replace("?" + PROBE + "\"", "\"");
    }
    return ClusterErrors.unreachable(e, server);
  }

  private void stream(
      Pod pod, boolean follow, PrintWriter out, List<LogWatch> watches, AtomicBoolean stopping) {
    String prefix = "[" + label(pod) + "] ";
    if (unscheduled(pod)) {
      // The API server answers an empty log for a pod without a node (no kubelet to ask): say why.
      prefixed(
          prefix,
          "(no logs yet: pod " + pod.getMetadata().getName() + " is not scheduled on a node)",
          out);
      return;
    }
    var resource =
        reader
            .client()
            .pods()
            .inNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName())
            .inContainer(pod.getSpec().getContainers().get(0).getName());
    try {
      if (!follow) {
        prefixed(prefix, resource.getLog(), out);
        return;
      }
      // A followed stream hands the API server's refusal (unknown node, pod gone) over as log text,
      // a
      // Status JSON; one byte asked for first turns that refusal into an exception.
      resource.limitBytes(1).getLog();
      LogWatch watch = resource.watchLog();
      watches.add(watch);
      try (BufferedReader lines =
          new BufferedReader(new InputStreamReader(watch.getOutput(), StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          synchronized (out) {
            out.println(prefix + line);
            out.flush();
          }
        }
      }
    } catch (KubernetesClientException | IOException e) {
      // Closing the streams when following stops ends their reads with an exception: not a missing
      // log.
      if (!stopping.get()) {
        String why = reason(e, reader.server());
        boolean unanswered =
            !(e instanceof KubernetesClientException k) || k.getCode() == 0 || k.getCode() >= 500;
        if (unanswered
            && failure
                .isEmpty()) { // a 4xx is the pod's state, said on its line; no answer is exit 3
          failure = label(pod) + ": " + why;
        }
        prefixed(prefix, "(no logs: " + why + ")", out);
      }
    }
  }

  /** Whether {@code pod} is bound to no node yet (then no kubelet holds a log of it). */
  static boolean unscheduled(Pod pod) {
    return pod.getSpec().getNodeName() == null || pod.getSpec().getNodeName().isEmpty();
  }

  /**
   * {@code text} line by line, each line with {@code prefix}; a final newline adds no empty line.
   */
  static void prefixed(String prefix, String text, PrintWriter out) {
    if (text == null || text.isEmpty()) {
      return;
    }
    String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    synchronized (out) {
      for (String line : body.split("\n", -1)) {
        out.println(prefix + line);
      }
      out.flush();
    }
  }

  private static Map<String, String> labels(Pod p) {
    return p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
  }
}
