package dev.trainyard.controller.state;

import static dev.trainyard.controller.state.Runs.NOW;
import static dev.trainyard.controller.state.Runs.T0;
import static dev.trainyard.controller.state.Runs.failedPod;
import static dev.trainyard.controller.state.Runs.launcher;
import static dev.trainyard.controller.state.Runs.no;
import static dev.trainyard.controller.state.Runs.pod;
import static dev.trainyard.controller.state.Runs.readyPod;
import static dev.trainyard.controller.state.Runs.run;
import static dev.trainyard.controller.state.Runs.waitingPod;
import static dev.trainyard.controller.state.Runs.yes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The states the mapping used to get wrong (issue #18): a Workload Kueue deactivated or finished,
 * what train.yaml controls (memory, image, timeout), containers the kubelet cannot create, a dead
 * rank, churn from the kubelet's and scheduler's changing words, and a JobSet deleted before it
 * finished. Messages are the real controllers' words.
 */
class RunStateMapperKueueAndUserTest {

  static final String USER_IMAGE = "ghcr.io/acme/trainer:1.2";
  static final String RUNTIME_IMAGE = "docker.io/pytorch/pytorch:2.13.0";

  /** A failed run seen at NOW. */
  static Runs failed() {
    return run().condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW));
  }

  @Nested
  @DisplayName("a Workload Kueue deactivated or finished is terminal, never 'requeued' for ever")
  class KueueEnded {
    /**
     * Kueue v0.19 workload_controller: Evicted reason "Deactivated" + "DueTo" + the
     * DeactivationTarget reason.
     */
    static final String LIMIT_MESSAGE =
        "The workload is deactivated due to exceeding the maximum number of re-queuing retries";

    @Test
    @DisplayName(
        "Evicted DeactivatedDueToRequeuingLimitExceeded with spec.active false: failed (platform error), Kueue's cause in words")
    void requeuingLimit() {
      RunState s =
          run()
              .suspended()
              .inactiveWorkload(
                  new ConditionSnapshot(
                      "Evicted",
                      true,
                      "DeactivatedDueToRequeuingLimitExceeded",
                      LIMIT_MESSAGE,
                      T0.plusSeconds(40)))
              .map();
      assertEquals(Phase.FAILED, s.phase());
      assertEquals(Cause.PLATFORM, s.cause());
      assertEquals(
          "failed (platform error): deactivated by Kueue (requeuing limit exceeded), attempt 1 of 4",
          s.description());
      assertEquals(
          Duration.ofSeconds(40),
          s.duration(),
          "from creation (no admission, no pod) to the eviction");
      assertTrue(s.phase().terminal());
    }

    @Test
    @DisplayName(
        "the Evicted reason's prefix alone (Kueue's own test) is enough, for every DeactivatedDueTo cause")
    void prefixAlone() {
      for (String[] c :
          new String[][] {
            {"DeactivatedDueToMaximumExecutionTimeExceeded", "maximum execution time exceeded"},
            {"DeactivatedDueToAdmissionCheck", "admission check"},
            {"DeactivatedDueToRequeuingLimitExceeded", "requeuing limit exceeded"}
          }) {
        RunState s = run().suspended().workload("cq", yes("Evicted", c[0], T0)).map();
        assertEquals(Phase.FAILED, s.phase(), c[0]);
        assertEquals(
            "failed (platform error): deactivated by Kueue (" + c[1] + "), attempt 1 of 4",
            s.description());
      }
    }

    @Test
    @DisplayName(
        "spec.active false set by a person (reason Deactivated, or no eviction yet): failed, saying spec.active")
    void deactivatedByHand() {
      RunState evicted =
          run().suspended().inactiveWorkload(yes("Evicted", "Deactivated", T0)).map();
      assertEquals(
          "failed (platform error): deactivated (Workload spec.active is false), attempt 1 of 4",
          evicted.description());
      RunState running =
          run().admittedWorkload(T0).pods(readyPod("p0", "n0"), readyPod("p1", "n1")).map();
      assertEquals(Phase.RUNNING, running.phase());
      Runs justNow = run().pods(readyPod("p0", "n0"), readyPod("p1", "n1"));
      justNow.inactiveWorkload(
          yes("QuotaReserved", "QuotaReserved", T0), yes("Admitted", "Admitted", T0));
      assertEquals(
          Phase.RUNNING,
          justNow.map().phase(),
          "Kueue has not evicted it yet: the end waits for its Evicted reason");
      Runs staleEviction = run().pods(readyPod("p0", "n0"), readyPod("p1", "n1"));
      staleEviction.inactiveWorkload(
          yes("QuotaReserved", "QuotaReserved", T0),
          yes("Admitted", "Admitted", T0),
          yes("Evicted", "PodsReadyTimeout", T0));
      assertEquals(
          Phase.RUNNING,
          staleEviction.map().phase(),
          "an earlier eviction (PodsReadyTimeout) is not Kueue's word on the deactivation");
      Runs evictedNow = run().pods(readyPod("p0", "n0"), readyPod("p1", "n1"));
      evictedNow.inactiveWorkload(
          yes("QuotaReserved", "QuotaReserved", T0),
          yes("Admitted", "Admitted", T0),
          yes("Evicted", "DeactivatedDueToRequeuingLimitExceeded", null));
      RunState s = evictedNow.map();
      assertEquals(Phase.FAILED, s.phase(), "evicted, the JobSet not suspended yet: the end");
      assertEquals(
          "failed (platform error): deactivated by Kueue (requeuing limit exceeded), attempt 1 of 4",
          s.description());
      assertEquals(
          Duration.between(Runs.T0.plusSeconds(10), NOW), s.duration(), "no eviction time: now");
      Runs suspended = run().suspended();
      suspended.inactiveWorkload(
          yes("QuotaReserved", "QuotaReserved", T0),
          yes("Admitted", "Admitted", T0),
          yes("Evicted", "PodsReadyTimeout", T0));
      assertEquals(
          Phase.FAILED,
          suspended.map().phase(),
          "suspended (Kueue acted, or never admitted it): spec.active false is the end");
    }

    @Test
    @DisplayName(
        "deactivated after another eviction (Evicted reason Preempted, spec.active false): said as spec.active, not as the preemption")
    void deactivatedAfterPreemption() {
      RunState s = run().suspended().inactiveWorkload(yes("Evicted", "Preempted", T0)).map();
      assertEquals(
          "failed (platform error): deactivated (Workload spec.active is false), attempt 1 of 4",
          s.description());
      Failure pull = new Failure(Cause.PLATFORM, "cannot pull image x", "n0", null);
      assertEquals(
          "failed (platform error): deactivated: cannot pull image x, attempt 1 of 4",
          run().suspended().earlier(pull).inactiveWorkload().map().description());
    }

    @Test
    @DisplayName(
        "reactivated (spec.active true again, Requeued=True) is queued again, not terminal")
    void reactivated() {
      RunState s =
          run()
              .suspended()
              .workload("cq", yes("Evicted", "Deactivated", T0), yes("Requeued", "Reactivated", T0))
              .map();
      assertEquals(Phase.QUEUED, s.phase());
      assertEquals(
          "queued in team-a: requeued after eviction by Kueue (Deactivated)", s.description());
    }

    @Test
    @DisplayName(
        "after PodsReady timeouts, what the pods showed names the cause: a train.yaml image that cannot be pulled is the user's")
    void deactivatedWithEvidence() {
      Failure pull =
          new Failure(
              Cause.USER,
              "cannot pull image " + USER_IMAGE,
              "kwok-gpu-0",
              null,
              "check image in train.yaml");
      RunState s =
          run()
              .suspended()
              .earlier(pull)
              .inactiveWorkload(
                  new ConditionSnapshot(
                      "Evicted", true, "DeactivatedDueToRequeuingLimitExceeded", LIMIT_MESSAGE, T0))
              .map();
      assertEquals(Phase.FAILED, s.phase());
      assertEquals(Cause.USER, s.cause());
      assertEquals(
          "failed (user error): deactivated by Kueue: cannot pull image ghcr.io/acme/trainer:1.2; check image"
              + " in train.yaml, attempt 1 of 4",
          s.description());
      Failure runtime =
          new Failure(Cause.PLATFORM, "cannot pull image " + RUNTIME_IMAGE, "n0", null);
      assertEquals(
          Cause.PLATFORM,
          run()
              .suspended()
              .earlier(runtime)
              .inactiveWorkload(yes("Evicted", "DeactivatedDueToRequeuingLimitExceeded", T0))
              .map()
              .cause());
    }

    @Test
    @DisplayName(
        "a PodsReadyTimeout eviction (requeued) says what the pods showed; a preemption does not")
    void podsReadyTimeoutRequeue() {
      Failure secret =
          new Failure(
              Cause.USER,
              "CreateContainerConfigError: secret \"hf-token\" not found",
              "n0",
              null,
              "check secrets in train.yaml");
      RunState s =
          run()
              .suspended()
              .earlier(secret)
              .workload("cq", yes("Evicted", "PodsReadyTimeout", T0))
              .map();
      assertEquals(Phase.QUEUED, s.phase());
      assertEquals(Cause.USER, s.cause());
      assertEquals(
          "queued in team-a: requeued after PodsReady timeout: CreateContainerConfigError: secret \"hf-token\""
              + " not found; check secrets in train.yaml",
          s.description());
      RunState preempted =
          run().suspended().earlier(secret).workload("cq", yes("Evicted", "Preempted", T0)).map();
      assertEquals(
          "queued in team-a: requeued after eviction by Kueue (Preempted)",
          preempted.description());
      assertEquals(Cause.NONE, preempted.cause());
    }

    @Test
    @DisplayName(
        "Workload Finished=True while the JobSet stays suspended: failed (platform error) with Kueue's words")
    void finishedWhileSuspended() {
      RunState s =
          run()
              .suspended()
              .workload(
                  "cq",
                  new ConditionSnapshot(
                      "Finished",
                      true,
                      "FailedToStart",
                      "the workload could not be started",
                      T0.plusSeconds(5)))
              .map();
      assertEquals(Phase.FAILED, s.phase());
      assertEquals(
          "failed (platform error): Kueue finished the Workload without running it (the workload could not"
              + " be started), attempt 1 of 4",
          s.description());
      RunState bare = run().suspended().workload("cq", yes("Finished", "FailedToStart", T0)).map();
      assertTrue(
          bare.description().contains("without running it (FailedToStart)"), bare.description());
      RunState silent = run().suspended().workload("cq", yes("Finished", "", T0)).map();
      assertEquals(
          "failed (platform error): Kueue finished the Workload without running it, attempt 1 of 4",
          silent.description());
      Failure pull =
          new Failure(Cause.USER, "cannot pull image x", "n0", null, "check image in train.yaml");
      assertEquals(
          "failed (user error): finished by Kueue: cannot pull image x; check image in train.yaml, attempt 1 of 4",
          run()
              .suspended()
              .earlier(pull)
              .workload("cq", yes("Finished", "FailedToStart", T0))
              .map()
              .description());
      RunState racing =
          run()
              .workload(
                  "cq",
                  yes("QuotaReserved", "QuotaReserved", T0),
                  yes("Admitted", "Admitted", T0),
                  yes("Finished", "Succeeded", T0))
              .pods(readyPod("p0", "n0"), readyPod("p1", "n1"))
              .map();
      assertEquals(
          Phase.RUNNING, racing.phase(), "an unsuspended JobSet waits for its own Completed");
    }
  }

  @Nested
  @DisplayName("what train.yaml controls is the user's, naming the field to change")
  class TrainYamlSettings {
    @Test
    @DisplayName(
        "OOMKilled (the container's own limit) is a user error naming resources.memory, with exit code 137")
    void oomKilled() {
      RunState s = failed().pods(failedPod("p0", "n0", 137, "OOMKilled", T0)).map();
      assertEquals(Cause.USER, s.cause());
      assertEquals(137, s.exitCode());
      assertEquals(
          "failed (user error): out of memory (OOMKilled) in container node on node n0; raise"
              + " resources.memory in train.yaml, attempt 1 of 4",
          s.description());
    }

    @Test
    @DisplayName(
        "OOMKilled beats a sibling's exit 1; an eviction still beats both; the code-sync container's OOM is the platform's")
    void oomOrder() {
      PodSnapshot oom = failedPod("p-node-0-1-a", "n1", 137, "OOMKilled", T0);
      PodSnapshot exit = failedPod("p-node-0-0-b", "n0", 1, "Error", T0);
      assertEquals("n1", failed().pods(exit, oom).map().node());
      PodSnapshot evicted =
          new PodSnapshot(
              "p-node-0-2-c",
              "n2",
              "Failed",
              "Evicted",
              0,
              false,
              false,
              T0,
              List.of(),
              List.of(),
              List.of());
      assertEquals(Cause.PLATFORM, failed().pods(exit, oom, evicted).map().cause());
      PodSnapshot sync =
          new PodSnapshot(
              "p0",
              "n0",
              "Failed",
              "",
              0,
              false,
              false,
              T0,
              List.of(ContainerSnapshot.terminated("code-sync", 137, "OOMKilled")),
              List.of(),
              List.of());
      RunState s = failed().pods(sync).map();
      assertEquals(Cause.PLATFORM, s.cause());
      assertTrue(
          s.description()
              .startsWith(
                  "failed (platform error): OOMKilled in init container code-sync on node n0"),
          s.description());
    }

    @Test
    @DisplayName(
        "an image: of train.yaml that cannot be pulled is the user's (both kubelet reasons one phrase); the runtime's stays the platform's")
    void userImage() {
      for (String reason : List.of("ErrImagePull", "ImagePullBackOff")) {
        RunState s =
            run()
                .trainYaml(USER_IMAGE, null)
                .pods(waitingPod("p0", "n0", USER_IMAGE, reason, "x"))
                .map();
        assertEquals(Phase.STARTING, s.phase());
        assertEquals(Cause.USER, s.cause(), reason);
        assertEquals(
            "starting: cannot pull image ghcr.io/acme/trainer:1.2 on node n0; check image in train.yaml,"
                + " attempt 1 of 4",
            s.description(),
            reason);
      }
      RunState runtime =
          run()
              .trainYaml(USER_IMAGE, null)
              .pods(waitingPod("p0", "n0", RUNTIME_IMAGE, "ImagePullBackOff", ""))
              .map();
      assertEquals(Cause.PLATFORM, runtime.cause());
      assertEquals(
          "starting: cannot pull image " + RUNTIME_IMAGE + " on node n0, attempt 1 of 4",
          runtime.description());
      RunState failed =
          failed()
              .trainYaml(USER_IMAGE, null)
              .pods(waitingPod("p0", "n0", USER_IMAGE, "ErrImagePull", ""))
              .map();
      assertEquals(Cause.USER, failed.cause());
      assertEquals(
          "failed (user error): cannot pull image ghcr.io/acme/trainer:1.2 on node n0; check image in"
              + " train.yaml, attempt 1 of 4",
          failed.description());
    }

    @Test
    @DisplayName("InvalidImageName of a train.yaml image: the user's, 'fix image in train.yaml'")
    void invalidImageName() {
      String bad = "ghcr.io/Acme/Trainer:1.2";
      RunState s =
          run()
              .trainYaml(bad, null)
              .pods(
                  waitingPod(
                      "p0", "n0", bad, "InvalidImageName", "Failed to apply default image tag"))
              .map();
      assertEquals(Cause.USER, s.cause());
      assertEquals(
          "starting: invalid image name ghcr.io/Acme/Trainer:1.2 on node n0; fix image in train.yaml,"
              + " attempt 1 of 4",
          s.description());
    }

    @Test
    @DisplayName(
        "the run's timeout (Job DeadlineExceeded) is the user's, naming its value and the field, over the 143s of the pods it killed")
    void timeout() {
      Runs r =
          failed()
              .trainYaml("", Duration.ofHours(24))
              .failedJob(
                  "llama-ft-7f3a9c-node-0",
                  "DeadlineExceeded",
                  "Job was active longer than specified deadline")
              .pods(
                  failedPod("p0", "n0", 143, "Error", T0), failedPod("p1", "n1", 143, "Error", T0));
      RunState s = r.map();
      assertEquals(Cause.USER, s.cause());
      assertEquals(
          "failed (user error): ran past its timeout of 24h 0m; raise timeout in train.yaml, attempt 1 of 4",
          s.description());
      assertNull(s.exitCode());
      PodSnapshot deadline =
          new PodSnapshot(
              "p0",
              "n0",
              "Failed",
              "DeadlineExceeded",
              0,
              false,
              false,
              T0,
              List.of(),
              List.of(),
              List.of());
      assertEquals(
          "failed (user error): ran past its timeout of 24h 0m on node n0; raise timeout in train.yaml,"
              + " attempt 1 of 4",
          failed().trainYaml("", Duration.ofHours(24)).pods(deadline).map().description());
    }

    @Test
    @DisplayName(
        "a timeout of a run that never started says what kept its pods (seen now or remembered), not only the timeout")
    void timeoutOfBlockedRun() {
      Failure secret =
          new Failure(
              Cause.USER,
              "CreateContainerConfigError: secret \"hf-token\" not found",
              "n0",
              null,
              "check secrets in train.yaml");
      RunState s =
          failed()
              .trainYaml("", Duration.ofMinutes(30))
              .earlier(secret)
              .failedJob("j-0", "DeadlineExceeded", "Job was active longer than specified deadline")
              .map();
      assertEquals(Cause.USER, s.cause());
      assertEquals(
          "failed (user error): timed out: CreateContainerConfigError: secret \"hf-token\" not found; check"
              + " secrets in train.yaml, attempt 1 of 4",
          s.description());
    }

    @Test
    @DisplayName("a remembered start blocker explains a failure nothing else explains")
    void earlierIsLastResort() {
      Failure pull =
          new Failure(Cause.USER, "cannot pull image x", "n0", null, "check image in train.yaml");
      assertEquals(Cause.USER, failed().earlier(pull).map().cause());
      assertEquals(
          1, failed().earlier(pull).pods(failedPod("p0", "n0", 1, "Error", T0)).map().exitCode());
    }
  }

  @Nested
  @DisplayName("the Job's FailJob messages, as the Job controller formats them")
  class JobMessages {
    RunState failedBy(String message) {
      return failed().failedJob("j-0", "PodFailurePolicy", message).map();
    }

    @Test
    @DisplayName(
        "the GPU check's exit code and 137 name what they mean; another container's exit (an older compile's FailJob rule) is the command's")
    void exitCodes() {
      assertEquals(
          "failed (platform error): GPU check failed in container node, attempt 1 of 4",
          failedBy(
                  "Container node for pod a/p failed with exit code 80 matching FailJob rule at index 1")
              .description());
      assertEquals(
          "failed (platform error): killed in container code-sync (exit code 137: out of memory or node pressure),"
              + " attempt 1 of 4",
          failedBy(
                  "Container code-sync for pod a/p failed with exit code 137 matching FailJob"
                      + " rule at index 2")
              .description());
      RunState node =
          failedBy(
              "Container node for pod a/p failed with exit code 3 matching FailJob rule at index 1");
      assertEquals(
          "failed (user error): command exited with code 3 in container node, attempt 1 of 4",
          node.description());
      assertEquals(3, node.exitCode());
    }
  }

  @Nested
  @DisplayName(
      "a container the kubelet cannot create shows the kubelet's reason and message, the user's")
  class CannotCreate {
    @Test
    @DisplayName(
        "CreateContainerConfigError (a secrets: typo): starting, user, 'secret \"hf-token\" not found', then stalled")
    void configError() {
      Runs r =
          run()
              .admittedWorkload(T0)
              .pods(
                  waitingPod(
                      "p0",
                      "n0",
                      RUNTIME_IMAGE,
                      "CreateContainerConfigError",
                      "secret \"hf-token\" not found"),
                  readyPod("p1", "n1"));
      RunState s = r.map();
      assertEquals(Phase.STARTING, s.phase());
      assertEquals(Cause.USER, s.cause());
      assertEquals(
          "starting: CreateContainerConfigError: secret \"hf-token\" not found on node n0; check secrets in"
              + " train.yaml, attempt 1 of 4",
          s.description());
      RunState stalled = r.at(T0.plus(Duration.ofMinutes(11))).map();
      assertTrue(stalled.stalled());
      assertTrue(
          stalled
              .description()
              .startsWith("not started 10m 0s after admission: CreateContainerConfigError"),
          stalled.description());
    }

    @Test
    @DisplayName(
        "CreateContainerError and RunContainerError: the kubelet's first line, container ids left out (they change per retry)")
    void createAndRunErrors() {
      String id = "0123456789abcdef".repeat(4);
      RunState create =
          run()
              .pods(
                  waitingPod(
                      "p0",
                      "n0",
                      "",
                      "CreateContainerError",
                      "failed to reserve container name \"node_p0\": name is reserved for "
                          + id
                          + "\nmore"))
              .map();
      assertEquals(Cause.USER, create.cause());
      assertEquals(
          "starting: CreateContainerError: failed to reserve container name \"node_p0\": name is reserved"
              + " for … on node n0, attempt 1 of 4",
          create.description());
      RunState runError = run().pods(waitingPod("p0", "n0", "", "RunContainerError", "")).map();
      assertEquals(
          "starting: RunContainerError on node n0, attempt 1 of 4", runError.description());
      PodSnapshot sync =
          new PodSnapshot(
              "p0",
              "n0",
              "Pending",
              "",
              0,
              false,
              false,
              null,
              List.of(
                  new ContainerSnapshot(
                      "code-sync",
                      "",
                      ContainerSnapshot.Status.WAITING,
                      "CreateContainerConfigError",
                      "secret \"git\" not found",
                      null)),
              List.of(),
              List.of());
      assertEquals(
          "starting: CreateContainerConfigError in container code-sync: secret \"git\" not found on node n0;"
              + " check secrets in train.yaml, attempt 1 of 4",
          run().pods(sync).map().description());
    }
  }

  @Nested
  @DisplayName("a dead rank: the run is still running, but not 'n of n nodes ready'")
  class Dead {
    @Test
    @DisplayName(
        "one rank exited 137: 'rank on node n1 exited with code 137, waiting for the others', only ready pods counted")
    void oneRankDied() {
      RunState s =
          run()
              .admittedWorkload(T0)
              .pods(
                  readyPod("p-node-0-0-a", "n0"),
                  failedPod("p-node-0-1-b", "n1", 137, "Error", T0.plusSeconds(30)))
              .map();
      assertEquals(Phase.RUNNING, s.phase());
      assertEquals(1, s.nodesReady());
      assertEquals(
          "running: rank on node n1 exited with code 137, waiting for the others, attempt 1 of 4",
          s.description());
    }

    @Test
    @DisplayName(
        "ranks that die after the first (they lost their peer) do not change the text: one post")
    void firstToDieStays() {
      PodSnapshot first = failedPod("p-node-0-1-b", "n1", 137, "Error", T0.plusSeconds(30));
      PodSnapshot later = failedPod("p-node-0-0-a", "n0", 1, "Error", T0.plusSeconds(35));
      String one = run().pods(readyPod("p-node-0-0-a", "n0"), first).map().description();
      String two = run().pods(later, first).map().description();
      assertEquals(one, two);
      PodSnapshot sameTime = failedPod("p-node-0-0-a", "n0", 1, "Error", T0.plusSeconds(30));
      assertTrue(
          run().pods(first, sameTime).map().description().contains("node n0"),
          "a tie names the lowest index");
      PodSnapshot unknown = failedPod("p-node-0-0-a", "n0", 1, "Error", null);
      assertTrue(
          run().pods(unknown, first).map().description().contains("node n1"),
          "a known end comes first");
    }

    @Test
    @DisplayName(
        "the dead rank's own reason when it has one: OOMKilled, eviction; a launcher is named as such")
    void deadRankReasons() {
      RunState oom =
          run().pods(readyPod("p0", "n0"), failedPod("p1", "n1", 137, "OOMKilled", T0)).map();
      assertEquals(
          "running: rank on node n1: out of memory (OOMKilled) in container node, waiting for the others,"
              + " attempt 1 of 4",
          oom.description());
      PodSnapshot evicted =
          new PodSnapshot(
              "p1", "n1", "Failed", "Evicted", 0, false, false, T0, List.of(), List.of(),
              List.of());
      assertEquals(
          "running: rank on node n1: evicted by the kubelet, waiting for the others, attempt 1 of 4",
          run().pods(readyPod("p0", "n0"), evicted).map().description());
      RunState mpi =
          run()
              .mpi(1)
              .pods(
                  readyPod("p0", "n0"),
                  launcher("n5", "Failed", false, ContainerSnapshot.terminated("node", 2, "Error")))
              .map();
      assertEquals(
          "running: launcher on node n5 exited with code 2, waiting for the others, attempt 1 of 4",
          mpi.description());
      PodSnapshot bare =
          new PodSnapshot(
              "p1", "", "Failed", "", 0, false, false, T0, List.of(), List.of(), List.of());
      assertEquals(
          "running: rank failed, waiting for the others, attempt 1 of 4",
          run().pods(readyPod("p0", "n0"), bare).map().description());
    }
  }

  @Nested
  @DisplayName("churn: the kubelet's and the scheduler's changing words make one description")
  class Churn {
    @Test
    @DisplayName("ErrImagePull and ImagePullBackOff alternating on every retry: one description")
    void pullRetries() {
      List<String> seen = new ArrayList<>();
      for (String reason :
          List.of("ErrImagePull", "ImagePullBackOff", "ErrImagePull", "ImagePullBackOff")) {
        seen.add(
            run()
                .pods(
                    waitingPod(
                        "p0",
                        "n0",
                        RUNTIME_IMAGE,
                        reason,
                        reason.equals("ErrImagePull")
                            ? "rpc error: code = NotFound"
                            : "Back-off pulling image"))
                .map()
                .description());
      }
      assertEquals(1, seen.stream().distinct().count(), seen.toString());
    }

    @Test
    @DisplayName(
        "several pods pulling: the lowest index is named, whatever order the pods were listed in")
    void lowestIndex() {
      PodSnapshot ten = waitingPod("js-node-0-10-x", "n10", RUNTIME_IMAGE, "ImagePullBackOff", "");
      PodSnapshot two = waitingPod("js-node-0-2-y", "n2", RUNTIME_IMAGE, "ErrImagePull", "");
      Runs a = run().pods(ten, two);
      a.expected = 2;
      Runs b = run().pods(two, ten);
      assertEquals("n2", a.map().node());
      assertEquals(a.map().description(), b.map().description());
    }

    @Test
    @DisplayName(
        "the scheduler's node counts never reach the description, and it never ends in ',,'")
    void schedulerCounts() {
      List<String> messages =
          List.of(
              "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) had untolerated taint {gpu: }. preemption:"
                  + " 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
              "0/4 nodes are available: 2 Insufficient cpu, 2 node(s) had untolerated taint {gpu: }. no new claims"
                  + " to deallocate, preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.",
              "0/5 nodes are available: 4 Insufficient cpu, 1 node(s) had untolerated taint {gpu: }, preemption: 0/5");
      List<String> seen = new ArrayList<>();
      for (String m : messages) {
        PodSnapshot p =
            new PodSnapshot(
                "p0",
                "",
                "Pending",
                "",
                0,
                false,
                false,
                null,
                List.of(),
                List.of(),
                List.of(new ConditionSnapshot("PodScheduled", false, "Unschedulable", m, T0)));
        seen.add(run().admittedWorkload(T0).pods(p).map().description());
      }
      assertEquals(
          List.of(
              "starting: waiting for nodes: Insufficient cpu, node(s) had untolerated taint {gpu: },"
                  + " attempt 1 of 4"),
          seen.stream().distinct().toList());
      assertFalse(seen.get(0).contains(",,"));
      assertEquals("", StartProgress.withoutCounts("0/4 nodes are available: ."));
      assertEquals(
          "pod has unbound immediate PersistentVolumeClaims",
          StartProgress.withoutCounts(
              "0/1 nodes are available: 1 pod has unbound immediate PersistentVolumeClaims."));
    }

    @Test
    @DisplayName(
        "an unschedulable pod without words, or with only the node count, gives no reason; the next pod's words do")
    void silentScheduler() {
      PodSnapshot bare =
          new PodSnapshot(
              "p0",
              "",
              "Pending",
              "",
              0,
              false,
              false,
              null,
              List.of(),
              List.of(),
              List.of(
                  new ConditionSnapshot(
                      "PodScheduled", false, "Unschedulable", "0/4 nodes are available: .", T0)));
      assertEquals(
          "starting: waiting for nodes, attempt 1 of 4",
          run().admittedWorkload(T0).pods(bare).map().description());
      PodSnapshot worded =
          new PodSnapshot(
              "p1",
              "",
              "Pending",
              "",
              0,
              false,
              false,
              null,
              List.of(),
              List.of(),
              List.of(
                  new ConditionSnapshot(
                      "PodScheduled",
                      false,
                      "Unschedulable",
                      "0/4 nodes are available: 4 Too many pods.",
                      T0)));
      assertEquals(
          "starting: waiting for nodes: Too many pods, attempt 1 of 4",
          run().admittedWorkload(T0).pods(bare, worded).map().description());
    }

    @Test
    @DisplayName("natural pod order: index 2 before 10, attempt newest first, equal names equal")
    void naturalOrder() {
      assertTrue(PodOrder.natural("js-node-0-2-x", "js-node-0-10-a") < 0);
      assertTrue(PodOrder.natural("js-node-0-10-a", "js-node-0-2-x") > 0);
      assertEquals(0, PodOrder.natural("a-01", "a-1"));
      assertTrue(PodOrder.natural("a-1", "a-1-x") < 0);
      assertTrue(PodOrder.natural("a-1-x", "a-1") > 0);
      assertTrue(PodOrder.natural("a-b", "a-1") > 0);
      PodSnapshot old =
          new PodSnapshot(
              "a-0", "n0", "Failed", "", 0, false, false, T0, List.of(), List.of(), List.of());
      PodSnapshot newer =
          new PodSnapshot(
              "z-9", "n0", "Failed", "", 1, false, false, T0, List.of(), List.of(), List.of());
      assertEquals(List.of(newer, old), PodOrder.sorted(List.of(old, newer)));
    }
  }

  @Nested
  @DisplayName("a JobSet deleted before it finished")
  class Deleted {
    @Test
    @DisplayName("DELETED 'deleted before it finished (last: …)', terminal, no cause")
    void deleted() {
      JobSetSnapshot js = run().observe().jobSet();
      RunState s = RunStateMapper.deleted(js, "running: 2 of 2 nodes ready, attempt 1 of 4");
      assertEquals(Phase.DELETED, s.phase());
      assertTrue(s.phase().terminal());
      assertEquals(Cause.NONE, s.cause());
      assertEquals(
          "deleted before it finished (last: running: 2 of 2 nodes ready, attempt 1 of 4)",
          s.description());
      assertEquals("deleted before it finished", RunStateMapper.deleted(js, " ").description());
      assertEquals(4, s.maxAttempts());
    }
  }

  @Nested
  @DisplayName("start blockers, remembered by the controller")
  class Blockers {
    @Test
    @DisplayName(
        "startBlocker names the lowest-index current pod's blocker; none when the pods are merely on their way")
    void startBlocker() {
      Runs r =
          run()
              .pods(
                  waitingPod("p1", "n1", RUNTIME_IMAGE, "ImagePullBackOff", ""),
                  waitingPod(
                      "p0", "n0", "", "CreateContainerConfigError", "secret \"x\" not found"));
      assertEquals(Optional.of("n0"), RunStateMapper.startBlocker(r.observe()).map(Failure::node));
      assertEquals(
          Optional.empty(),
          RunStateMapper.startBlocker(
              run()
                  .pods(
                      pod(
                          "p0",
                          "n0",
                          "Pending",
                          false,
                          ContainerSnapshot.waiting("node", "ContainerCreating")))
                  .observe()));
    }

    @Test
    @DisplayName("started: every pod of the attempt up or one ended; not without pods")
    void started() {
      assertFalse(RunStateMapper.started(run().observe()));
      assertFalse(RunStateMapper.started(run().pods(readyPod("p0", "n0")).observe()));
      assertTrue(
          RunStateMapper.started(run().pods(readyPod("p0", "n0"), readyPod("p1", "n1")).observe()));
      assertTrue(
          RunStateMapper.started(run().pods(failedPod("p0", "n0", 1, "Error", T0)).observe()));
    }
  }

  @Nested
  @DisplayName(
      "a long description gives way in its middle: the cause, what to change and the attempt stay")
  class Fitting {
    @Test
    @DisplayName(
        "a 200-character image is cut, the hint and the attempt are kept, 140 code points in all")
    void longImage() {
      String image = "ghcr.io/acme/" + "x".repeat(200) + ":1";
      RunState s =
          run()
              .trainYaml(image, null)
              .pods(waitingPod("p0", "n0", image, "ErrImagePull", ""))
              .map();
      assertEquals(140, s.description().codePointCount(0, s.description().length()));
      assertTrue(
          s.description().startsWith("starting: cannot pull image ghcr.io/acme/xxx"),
          s.description());
      assertTrue(
          s.description().endsWith("…; check image in train.yaml, attempt 1 of 4"),
          s.description());
      assertEquals("a…c", Description.fit("a", "bbbbbbbbbbbbbb", "c", 4).replace("b", ""));
      assertEquals("headtai…", Description.fit("head", "", "tail-too-long", 8));
      assertEquals("h b t", Description.fit("h ", "b", " t", 10));
    }
  }

  @Nested
  @DisplayName("which pods explain a failure")
  class Attempts {
    @Test
    @DisplayName(
        "an older attempt's eviction explains its restart, not the newest attempt's exit 1")
    void newestAttemptOnly() {
      PodSnapshot evictedBefore =
          new PodSnapshot(
              "a-old", "n0", "Failed", "Evicted", 0, false, false, T0, List.of(), List.of(),
              List.of());
      PodSnapshot exit =
          new PodSnapshot(
              "b-new",
              "n1",
              "Failed",
              "",
              1,
              false,
              false,
              T0,
              List.of(),
              List.of(ContainerSnapshot.terminated("node", 1, "Error")),
              List.of());
      RunState s = failed().restarts(1).pods(evictedBefore, exit).map();
      assertEquals(Cause.USER, s.cause());
      assertEquals("n1", s.node());
    }

    @Test
    @DisplayName("a succeeded run counts its succeeded node pods (not ready any more) as done")
    void succeededPodsCount() {
      RunState s =
          run()
              .condition(yes("Completed", "AllJobsCompleted", NOW))
              .pods(
                  pod(
                      "p0",
                      "n0",
                      "Succeeded",
                      false,
                      ContainerSnapshot.terminated("node", 0, "Completed")),
                  pod(
                      "p1",
                      "n1",
                      "Succeeded",
                      false,
                      ContainerSnapshot.terminated("node", 0, "Completed")))
              .map();
      assertEquals(2, s.nodesReady());
    }

    @Test
    @DisplayName(
        "finishedAt: Completed or Failed time, else the time Kueue ended it; nothing while it runs")
    void finishedAt() {
      assertEquals(
          Optional.of(NOW),
          RunStateMapper.finishedAt(run().condition(yes("Completed", "x", NOW)).observe()));
      assertEquals(Optional.of(NOW), RunStateMapper.finishedAt(failed().observe()));
      assertEquals(
          Optional.of(T0),
          RunStateMapper.finishedAt(
              run().suspended().inactiveWorkload(yes("Evicted", "Deactivated", T0)).observe()));
      assertEquals(
          Optional.empty(), RunStateMapper.finishedAt(run().pods(readyPod("p0", "n0")).observe()));
      assertEquals(
          Optional.empty(),
          RunStateMapper.finishedAt(run().condition(no("Completed", "", "")).observe()));
    }
  }

  @Nested
  @DisplayName("durations")
  class Durations {
    @Test
    @DisplayName(
        "a run's time is whole seconds, as Kubernetes writes times: the description and durationSeconds agree")
    void wholeSeconds() {
      PodSnapshot p =
          new PodSnapshot(
              "p0",
              "n0",
              "Running",
              "",
              0,
              true,
              false,
              T0.plusMillis(10_900),
              List.of(),
              List.of(ContainerSnapshot.running("node")),
              List.of());
      RunState s =
          run()
              .condition(yes("Completed", "AllJobsCompleted", T0.plusMillis(12_100)))
              .pods(p)
              .map();
      assertEquals(Duration.ofSeconds(1), s.duration());
      assertEquals("succeeded in 1s, attempt 1 of 4", s.description());
      RunState negative = run().condition(yes("Completed", "AllJobsCompleted", T0)).pods(p).map();
      assertEquals(Duration.ZERO, negative.duration());
    }
  }

  @Test
  @DisplayName("a queued run stays queued with no cause")
  void queuedHasNoCause() {
    assertEquals(
        Cause.NONE,
        run().suspended().workload("", no("QuotaReserved", "Pending", "x")).map().cause());
  }
}
