package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.ContainerSnapshot;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.RunObservation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The follower on the real API server when a log cannot be served: the server answers 400 (here a
 * pod with no node; on the IT harness kwok's "no logs found" for a pod without a Logs object), and
 * nothing of that answer may read as a line rank 0 printed — fabric8's own {@code watchLog} writes
 * the answer's body into its sink, which is why the follower streams the bytes of a 2xx answer
 * only. And when it can ({@link LiveKubelet} serving recorded trainer logs): the tail is read as
 * rank 0's progress, the head for the resume line.
 */
class LogFollowerLiveTest {

  static RunObservation running(String ns, String name, String pod) {
    return new RunObservation(
        new JobSetSnapshot(ns, name, Instant.now(), false, 1, 1, 0, 3, "", List.of()),
        List.of(
            new PodSnapshot(
                pod,
                "",
                "Running",
                "",
                0,
                true,
                false,
                Instant.now(),
                List.of(),
                List.of(ContainerSnapshot.running("main")),
                List.of())),
        Optional.empty(),
        Instant.now());
  }

  @TempDir Path dir;

  @Test
  @DisplayName(
      "a served log (recorded trainer logs) is followed through the API server from its last tailLines lines: its progress and signs, every byte counted; the head gives the resume line the tail does not reach; a running container's stream ends when it exits")
  void servedLogIsRead() throws Exception {
    String ns = LiveApiServer.namespace("served");
    String steps = RunReaderLiveTest.recorded("plain-steps.log");
    String resumed = RunReaderLiveTest.recorded("checkpoint-resume.log");
    try (LiveKubelet kubelet = LiveKubelet.start("kubelet-" + ns, dir.resolve("certs"));
        LogFollower f =
            new LogFollower(
                LiveApiServer.client(),
                new LogFollower.Settings(1 << 20, 1 << 20, 10, 3),
                Clock.systemUTC(),
                Duration.ofMinutes(30),
                k -> {})) {
      RunReaderLiveTest.runningWithLogs(ns, "steps", kubelet, Instant.now(), steps);
      RunReaderLiveTest.runningWithLogs(ns, "ckpt", kubelet, Instant.now(), resumed);
      kubelet.running(ns, "steps-node-0-0-a0");
      RunKey a = new RunKey(ns, "steps");
      RunKey b = new RunKey(ns, "ckpt");
      f.track(a, running(ns, "steps", "steps-node-0-0-a0"), Phase.RUNNING);
      f.track(b, running(ns, "ckpt", "ckpt-node-0-0-a0"), Phase.RUNNING);
      List<String> tail = resumed.lines().toList();
      long expected =
          (String.join("\n", steps.lines().toList().subList(7, 10)) + "\n").length()
              + (String.join("\n", tail.subList(tail.size() - 3, tail.size())) + "\n")
                  .getBytes(StandardCharsets.UTF_8)
                  .length;
      // The last 3 lines of each log, as served (the sink may still be handed bytes as a stream
      // ends).
      LiveApiServer.await(
          "both streams read and ended",
          Duration.ofSeconds(60),
          () -> f.read() == expected && f.ended(b),
          () -> "read " + f.read() + " of " + expected + " bytes, progress " + f.progress(a));
      assertEquals(50L, f.progress(a).orElseThrow().step(), "step 50/50, the last line");
      assertEquals(50L, f.progress(a).orElseThrow().totalSteps());
      assertTrue(f.signs(a).logRead());
      assertEquals(20L, f.resumed(b).orElseThrow().step(), "from the head: line 62 of 76");
      assertEquals(Optional.empty(), f.resumed(a));
      assertFalse(f.ended(a), "the kubelet holds a running container's stream open");
      kubelet.exited(ns, "steps-node-0-0-a0");
      LiveApiServer.await("the stream ends when the container exits", () -> f.ended(a));
    }
  }

  @Test
  @DisplayName(
      "a log the API server refuses (400): the follower's stream ends with nothing read, so a success"
          + " is not asked 'did it train?'")
  void refusedLogIsNotRead() throws Exception {
    String ns = LiveApiServer.namespace("follow");
    LiveApiServer.jobSet(ns, "llama", 1, true);
    String pod = LiveApiServer.pod(ns, "llama", 0, 0).getMetadata().getName();
    RunKey key = new RunKey(ns, "llama");
    RunObservation o =
        new RunObservation(
            new JobSetSnapshot(ns, "llama", Instant.now(), false, 1, 1, 0, 3, "", List.of()),
            List.of(
                new PodSnapshot(
                    pod,
                    "",
                    "Running",
                    "",
                    0,
                    true,
                    false,
                    Instant.now(),
                    List.of(),
                    List.of(ContainerSnapshot.running("main")),
                    List.of())),
            Optional.empty(),
            Instant.now());
    try (LogFollower f =
        new LogFollower(
            LiveApiServer.client(),
            LogFollower.Settings.DEFAULT,
            Clock.systemUTC(),
            Duration.ofMinutes(30),
            k -> {})) {
      f.track(key, o, Phase.RUNNING);
      assertEquals(1, f.following());
      LiveApiServer.await("the refused stream ended", () -> f.ended(key));
      assertFalse(f.signs(key).logRead(), "nothing of the 400 was read");
      assertEquals(0L, f.read(), "no byte of the 400's body counted as read");
      assertEquals(Optional.empty(), f.progress(key));
    }
  }
}
