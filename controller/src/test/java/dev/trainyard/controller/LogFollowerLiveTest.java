package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.trainyard.controller.state.ContainerSnapshot;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.RunObservation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The follower on the real API server when a log cannot be served: the server answers 400 (here a
 * pod with no node; on the IT harness kwok's "no logs found" for a pod without a Logs object), and
 * nothing of that answer may read as a line rank 0 printed — fabric8's own {@code watchLog} writes
 * the answer's body into its sink, which is why the follower streams the bytes of a 2xx answer
 * only.
 */
class LogFollowerLiveTest {

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
