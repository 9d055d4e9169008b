package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.forge.TestTime;
import dev.trainyard.controller.state.ContainerSnapshot;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.Resumed;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.TrainingSigns;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The follower's bookkeeping (which pod, when to start and stop, budgets) and its sink on recorded
 * trainer output; the streams themselves are the API server's in {@code ProgressIT}.
 */
class LogFollowerTest {

  static final Instant T0 = Instant.parse("2026-12-02T08:00:00Z");
  static final RunKey KEY = new RunKey("team-a", "llama");
  final TestTime time = new TestTime(T0);
  final List<RunKey> enqueued = new ArrayList<>();

  /** Streams recorded: what was opened, and whether it was closed. */
  static final class Opened {
    final List<String> opened = new ArrayList<>();
    final List<String> closed = new ArrayList<>();
    final List<OutputStream> sinks = new ArrayList<>();
    final CountDownLatch first = new CountDownLatch(1);

    /** Waits at most 10 s for {@code n} opened streams. */
    synchronized void awaitOpened(int n) throws InterruptedException {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (opened.size() < n && System.nanoTime() < end) {
        wait(100);
      }
      assertEquals(n, opened.size(), opened.toString());
    }

    /** Whether the streams opened from now on say the server ended them. */
    volatile boolean ending;

    /** Opening throws as the API server's refusal does. */
    volatile boolean refusing;

    /** Waits at most 10 s for {@code n} closed streams (closing is asynchronous). */
    synchronized void awaitClosed(int n) throws InterruptedException {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (closed.size() < n && System.nanoTime() < end) {
        wait(100);
      }
    }

    synchronized LogFollower.Stream open(
        String ns, String pod, String c, int tail, OutputStream to) {
      String what = ns + "/" + pod + "/" + c + " tail " + tail;
      opened.add(what);
      sinks.add(to);
      first.countDown();
      notifyAll();
      if (refusing) {
        throw new KubernetesClientException("forbidden");
      }
      boolean ended = ending;
      return new LogFollower.Stream() {
        @Override
        public boolean ended() {
          return ended;
        }

        @Override
        public void close() {
          synchronized (Opened.this) {
            closed.add(what);
            Opened.this.notifyAll();
          }
        }
      };
    }
  }

  static PodSnapshot pod(String name, int attempt, String phase, boolean ranks) {
    return new PodSnapshot(
        name,
        "n0",
        phase,
        "",
        attempt,
        "Running".equals(phase),
        false,
        T0,
        List.of(),
        List.of(ContainerSnapshot.running(ranks ? "node" : "launcher")),
        List.of(),
        ranks);
  }

  static RunObservation run(int restarts, PodSnapshot... pods) {
    return new RunObservation(
        new JobSetSnapshot("team-a", "llama", T0, false, 2, 2, restarts, 3, "lq", List.of()),
        List.of(pods),
        Optional.empty(),
        T0);
  }

  static byte[] fixture(String name) throws IOException {
    try (InputStream in = LogFollowerTest.class.getResourceAsStream("/progress/" + name)) {
      return in.readAllBytes();
    }
  }

  /** Waits at most 10 s until {@code f} holds {@link #KEY}'s opened stream. */
  static void awaitOpen(LogFollower f) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (f.opening(KEY) && System.nanoTime() < end) {
      Thread.sleep(5);
    }
    assertFalse(f.opening(KEY));
  }

  LogFollower follower(Opened streams, LogFollower.Settings settings) {
    return new LogFollower(streams::open, settings, time, Duration.ofMinutes(30), enqueued::add);
  }

  @Test
  @DisplayName(
      "node 0 of the current attempt is followed while RUNNING (node-10 after node-2), stopped after")
  void followsRankZero() throws Exception {
    Opened streams = new Opened();
    try (LogFollower f = follower(streams, LogFollower.Settings.DEFAULT)) {
      RunObservation o =
          run(
              1,
              pod("llama-node-0-0-a", 0, "Running", true),
              pod("llama-node-0-10-b", 1, "Running", true),
              pod("llama-node-0-2-c", 1, "Running", true));
      f.track(KEY, o, Phase.STARTING);
      assertEquals(0, f.following());
      f.track(KEY, o, Phase.RUNNING);
      f.track(KEY, o, Phase.RUNNING);
      assertTrue(streams.first.await(10, TimeUnit.SECONDS));
      awaitOpen(f);
      assertEquals(1, f.following());
      assertFalse(f.ended(KEY), "a live stream has not ended");
      assertEquals(List.of("team-a/llama-node-0-2-c/node tail 100"), streams.opened);
      streams.sinks.get(0).write("step 5/50 loss 2.7\n".getBytes(StandardCharsets.UTF_8));
      assertEquals(List.of(KEY), enqueued);
      assertEquals(19L, f.read(), "the line's bytes, read within the budgets");
      f.track(KEY, o, Phase.SUCCEEDED);
      assertEquals(0, f.following());
      streams.awaitClosed(1);
      assertEquals(List.of("team-a/llama-node-0-2-c/node tail 100"), streams.closed);
      assertEquals(5L, f.progress(KEY).orElseThrow().step(), "kept after the follow stopped");
      f.forget(KEY);
      assertEquals(Optional.empty(), f.progress(KEY));
    }
  }

  @Test
  @DisplayName("an MPI launcher is followed, not a node; a pending rank 0 is not followed yet")
  void launcher() throws Exception {
    Opened streams = new Opened();
    try (LogFollower f = follower(streams, LogFollower.Settings.DEFAULT)) {
      f.track(KEY, run(0, pod("llama-launcher-0-0-x", 0, "Pending", false)), Phase.RUNNING);
      assertEquals(0, f.following());
      f.track(
          KEY,
          run(
              0,
              pod("llama-node-0-0-a", 0, "Running", true),
              pod("llama-launcher-0-0-x", 0, "Running", false)),
          Phase.RUNNING);
      assertTrue(streams.first.await(10, TimeUnit.SECONDS));
      assertEquals(List.of("team-a/llama-launcher-0-0-x/launcher tail 100"), streams.opened);
    }
  }

  @Test
  @DisplayName("a restart's new rank 0 pod replaces the old stream; at most maxRuns runs at once")
  void restartAndCap() throws Exception {
    Opened streams = new Opened();
    try (LogFollower f = follower(streams, new LogFollower.Settings(1024, 4096, 1, 10))) {
      f.track(KEY, run(0, pod("llama-node-0-0-a", 0, "Running", true)), Phase.RUNNING);
      streams.awaitOpened(1);
      awaitOpen(f);
      f.track(KEY, run(1, pod("llama-node-0-0-b", 1, "Running", true)), Phase.RUNNING);
      streams.awaitOpened(2);
      awaitOpen(f);
      RunKey other = new RunKey("team-a", "other");
      f.track(other, run(0, pod("other-node-0-0-a", 0, "Running", true)), Phase.RUNNING);
      f.track(other, run(0, pod("other-node-0-0-a", 0, "Running", true)), Phase.RUNNING);
      assertEquals(1, f.following());
      streams.awaitClosed(1);
      assertEquals(List.of("team-a/llama-node-0-0-a/node tail 10"), streams.closed);
      assertEquals(Optional.empty(), f.progress(other));
    }
    assertEquals(
        List.of("team-a/llama-node-0-0-a/node tail 10", "team-a/llama-node-0-0-b/node tail 10"),
        streams.closed,
        "close ends every stream");
  }

  @Test
  @DisplayName(
      "a stream the server ended, or that could not open, is opened again 10 s after, not sooner")
  void reopen() throws Exception {
    Opened streams = new Opened();
    streams.ending = true;
    try (LogFollower f = follower(streams, LogFollower.Settings.DEFAULT)) {
      RunObservation o = run(0, pod("llama-node-0-0-a", 0, "Running", true));
      f.track(KEY, o, Phase.RUNNING);
      streams.awaitOpened(1);
      awaitOpen(f);
      time.sleep(Duration.ofSeconds(9));
      f.track(KEY, o, Phase.RUNNING);
      time.sleep(Duration.ofSeconds(1));
      streams.refusing = true;
      f.track(KEY, o, Phase.RUNNING);
      streams.awaitOpened(2);
      awaitOpen(f);
      streams.refusing = false;
      streams.ending = false;
      time.sleep(Duration.ofSeconds(10));
      f.track(KEY, o, Phase.RUNNING);
      streams.awaitOpened(3);
      awaitOpen(f);
      time.sleep(Duration.ofSeconds(60));
      f.track(KEY, o, Phase.RUNNING);
      f.track(KEY, o, Phase.RUNNING);
      assertEquals(1, f.following());
      streams.awaitClosed(1);
      assertEquals(List.of("team-a/llama-node-0-0-a/node tail 100"), streams.closed);
    }
    assertEquals(3, streams.opened.size(), "a live stream is not opened again");
    assertEquals(2, streams.closed.size(), "close ends the live stream");
  }

  @Test
  @DisplayName(
      "the sink reads a recorded HF Trainer log in 7-byte chunks: bar and dict merge; enqueues per new percent")
  void sinkOnRecordedLog() throws IOException {
    List<Integer> changes = new ArrayList<>();
    FollowedLog[] log = new FollowedLog[1];
    log[0] =
        new FollowedLog(
            new ByteBudget(1 << 20, time),
            new ByteBudget(1 << 20, time),
            time,
            Duration.ofMinutes(30),
            () -> changes.add(log[0].progress().orElseThrow().percent()),
            n -> {});
    byte[] bytes = fixture("hf-trainer.log");
    for (int i = 0; i < bytes.length; i += 7) {
      log[0].write(bytes, i, Math.min(7, bytes.length - i));
    }
    Progress p = log[0].progress().orElseThrow();
    assertEquals(30L, p.step());
    assertEquals(
        "3.899",
        p.metrics().stream()
            .filter(m -> m.name().equals("train_loss"))
            .findFirst()
            .orElseThrow()
            .value(),
        "the Trainer's closing summary dict");
    assertEquals(
        List.of(
            0, 3, 6, 10, 13, 16, 16, 23, 26, 33, 36, 43, 50, 53, 60, 66, 70, 80, 83, 86, 96, 100),
        changes);
  }

  @Test
  @DisplayName(
      "bytes over the run's budget are dropped with the line they cut, and count as a sign of life")
  void budget() {
    List<Long> dropped = new ArrayList<>();
    ByteBudget total = new ByteBudget(1 << 20, time);
    FollowedLog log =
        new FollowedLog(
            new ByteBudget(32, time), total, time, Duration.ofMinutes(30), () -> {}, dropped::add);
    byte[] a = "step 1/10\n".getBytes(StandardCharsets.UTF_8);
    log.write(a, 0, a.length);
    byte[] big = "step 9/10 and a long tail of words\n".getBytes(StandardCharsets.UTF_8);
    time.sleep(Duration.ofMinutes(5));
    log.write(big, 0, big.length);
    assertEquals(List.of((long) big.length), dropped);
    assertEquals(1L, log.progress().orElseThrow().step());
    assertEquals(T0.plus(Duration.ofMinutes(5)), log.progress().orElseThrow().updatedAt());
    byte[] rest = "0 tail\rstep 2/10\n".getBytes(StandardCharsets.UTF_8);
    log.write(rest, 0, rest.length);
    assertEquals(2L, log.progress().orElseThrow().step(), "the cut line is skipped to its end");
    assertEquals(a.length + rest.length, total.spent(), "read: what fit, the dropped chunk not");
    log.write('s');
    assertThrows(IndexOutOfBoundsException.class, () -> log.write(a, 5, 10));
    assertThrows(IllegalArgumentException.class, () -> new ByteBudget(0, time));
  }

  @Test
  @DisplayName(
      "a tqdm bar written with \\r is read when written, not at the next redraw minutes later")
  void barReadWhenWritten() {
    FollowedLog log =
        new FollowedLog(
            new ByteBudget(1 << 20, time),
            new ByteBudget(1 << 20, time),
            time,
            Duration.ofMinutes(30),
            () -> {},
            n -> {});
    byte[] bar =
        "\r 37%|███▋      | 370/1000 [01:02<01:45, 5.93it/s]".getBytes(StandardCharsets.UTF_8);
    log.write(bar, 0, bar.length);
    assertEquals(370L, log.progress().orElseThrow().step());
    byte[] half = "\r 38%|███▊      | 380/1000 [01:04<01:4".getBytes(StandardCharsets.UTF_8);
    log.write(half, 0, half.length);
    assertEquals(370L, log.progress().orElseThrow().step(), "a cut bar waits for its end");
    byte[] rest = "3, 5.93it/s]".getBytes(StandardCharsets.UTF_8);
    log.write(rest, 0, rest.length);
    assertEquals(380L, log.progress().orElseThrow().step());
  }

  @Test
  @DisplayName("the budget refills at its rate, at most one second's worth")
  void refill() {
    ByteBudget b = new ByteBudget(100, time);
    assertTrue(b.take(100));
    assertFalse(b.take(1));
    assertEquals(100, b.spent(), "spent counts what was taken, not what was refused");
    time.sleep(Duration.ofMillis(500));
    assertTrue(b.take(50));
    assertFalse(b.take(1));
    time.sleep(Duration.ofSeconds(10));
    assertFalse(b.take(101));
    assertTrue(b.take(100));
    assertEquals(250, b.spent());
  }

  @Test
  @DisplayName(
      "worth a reconcile: first progress, new percent or total, first metrics, moving after a stall")
  void meaningful() {
    Progress a = new Progress(1L, 100L, null, null, null, T0, Progress.Source.LOG);
    Optional<Progress> none = Optional.empty();
    assertFalse(FollowedLog.meaningful(none, none, Duration.ofMinutes(30)));
    assertTrue(FollowedLog.meaningful(none, Optional.of(a), Duration.ofMinutes(30)));
    assertFalse(FollowedLog.meaningful(Optional.of(a), Optional.of(a), Duration.ofMinutes(30)));
    Progress b = new Progress(2L, 100L, null, null, null, T0, Progress.Source.LOG);
    assertTrue(FollowedLog.meaningful(Optional.of(a), Optional.of(b), Duration.ofMinutes(30)));
    Progress c = new Progress(1L, 200L, 0, null, null, T0, Progress.Source.LOG);
    Progress d = new Progress(1L, 300L, 0, null, null, T0, Progress.Source.LOG);
    assertTrue(FollowedLog.meaningful(Optional.of(c), Optional.of(d), Duration.ofMinutes(30)));
    Progress e =
        new Progress(
            1L,
            100L,
            null,
            null,
            List.of(new Progress.Metric("loss", "1")),
            T0,
            Progress.Source.LOG);
    assertTrue(FollowedLog.meaningful(Optional.of(a), Optional.of(e), Duration.ofMinutes(30)));
    Progress late =
        new Progress(1L, 100L, null, null, null, T0.plusSeconds(1801), Progress.Source.LOG);
    assertTrue(FollowedLog.meaningful(Optional.of(a), Optional.of(late), Duration.ofMinutes(30)));
    Progress soon =
        new Progress(1L, 100L, null, null, null, T0.plusSeconds(1800), Progress.Source.LOG);
    assertFalse(FollowedLog.meaningful(Optional.of(a), Optional.of(soon), Duration.ofMinutes(30)));
  }

  @Test
  @DisplayName(
      "a follow stopped while its stream is being opened closes that stream once it opens; forget closes a live one")
  void stopWhileOpening() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> closed = new CopyOnWriteArrayList<>();
    LogFollower.Streams slow =
        (ns, pod, c, tail, to) -> {
          entered.countDown();
          try {
            release.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return new LogFollower.Stream() {
            @Override
            public boolean ended() {
              return false;
            }

            @Override
            public void close() {
              closed.add(pod);
            }
          };
        };
    try (LogFollower f =
        new LogFollower(
            slow, LogFollower.Settings.DEFAULT, time, Duration.ofMinutes(30), enqueued::add)) {
      RunObservation o = run(0, pod("llama-node-0-0-a", 0, "Running", true));
      f.track(KEY, o, Phase.RUNNING);
      assertTrue(entered.await(10, TimeUnit.SECONDS));
      assertTrue(f.opening(KEY));
      f.track(KEY, o, Phase.FAILED);
      assertFalse(f.opening(KEY));
      release.countDown();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (closed.isEmpty() && System.nanoTime() < end) {
        Thread.sleep(5);
      }
      assertEquals(List.of("llama-node-0-0-a"), closed);
    }
    Opened streams = new Opened();
    try (LogFollower f = follower(streams, LogFollower.Settings.DEFAULT)) {
      f.track(KEY, run(0, pod("llama-node-0-0-a", 0, "Running", true)), Phase.RUNNING);
      streams.awaitOpened(1);
      awaitOpen(f);
      f.forget(KEY);
      streams.awaitClosed(1);
      assertEquals(List.of("team-a/llama-node-0-0-a/node tail 100"), streams.closed);
      assertEquals(0, f.following());
    }
  }

  @Test
  @DisplayName("a pod being deleted is not rank 0; a pod without containers is not followed")
  void rankZeroChoice() {
    PodSnapshot deleting =
        new PodSnapshot(
            "llama-node-0-0-a",
            "n0",
            "Running",
            "",
            0,
            true,
            true,
            T0,
            List.of(),
            List.of(ContainerSnapshot.running("node")),
            List.of(),
            true);
    PodSnapshot bare =
        new PodSnapshot(
            "llama-node-0-0-0",
            "n0",
            "Running",
            "",
            0,
            true,
            false,
            T0,
            List.of(),
            List.of(),
            List.of(),
            true);
    PodSnapshot next = pod("llama-node-0-1-b", 0, "Running", true);
    assertEquals(
        "llama-node-0-1-b",
        LogFollower.rankZero(run(0, deleting, bare, next)).orElseThrow().name());
    assertEquals(Optional.empty(), LogFollower.rankZero(run(0, deleting, bare)));
  }

  @Test
  @DisplayName(
      "the sink: single bytes build a line, a Keras bar erased with \\b is read when written, a dropped chunk after a stall wakes the run, the limit cuts long lines")
  void sinkDetails() {
    List<String> changes = new ArrayList<>();
    List<Long> dropped = new ArrayList<>();
    FollowedLog log =
        new FollowedLog(
            new ByteBudget(64, time),
            new ByteBudget(1 << 20, time),
            time,
            Duration.ofMinutes(30),
            () -> changes.add("changed"),
            dropped::add);
    for (byte b : "step 1/4\n".getBytes(StandardCharsets.UTF_8)) {
      log.write(b);
    }
    assertEquals(1L, log.progress().orElseThrow().step());
    assertEquals(List.of("changed"), changes);
    time.sleep(Duration.ofSeconds(1));
    byte[] keras =
        "\r 2/4 \u2501\u2501 0s 2ms/step - loss: 1.5\b\b".getBytes(StandardCharsets.UTF_8);
    log.write(keras, 0, keras.length);
    assertEquals(2L, log.progress().orElseThrow().step(), "read before the next \\r");
    time.sleep(Duration.ofMinutes(31));
    byte[] big = new byte[100];
    log.write(big, 0, big.length);
    assertEquals(List.of(100L), dropped);
    assertEquals(3, changes.size(), "a sign of life after a stall is worth a reconcile");
    byte[] tail = "]\nstep 3/4\n".getBytes(StandardCharsets.UTF_8);
    log.write(tail, 0, tail.length);
    assertEquals(3L, log.progress().orElseThrow().step(), "the dropped line is skipped to its end");
  }

  @Test
  @DisplayName("bytes dropped are counted by the follower; a budget of 1 byte a second is allowed")
  void droppedCount() throws Exception {
    Opened streams = new Opened();
    try (LogFollower f = follower(streams, new LogFollower.Settings(4, 1 << 20, 10, 5))) {
      f.track(KEY, run(0, pod("llama-node-0-0-a", 0, "Running", true)), Phase.RUNNING);
      streams.awaitOpened(1);
      streams.sinks.get(0).write("step 1/10 and more\n".getBytes(StandardCharsets.UTF_8));
      assertEquals(19L, f.dropped());
      assertEquals(0L, f.read(), "dropped bytes are not read");
    }
    assertTrue(new ByteBudget(1, time).take(1));
  }

  @Test
  @DisplayName(
      "RunProgress.newest: the later of the sources' progress; each source is tracked and told of gone runs")
  void newest() {
    List<String> calls = new ArrayList<>();
    Progress older = new Progress(1L, 10L, null, null, null, T0, Progress.Source.LOG);
    Progress newer =
        new Progress(null, null, 40, null, null, T0.plusSeconds(5), Progress.Source.PUSH);
    RunProgress a = source("a", Optional.of(older), calls);
    RunProgress b = source("b", Optional.of(newer), calls);
    RunProgress none = source("c", Optional.empty(), calls);
    RunProgress both = RunProgress.newest(List.of(a, b, none));
    assertEquals(Optional.of(newer), both.progress(KEY));
    assertEquals(Optional.of(older), RunProgress.newest(List.of(a, none)).progress(KEY));
    both.track(KEY, run(0), Phase.RUNNING);
    both.forget(KEY);
    assertEquals(
        List.of(
            "a track RUNNING",
            "b track RUNNING",
            "c track RUNNING",
            "a forget",
            "b forget",
            "c forget"),
        calls);
    assertEquals(Optional.empty(), RunProgress.NONE.progress(KEY));
  }

  private static RunProgress source(String name, Optional<Progress> p, List<String> calls) {
    return new RunProgress() {
      @Override
      public Optional<Progress> progress(RunKey key) {
        return p;
      }

      @Override
      public void track(RunKey key, RunObservation o, Phase phase) {
        calls.add(name + " track " + phase);
      }

      @Override
      public void forget(RunKey key) {
        calls.add(name + " forget");
      }
    };
  }

  @Test
  @DisplayName(
      "the resume line is read from the log's head when a follow starts (the tail may start after it), from the tail too; a restart's new pod speaks for itself")
  void resumedFromHead() throws Exception {
    Opened opened = new Opened();
    List<String> heads = new ArrayList<>();
    String recorded = new String(fixture("checkpoint-resume.log"), StandardCharsets.UTF_8);
    LogFollower.Streams streams =
        new LogFollower.Streams() {
          @Override
          public LogFollower.Stream open(
              String ns, String pod, String c, int tail, OutputStream to) {
            return opened.open(ns, pod, c, tail, to);
          }

          @Override
          public String head(String ns, String pod, String c, int bytes) {
            heads.add(ns + "/" + pod + "/" + c + " " + bytes);
            return pod.endsWith("-a") ? recorded : "setup output\n";
          }
        };
    try (LogFollower f =
        new LogFollower(
            streams, LogFollower.Settings.DEFAULT, time, Duration.ofMinutes(30), enqueued::add)) {
      f.track(KEY, run(1, pod("llama-node-0-0-a", 1, "Running", true)), Phase.RUNNING);
      opened.awaitOpened(1);
      awaitOpen(f);
      assertEquals(List.of("team-a/llama-node-0-0-a/node 8192"), heads);
      assertEquals(20L, f.resumed(KEY).orElseThrow().step());
      assertEquals(List.of(KEY), enqueued, "a new resume is worth a reconcile");
      assertEquals(Optional.empty(), f.progress(KEY), "not a progress");
      opened.sinks.get(0).write("step 21/60\n".getBytes(StandardCharsets.UTF_8));
      assertEquals(20L, f.resumed(KEY).orElseThrow().step(), "kept beside the progress");

      f.track(KEY, run(2, pod("llama-node-0-0-b", 2, "Running", true)), Phase.RUNNING);
      opened.awaitOpened(2);
      awaitOpen(f);
      assertEquals(Optional.empty(), f.resumed(KEY), "attempt 2 has not said it resumed");
      String line =
          recorded.lines().filter(l -> l.contains(" resumes from ")).findFirst().orElseThrow();
      int before = enqueued.size();
      opened
          .sinks
          .get(1)
          .write((line.replace("step-20", "step-30") + "\n").getBytes(StandardCharsets.UTF_8));
      assertEquals(30L, f.resumed(KEY).orElseThrow().step(), "read from the tail");
      assertEquals(before + 1, enqueued.size());
      f.track(KEY, run(2, pod("llama-node-0-0-b", 2, "Running", true)), Phase.SUCCEEDED);
      assertEquals(Optional.empty(), f.resumed(KEY), "not followed: not told");
    }
  }

  @Test
  @DisplayName(
      "the head does not replace a resume the tail already showed, and says nothing when it holds none")
  void headAfterTail() throws IOException {
    List<String> changes = new ArrayList<>();
    FollowedLog log =
        new FollowedLog(
            new ByteBudget(1 << 20, time),
            new ByteBudget(1 << 20, time),
            time,
            Duration.ofMinutes(30),
            () -> changes.add("changed"),
            n -> {});
    String line =
        new String(fixture("checkpoint-resume.log"), StandardCharsets.UTF_8)
            .lines()
            .filter(l -> l.contains(" resumes from "))
            .findFirst()
            .orElseThrow();
    log.head("nothing here\n");
    assertEquals(List.of(), changes);
    assertEquals(Optional.empty(), log.resumed());
    log.write((line.replace("step-20", "step-30") + "\r\n").getBytes(StandardCharsets.UTF_8));
    assertEquals(List.of("changed"), changes);
    log.head(line + "\n");
    assertEquals(30L, log.resumed().orElseThrow().step(), "the tail's is newer");
    assertEquals(List.of("changed"), changes);
  }

  @Test
  @DisplayName("RunProgress.newest: where the run resumed is the first source's that knows")
  void newestResumed() {
    Resumed r = new Resumed("step-1", 1L, null);
    RunProgress knows =
        new RunProgress() {
          @Override
          public Optional<Progress> progress(RunKey key) {
            return Optional.empty();
          }

          @Override
          public Optional<Resumed> resumed(RunKey key) {
            return Optional.of(r);
          }
        };
    assertEquals(Optional.of(r), RunProgress.newest(List.of(RunProgress.NONE, knows)).resumed(KEY));
    assertEquals(Optional.empty(), RunProgress.newest(List.of(RunProgress.NONE)).resumed(KEY));
  }

  @Test
  @DisplayName(
      "the head is read again at a reopen while no resume line was seen (a log not served yet has none), never after; a refused head read still opens the follow")
  void headAgainUntilSeen() throws Exception {
    Opened opened = new Opened();
    opened.ending = true;
    List<Integer> heads = new ArrayList<>();
    String line =
        new String(fixture("checkpoint-resume.log"), StandardCharsets.UTF_8)
            .lines()
            .filter(l -> l.contains(" resumes from "))
            .findFirst()
            .orElseThrow();
    LogFollower.Streams streams =
        new LogFollower.Streams() {
          @Override
          public LogFollower.Stream open(
              String ns, String pod, String c, int tail, OutputStream to) {
            return opened.open(ns, pod, c, tail, to);
          }

          @Override
          public String head(String ns, String pod, String c, int bytes) {
            heads.add(bytes);
            if (heads.size() == 1) {
              throw new KubernetesClientException("not served yet");
            }
            return heads.size() == 2 ? "" : line + "\n";
          }
        };
    try (LogFollower f =
        new LogFollower(
            streams, LogFollower.Settings.DEFAULT, time, Duration.ofMinutes(30), enqueued::add)) {
      RunObservation o = run(0, pod("llama-node-0-0-a", 0, "Running", true));
      f.track(KEY, o, Phase.RUNNING);
      opened.awaitOpened(1);
      awaitOpen(f);
      assertEquals(Optional.empty(), f.resumed(KEY));
      for (int reopen = 2; reopen <= 4; reopen++) {
        time.sleep(LogFollower.REOPEN);
        f.track(KEY, o, Phase.RUNNING);
        opened.awaitOpened(reopen);
        awaitOpen(f);
      }
      assertEquals(20L, f.resumed(KEY).orElseThrow().step());
      assertEquals(
          List.of(LogFollower.HEAD_BYTES, LogFollower.HEAD_BYTES, LogFollower.HEAD_BYTES),
          heads,
          "read at the first open (refused), the second (empty) and the third (the line), not the fourth");
    }
  }

  @Test
  @DisplayName(
      "at most maxRuns runs are followed: the first run over the cap is named in one WARNING, later ones are not")
  void capWarnsOnce() throws Exception {
    Opened streams = new Opened();
    try (LogLines log = new LogLines(LogFollower.class);
        LogFollower f = follower(streams, new LogFollower.Settings(1024, 4096, 1, 10))) {
      f.track(KEY, run(0, pod("llama-node-0-0-a", 0, "Running", true)), Phase.RUNNING);
      for (String other : List.of("other", "third", "other")) {
        f.track(
            new RunKey("team-a", other),
            run(0, pod(other + "-node-0-0-a", 0, "Running", true)),
            Phase.RUNNING);
      }
      assertEquals(1, f.following());
      assertEquals(
          List.of(
              "WARNING following 1 run logs already (the most); run team-a/other and later ones"
                  + " show no progress"),
          log.lines);
    }
  }

  @Test
  @DisplayName(
      "what the followed log showed (read, the world size rank 0 printed: a recorded DDP log) is kept after the follow stops, until the run is forgotten")
  void signsKept() throws Exception {
    Opened streams = new Opened();
    try (LogFollower f = follower(streams, LogFollower.Settings.DEFAULT)) {
      RunObservation o = run(0, pod("llama-node-0-0-a", 0, "Running", true));
      assertEquals(TrainingSigns.NONE, f.signs(KEY), "not followed: nothing known");
      f.track(KEY, o, Phase.RUNNING);
      streams.awaitOpened(1);
      byte[] ddp = fixture("world-ddp.log");
      streams.sinks.get(0).write(ddp, 0, ddp.length);
      assertEquals(new TrainingSigns(true, 2, null), f.signs(KEY));
      f.track(KEY, o, Phase.SUCCEEDED);
      assertEquals(0, f.following());
      assertEquals(new TrainingSigns(true, 2, null), f.signs(KEY), "kept after the follow");
      f.forget(KEY);
      assertEquals(TrainingSigns.NONE, f.signs(KEY));
    }
  }

  @Test
  @DisplayName(
      "a follow stopped while it waits for the opener (another run's stream is opening) never opens its stream")
  void stoppedBeforeItsTurn() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> opened = new CopyOnWriteArrayList<>();
    LogFollower.Streams slow =
        (ns, pod, c, tail, to) -> {
          opened.add(pod);
          entered.countDown();
          try {
            release.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return new LogFollower.Stream() {
            @Override
            public boolean ended() {
              return false;
            }

            @Override
            public void close() {}
          };
        };
    try (LogFollower f =
        new LogFollower(
            slow, LogFollower.Settings.DEFAULT, time, Duration.ofMinutes(30), enqueued::add)) {
      f.track(KEY, run(0, pod("llama-node-0-0-a", 0, "Running", true)), Phase.RUNNING);
      assertTrue(entered.await(10, TimeUnit.SECONDS));
      RunKey other = new RunKey("team-a", "other");
      RunObservation o = run(0, pod("other-node-0-0-a", 0, "Running", true));
      f.track(other, o, Phase.RUNNING);
      f.track(other, o, Phase.FAILED);
      release.countDown();
      // The opener runs its tasks in order: once a later follow opens, the stopped one had its
      // turn.
      RunKey last = new RunKey("team-a", "last");
      f.track(last, run(0, pod("last-node-0-0-a", 0, "Running", true)), Phase.RUNNING);
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (f.opening(last) && System.nanoTime() < end) {
        Thread.sleep(5);
      }
      assertEquals(List.of("llama-node-0-0-a", "last-node-0-0-a"), opened);
    }
  }

  @Test
  @DisplayName(
      "the sink: bytes over the controller's total budget are dropped like the run's own; a drop soon after a line wakes no reconcile; a plain line cut mid-number waits for its end; an empty chunk is nothing")
  void sinkEdges() throws IOException {
    List<String> changes = new ArrayList<>();
    List<Long> dropped = new ArrayList<>();
    FollowedLog log =
        new FollowedLog(
            new ByteBudget(1 << 20, time),
            new ByteBudget(64, time),
            time,
            Duration.ofMinutes(30),
            () -> changes.add("changed"),
            dropped::add);
    // Recorded lines (plain-steps.log), the second cut inside its total as a read can cut it.
    List<String> lines =
        new String(fixture("plain-steps.log"), StandardCharsets.UTF_8).lines().toList();
    byte[] first = (lines.get(0) + "\n").getBytes(StandardCharsets.UTF_8);
    log.write(first, 0, first.length);
    assertEquals(List.of("changed"), changes);
    byte[] cut = lines.get(1).substring(0, "step 10/5".length()).getBytes(StandardCharsets.UTF_8);
    log.write(cut, 0, cut.length);
    assertEquals(5L, log.progress().orElseThrow().step(), "the cut line is not read yet");
    assertEquals(50L, log.progress().orElseThrow().totalSteps());
    byte[] rest = (lines.get(1).substring(cut.length) + "\n").getBytes(StandardCharsets.UTF_8);
    log.write(rest, 0, rest.length);
    assertEquals(10L, log.progress().orElseThrow().step());
    assertEquals(List.of("changed", "changed"), changes, "once the line is whole: 20 %");
    log.write(new byte[0], 0, 0);
    assertEquals(10L, log.progress().orElseThrow().step());
    byte[] big = fixture("plain-steps.log");
    time.sleep(Duration.ofSeconds(1));
    log.write(big, 0, big.length);
    assertEquals(List.of((long) big.length), dropped, "over the total budget of 64 bytes");
    assertEquals(
        List.of("changed", "changed"), changes, "a sign of life 1 s after a line: no reconcile");
    assertEquals(10L, log.progress().orElseThrow().step());
  }
}
