package dev.trainyard.controller.state;

import static dev.trainyard.controller.state.Runs.NOW;
import static dev.trainyard.controller.state.Runs.T0;
import static dev.trainyard.controller.state.Runs.launcher;
import static dev.trainyard.controller.state.Runs.no;
import static dev.trainyard.controller.state.Runs.pod;
import static dev.trainyard.controller.state.Runs.readyPod;
import static dev.trainyard.controller.state.Runs.run;
import static dev.trainyard.controller.state.Runs.yes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.render.GpuCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class RunStateMapperTest {

  static final String QUOTA =
      "couldn't assign flavors to pod set node: insufficient quota for nvidia.com/gpu"
          + " in flavor a100, 8 more needed";

  @Nested
  class Queued {
    @Test
    @DisplayName(
        "a suspended JobSet whose Workload has no quota is queued with Kueue's message verbatim")
    void quotaMessage() {
      RunState s = run().suspended().workload("", no("QuotaReserved", "Pending", QUOTA)).map();
      assertEquals(Phase.QUEUED, s.phase());
      assertEquals(Cause.NONE, s.cause());
      assertEquals("queued in team-a: " + QUOTA, s.description());
      assertEquals(0, s.nodesReady());
    }

    @Test
    @DisplayName("a False QuotaReserved without message gives its reason")
    void quotaReasonWithoutMessage() {
      RunState s = run().suspended().workload("", no("QuotaReserved", "WaitingForQuota", "")).map();
      assertEquals("queued in team-a: WaitingForQuota", s.description());
    }

    @Test
    @DisplayName(
        "quota reserved but admission checks pending: queued with the Admitted condition's message")
    void admissionChecksPending() {
      RunState s =
          run()
              .suspended()
              .workload(
                  "cq",
                  yes("QuotaReserved", "QuotaReserved", T0),
                  no("Admitted", "NoChecks", "waiting for admission check prov"))
              .map();
      assertEquals(Phase.QUEUED, s.phase());
      assertEquals("queued in team-a: waiting for admission check prov", s.description());
    }

    @Test
    @DisplayName("a Workload with no conditions yet is queued 'waiting for Kueue to admit it'")
    void noConditions() {
      assertEquals(
          "queued in team-a: waiting for Kueue to admit it",
          run().suspended().workload("").map().description());
    }

    /** Recorded from Kueue 0.19.2 (StatusTruthIT.localQueueAppliedAfterItsRuns). */
    static final String MISSING = "LocalQueue team-a doesn't exist";

    @Test
    @DisplayName(
        "Kueue's 'LocalQueue … doesn't exist' with the LocalQueue seen since is waiting for Kueue, not Kueue's stale words")
    void staleMissingLocalQueue() {
      RunState s =
          run()
              .suspended()
              .workload("", no("QuotaReserved", "Inadmissible", MISSING))
              .localQueueSeen()
              .map();
      assertEquals(Phase.QUEUED, s.phase());
      assertEquals(Cause.NONE, s.cause());
      assertEquals("queued in team-a: waiting for Kueue to admit it", s.description());
    }

    /**
     * Recorded from Kueue 0.19.2 in CI (InterplayIT.submittedRunsSucceed, StatusTruthIT
     * .localQueueAppliedAfterItsRuns): the LocalQueue read from the API server, not yet by Kueue's
     * queue manager, so its ClusterQueue's name is empty.
     */
    static final String UNREAD = "ClusterQueue  doesn't exist";

    @Test
    @DisplayName(
        "Kueue's 'ClusterQueue  doesn't exist' (no name: its queue manager had not read the LocalQueue) with the LocalQueue seen since is waiting for Kueue")
    void unreadLocalQueue() {
      RunState s =
          run()
              .suspended()
              .workload("", no("QuotaReserved", "Inadmissible", UNREAD))
              .localQueueSeen()
              .map();
      assertEquals(Phase.QUEUED, s.phase());
      assertEquals(Cause.NONE, s.cause());
      assertEquals("queued in team-a: waiting for Kueue to admit it", s.description());
    }

    @Test
    @DisplayName(
        "'ClusterQueue … doesn't exist' stays Kueue's words when the LocalQueue was not seen, or when it names the ClusterQueue")
    void missingClusterQueueKept() {
      assertEquals(
          "queued in team-a: " + UNREAD,
          run()
              .suspended()
              .workload("", no("QuotaReserved", "Inadmissible", UNREAD))
              .map()
              .description());
      String named = "ClusterQueue cq doesn't exist";
      assertEquals(
          "queued in team-a: " + named,
          run()
              .suspended()
              .workload("", no("QuotaReserved", "Inadmissible", named))
              .localQueueSeen()
              .map()
              .description());
    }

    @Test
    @DisplayName(
        "'LocalQueue … doesn't exist' stays Kueue's words when the LocalQueue was not seen, or when the words name another queue")
    void missingLocalQueueKept() {
      assertEquals(
          "queued in team-a: " + MISSING,
          run()
              .suspended()
              .workload("", no("QuotaReserved", "Inadmissible", MISSING))
              .map()
              .description());
      String other = "LocalQueue team-b doesn't exist";
      assertEquals(
          "queued in team-a: " + other,
          run()
              .suspended()
              .workload("", no("QuotaReserved", "Inadmissible", other))
              .localQueueSeen()
              .map()
              .description());
      assertEquals(
          "queued in team-a: " + QUOTA,
          run()
              .suspended()
              .workload("", no("QuotaReserved", "Pending", QUOTA))
              .localQueueSeen()
              .map()
              .description(),
          "Kueue's verdict on the quota is never replaced");
    }

    @Test
    @DisplayName(
        "a queued JobSet before Kueue created its Workload says the same as one Kueue has not judged")
    void noWorkloadYet() {
      RunState s = run().suspended().map();
      assertEquals(Phase.QUEUED, s.phase());
      assertEquals("queued in team-a: waiting for Kueue to admit it", s.description());
    }

    @Test
    @DisplayName("a suspended JobSet without a LocalQueue is queued as 'JobSet is suspended'")
    void suspendedWithoutQueue() {
      Runs r = run().suspended();
      r.queue = "";
      assertEquals("queued: JobSet is suspended", r.map().description());
    }

    @Test
    @DisplayName(
        "a Workload evicted (preempted) back to suspend is queued again, naming the eviction reason")
    void evictedIsRequeued() {
      RunState s =
          run()
              .suspended()
              .pods(readyPod("p0", "n0"))
              .workload(
                  "cq",
                  yes("QuotaReserved", "QuotaReserved", T0),
                  yes("Admitted", "Admitted", T0),
                  yes("Evicted", "Preempted", T0))
              .map();
      assertEquals(Phase.QUEUED, s.phase());
      assertEquals(
          "queued in team-a: requeued after eviction by Kueue (Preempted)", s.description());
    }

    @Test
    @DisplayName("an Evicted Workload whose JobSet still runs is not reported queued")
    void evictedButUnsuspendedIsNotQueued() {
      RunState s =
          run()
              .pods(readyPod("p0", "n0"), readyPod("p1", "n1"))
              .workload(
                  "cq",
                  yes("QuotaReserved", "QuotaReserved", T0),
                  yes("Admitted", "Admitted", T0),
                  yes("Evicted", "Preempted", T0))
              .map();
      assertEquals(Phase.RUNNING, s.phase());
    }

    @Test
    @DisplayName("attempt n of max is filled while queued")
    void attemptWhileQueued() {
      RunState s = run().suspended().map();
      assertEquals(1, s.attempt());
      assertEquals(4, s.maxAttempts());
      assertEquals(2, s.nodesTotal());
      assertNull(s.duration());
    }
  }

  @Nested
  class Admitted {
    @Test
    @DisplayName(
        "an admitted Workload whose JobSet has no pods yet is ADMITTED, even if spec.suspend is still true")
    void admittedButSuspended() {
      RunState s = run().suspended().admittedWorkload(T0).map();
      assertEquals(Phase.ADMITTED, s.phase());
      assertEquals("admitted: no pods yet, attempt 1 of 4", s.description());
      assertFalse(s.stalled());
    }

    @Test
    @DisplayName("an unsuspended JobSet without Kueue and without pods is ADMITTED")
    void unqueuedNoPods() {
      assertEquals(Phase.ADMITTED, run().map().phase());
    }

    @Test
    @DisplayName(
        "admitted but not started after the configured time is reported stalled, with how long ago")
    void stalled() {
      RunState s = run().suspended().admittedWorkload(T0).at(T0.plus(Duration.ofMinutes(12))).map();
      assertTrue(s.stalled());
      assertEquals(Phase.ADMITTED, s.phase());
      assertEquals(
          "not started 10m 0s after admission: no pods yet, attempt 1 of 4", s.description());
      RunState later =
          run().suspended().admittedWorkload(T0).at(T0.plus(Duration.ofMinutes(50))).map();
      assertEquals(s.description(), later.description(), "the text must not tick with the age");
    }

    @Test
    @DisplayName("exactly the configured time after admission is not yet stalled")
    void stallBoundary() {
      assertFalse(run().admittedWorkload(T0).at(T0.plus(Duration.ofMinutes(10))).map().stalled());
    }

    @Test
    @DisplayName("the stall clock starts at the Workload's admission, not at the JobSet's creation")
    void stallFromAdmission() {
      RunState s =
          run()
              .admittedWorkload(T0.plus(Duration.ofMinutes(30)))
              .at(T0.plus(Duration.ofMinutes(35)))
              .map();
      assertFalse(s.stalled());
    }

    @Test
    @DisplayName("a run whose pods are all ready is never stalled")
    void runningNotStalled() {
      RunState s =
          run()
              .admittedWorkload(T0)
              .at(T0.plus(Duration.ofHours(3)))
              .pods(readyPod("p0", "n0"), readyPod("p1", "n1"))
              .map();
      assertFalse(s.stalled());
      assertEquals(Phase.RUNNING, s.phase());
    }

    @Test
    @DisplayName("a JobSet without creation time is judged from now, so it is not stalled")
    void noCreationTime() {
      Runs r = run();
      RunObservation o = r.observe();
      RunObservation noTime =
          new RunObservation(
              new JobSetSnapshot("ns", "js", null, false, 2, 0, 0, "", List.of()),
              o.pods(),
              o.workload(),
              o.now());
      assertFalse(new RunStateMapper(Duration.ZERO).map(noTime).stalled());
    }

    @Test
    @DisplayName("the mapper refuses a null stall time")
    void nullStall() {
      assertThrows(NullPointerException.class, () -> new RunStateMapper(null));
    }
  }

  @Nested
  class Starting {
    @Test
    @DisplayName("unscheduled pods: starting, waiting for nodes")
    void unscheduled() {
      RunState s =
          run().pods(pod("p0", "", "Pending", false), pod("p1", "n1", "Pending", false)).map();
      assertEquals(Phase.STARTING, s.phase());
      assertEquals("starting: waiting for nodes, attempt 1 of 4", s.description());
    }

    @Test
    @DisplayName("a running init container: cloning code and setting up")
    void initContainers() {
      PodSnapshot p =
          new PodSnapshot(
              "p0",
              "n0",
              "Pending",
              "",
              0,
              false,
              false,
              null,
              List.of(ContainerSnapshot.running("git-clone")),
              List.of(ContainerSnapshot.waiting("node", "PodInitializing")),
              List.of());
      RunState s = run().pods(p, readyPod("p1", "n1")).map();
      assertEquals(
          "starting: cloning code and setting up (init container git-clone)," + " attempt 1 of 4",
          s.description());
    }

    @Test
    @DisplayName("finished init containers and ContainerCreating: pulling images")
    void pulling() {
      PodSnapshot p =
          new PodSnapshot(
              "p0",
              "n0",
              "Pending",
              "",
              0,
              false,
              false,
              null,
              List.of(ContainerSnapshot.terminated("git-clone", 0, "Completed")),
              List.of(ContainerSnapshot.waiting("node", "ContainerCreating")),
              List.of());
      assertEquals(
          "starting: pulling images, attempt 1 of 4",
          run().pods(p, readyPod("p1", "n1")).map().description());
    }

    @Test
    @DisplayName("a scheduled pod with no container status yet: pulling images")
    void noContainerStatus() {
      assertTrue(
          run()
              .pods(pod("p0", "n0", "Pending", false), readyPod("p1", "n1"))
              .map()
              .description()
              .startsWith("starting: pulling images"));
    }

    @Test
    @DisplayName("one of two pods ready: starting, 1 of 2 nodes ready")
    void partlyReady() {
      RunState s =
          run()
              .pods(
                  readyPod("p0", "n0"),
                  pod("p1", "n1", "Running", false, ContainerSnapshot.running("node")))
              .map();
      assertEquals(Phase.STARTING, s.phase());
      assertEquals(1, s.nodesReady());
      assertEquals("starting: waiting for readiness, attempt 1 of 4", s.description());
    }

    @Test
    @DisplayName(
        "fewer pods than expected (launcher not created yet): waiting for the remaining pods")
    void missingPods() {
      Runs r = run().pods(readyPod("p0", "n0"), readyPod("p1", "n1"));
      r.expected = 3;
      assertEquals("starting: waiting for nodes, attempt 1 of 4", r.map().description());
    }

    @Test
    @DisplayName(
        "a pod not created yet comes first: while pods move forward, one at a time, no phrase comes back")
    void phraseOnlyMovesForward() {
      PodSnapshot creating =
          new PodSnapshot(
              "p0",
              "n0",
              "Pending",
              "",
              0,
              false,
              false,
              null,
              List.of(),
              List.of(ContainerSnapshot.waiting("node", "ContainerCreating")),
              List.of());
      List<String> seen =
          List.of(
              run().pods(pod("p0", "", "Pending", false)).map().description(),
              run().pods(creating).map().description(),
              run().pods(creating, pod("p1", "", "Pending", false)).map().description(),
              run().pods(readyPod("p0", "n0"), pod("p1", "", "Pending", false)).map().description(),
              run()
                  .pods(readyPod("p0", "n0"), pod("p1", "n1", "Pending", false))
                  .map()
                  .description());
      assertEquals(
          List.of(
              "starting: waiting for nodes, attempt 1 of 4",
              "starting: waiting for nodes, attempt 1 of 4",
              "starting: waiting for nodes, attempt 1 of 4",
              "starting: waiting for nodes, attempt 1 of 4",
              "starting: pulling images, attempt 1 of 4"),
          seen);
    }

    @Test
    @DisplayName(
        "a runtime image that cannot be pulled while starting is a platform problem naming image and node")
    void imagePullWhileStarting() {
      ContainerSnapshot c =
          new ContainerSnapshot(
              "node",
              "ghcr.io/acme/missing:1",
              ContainerSnapshot.Status.WAITING,
              "ImagePullBackOff",
              "back-off",
              null);
      RunState s = run().pods(pod("p0", "kwok-gpu-0", "Pending", false, c)).map();
      assertEquals(Phase.STARTING, s.phase());
      assertEquals(Cause.PLATFORM, s.cause());
      assertEquals("kwok-gpu-0", s.node());
      assertEquals(
          "starting: cannot pull image ghcr.io/acme/missing:1 on node kwok-gpu-0, attempt 1 of 4",
          s.description());
    }

    @Test
    @DisplayName("a stalled start names what it is waiting for")
    void stalledStart() {
      RunState s =
          run()
              .at(T0.plus(Duration.ofMinutes(20)))
              .pods(pod("p0", "", "Pending", false), pod("p1", "", "Pending", false))
              .map();
      assertTrue(s.stalled());
      assertTrue(
          s.description().startsWith("not started 10m 0s after admission: waiting for nodes"),
          s.description());
    }
  }

  @Nested
  class Running {
    @Test
    @DisplayName("all pods of the attempt ready: running, nodes ready of total, attempt n of max")
    void running() {
      RunState s = run().pods(readyPod("p0", "n0"), readyPod("p1", "n1")).map();
      assertEquals(Phase.RUNNING, s.phase());
      assertEquals(2, s.nodesReady());
      assertEquals(2, s.nodesTotal());
      assertEquals("running: 2 of 2 nodes ready, attempt 1 of 4", s.description());
    }

    @Test
    @DisplayName("a pod that already succeeded counts as done, not missing")
    void succeededPodCounts() {
      RunState s =
          run()
              .pods(
                  readyPod("p0", "n0"),
                  pod(
                      "p1",
                      "n1",
                      "Succeeded",
                      false,
                      ContainerSnapshot.terminated("node", 0, "Completed")))
              .map();
      assertEquals(Phase.RUNNING, s.phase());
    }

    @Test
    @DisplayName("after two restarts: attempt 3 of 4, counting only pods of the current attempt")
    void laterAttempt() {
      PodSnapshot old =
          new PodSnapshot(
              "old",
              "n0",
              "Failed",
              "",
              1,
              false,
              false,
              T0,
              List.of(),
              List.of(ContainerSnapshot.terminated("node", 1, "Error")),
              List.of());
      PodSnapshot a =
          new PodSnapshot(
              "a",
              "n0",
              "Running",
              "",
              2,
              true,
              false,
              T0,
              List.of(),
              List.of(ContainerSnapshot.running("node")),
              List.of());
      PodSnapshot b =
          new PodSnapshot(
              "b",
              "n1",
              "Running",
              "",
              2,
              true,
              false,
              T0,
              List.of(),
              List.of(ContainerSnapshot.running("node")),
              List.of());
      RunState s = run().restarts(2).pods(old, a, b).map();
      assertEquals(Phase.RUNNING, s.phase());
      assertEquals("running: 2 of 2 nodes ready, attempt 3 of 4", s.description());
    }

    @Test
    @DisplayName("pods being deleted do not count as ready")
    void deletingPods() {
      PodSnapshot gone =
          new PodSnapshot(
              "p1",
              "n1",
              "Running",
              "",
              0,
              true,
              true,
              T0,
              List.of(),
              List.of(ContainerSnapshot.running("node")),
              List.of());
      assertEquals(Phase.STARTING, run().pods(readyPod("p0", "n0"), gone).map().phase());
    }

    @Test
    @DisplayName(
        "a JobSet that still carries Suspended=True after Kueue resumed it is running, not queued")
    void staleSuspendedCondition() {
      RunState s =
          run()
              .condition(yes("Suspended", "SuspendedJobs", T0))
              .admittedWorkload(T0)
              .pods(readyPod("p0", "n0"), readyPod("p1", "n1"))
              .map();
      assertEquals(Phase.RUNNING, s.phase());
    }
  }

  @Nested
  class Restarting {
    @Test
    @DisplayName("after a restart with no new pods yet: restarting, attempt 2 of 4")
    void restarting() {
      RunState s = run().restarts(1).map();
      assertEquals(Phase.RESTARTING, s.phase());
      assertEquals("restarting: no pods yet, attempt 2 of 4", s.description());
    }

    @Test
    @DisplayName("the RestartingJobSet condition alone makes the run restarting")
    void restartingCondition() {
      RunState s = run().condition(yes("RestartingJobSet", "Restarting", T0)).map();
      assertEquals(Phase.RESTARTING, s.phase());
    }

    @Test
    @DisplayName("a RestartingJobSet condition that is False does not")
    void restartingFalse() {
      assertEquals(Phase.ADMITTED, run().condition(no("RestartingJobSet", "", "")).map().phase());
    }
  }

  @Nested
  class Succeeded {
    @Test
    @DisplayName("Completed=True: succeeded, with the time from the first pod start to completion")
    void duration() {
      RunState s =
          run()
              .condition(yes("Completed", "AllJobsCompleted", T0.plusSeconds(10 + 725)))
              .pods(readyPod("p0", "n0"))
              .map();
      assertEquals(Phase.SUCCEEDED, s.phase());
      assertEquals(Duration.ofSeconds(725), s.duration());
      assertEquals(1, s.nodesReady(), "a succeeded run still counts its ready or done pods");
      assertEquals("succeeded in 12m 5s, attempt 1 of 4", s.description());
      assertTrue(s.phase().terminal());
    }

    @Test
    @DisplayName("without pods the duration runs from admission (else creation) to completion")
    void durationWithoutPods() {
      RunState s =
          run()
              .condition(yes("Completed", "AllJobsCompleted", T0.plusSeconds(3700)))
              .admittedWorkload(T0.plusSeconds(100))
              .map();
      assertEquals(Duration.ofSeconds(3600), s.duration());
      assertEquals("succeeded in 1h 0m, attempt 1 of 4", s.description());
    }

    @Test
    @DisplayName("a Completed condition without time ends now")
    void completedWithoutTime() {
      RunState s = run().condition(yes("Completed", "AllJobsCompleted", null)).map();
      assertEquals(Duration.between(T0, NOW), s.duration());
    }

    @Test
    @DisplayName("Completed wins over a Failed condition that is False")
    void completedOverFalseFailed() {
      assertEquals(
          Phase.SUCCEEDED,
          run()
              .condition(no("Failed", "", ""))
              .condition(yes("Completed", "AllJobsCompleted", NOW))
              .map()
              .phase());
    }
  }

  @Nested
  class Failed {
    @Test
    @DisplayName(
        "exit 1 of the user's command: failure classified as user error, naming node and exit code")
    void userExit() {
      RunState s =
          run()
              .condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW))
              .pods(
                  pod(
                      "p0",
                      "kwok-cpu-0",
                      "Failed",
                      false,
                      ContainerSnapshot.terminated("node", 1, "Error")))
              .map();
      assertEquals(Phase.FAILED, s.phase());
      assertEquals(Cause.USER, s.cause());
      assertEquals("kwok-cpu-0", s.node());
      assertEquals(1, s.exitCode());
      assertEquals(
          "failed (user error): command exited with code 1 in container node on node kwok-cpu-0,"
              + " attempt 1 of 4",
          s.description());
      assertEquals(Duration.ofSeconds(50), s.duration());
    }

    @Test
    @DisplayName(
        "the compiled GPU start-up check (exit 80) is a platform error naming what the node lacks, from its termination message")
    void gpuCheckFailed() {
      ContainerSnapshot node =
          new ContainerSnapshot(
              "node",
              "",
              ContainerSnapshot.Status.TERMINATED,
              "Error",
              "trainyard: platform error: node gpu-7 (pod r-node-0-1) sees 1 of 8 requested GPU(s)\n",
              80);
      RunState s = failedWith(pod("p0", "gpu-7", "Failed", false, node));
      assertEquals(Cause.PLATFORM, s.cause());
      assertEquals(80, s.exitCode());
      assertTrue(
          s.description()
              .startsWith(
                  "failed (platform error): GPU check failed in container node: node gpu-7 (pod r-node-0-1)"
                      + " sees 1 of 8 requested GPU(s)"),
          s.description());
      RunState bare =
          failedWith(
              pod(
                  "p0",
                  "gpu-7",
                  "Failed",
                  false,
                  ContainerSnapshot.terminated("node", 80, "Error")));
      assertTrue(
          bare.description()
              .startsWith(
                  "failed (platform error): GPU check failed in container node: the container does not see"
                      + " the GPUs it requested"),
          bare.description());
      assertEquals(
          Cause.USER,
          failedWith(
                  pod(
                      "p0",
                      "n0",
                      "Failed",
                      false,
                      ContainerSnapshot.terminated("node", 81, "Error")))
              .cause());
    }

    @Test
    @DisplayName("an evicted pod is a platform error even when a sibling exited non-zero")
    void evictionBeatsSiblingExit() {
      PodSnapshot evicted =
          new PodSnapshot(
              "p1",
              "n1",
              "Failed",
              "Evicted",
              0,
              false,
              false,
              T0,
              List.of(),
              List.of(ContainerSnapshot.terminated("node", 137, "Error")),
              List.of());
      RunState s =
          failedWith(
              pod("p0", "n0", "Failed", false, ContainerSnapshot.terminated("node", 143, "Error")),
              evicted);
      assertEquals(Cause.PLATFORM, s.cause());
      assertEquals("n1", s.node());
      assertTrue(s.description().contains("evicted by the kubelet on node n1"), s.description());
    }

    @Test
    @DisplayName("DisruptionTarget reasons name preemption, node loss and eviction")
    void disruptionReasons() {
      assertEquals("preempted by the scheduler", disruption("PreemptionByScheduler"));
      assertEquals("node lost (not ready or unreachable)", disruption("DeletionByTaintManager"));
      assertEquals("node lost (node deleted)", disruption("DeletionByPodGC"));
      assertEquals("evicted (drain or eviction API)", disruption("EvictionByEvictionAPI"));
      assertEquals(
          "evicted by the kubelet (node pressure or shutdown)", disruption("TerminationByKubelet"));
      assertEquals("disrupted (SomethingNew)", disruption("SomethingNew"));
    }

    @Test
    @DisplayName("a DisruptionTarget condition that is False is no evidence")
    void falseDisruption() {
      PodSnapshot p =
          new PodSnapshot(
              "p0",
              "n0",
              "Failed",
              "",
              0,
              false,
              false,
              T0,
              List.of(),
              List.of(ContainerSnapshot.terminated("node", 2, "Error")),
              List.of(no("DisruptionTarget", "EvictionByEvictionAPI", "")));
      assertEquals(Cause.USER, failedWith(p).cause());
    }

    @Test
    @DisplayName("pod reasons NodeLost and Shutdown are platform errors")
    void podReasons() {
      assertEquals("node lost", podReason("NodeLost"));
      assertEquals("node shut down", podReason("Shutdown"));
    }

    @Test
    @DisplayName(
        "a failed run whose pod cannot pull the runtime's image is a platform error, one phrase per kind")
    void imagePull() {
      Map<String, String> said =
          Map.of(
              "ErrImagePull",
              "cannot pull image of container node",
              "ImagePullBackOff",
              "cannot pull image of container node",
              "InvalidImageName",
              "invalid image name in container node",
              "ErrImageNeverPull",
              "image of container node is not on the node (imagePullPolicy: Never)");
      said.forEach(
          (reason, text) -> {
            RunState s =
                failedWith(
                    pod("p0", "n0", "Pending", false, ContainerSnapshot.waiting("node", reason)));
            assertEquals(Cause.PLATFORM, s.cause(), reason);
            assertEquals(
                "failed (platform error): " + text + " on node n0, attempt 1 of 4",
                s.description());
          });
    }

    @Test
    @DisplayName("an init container that exited 0 is no evidence; the main container's exit is")
    void initZeroIsFine() {
      PodSnapshot p =
          new PodSnapshot(
              "p0",
              "n0",
              "Failed",
              "",
              0,
              false,
              false,
              T0,
              List.of(ContainerSnapshot.terminated("git-clone", 0, "Completed")),
              List.of(
                  ContainerSnapshot.running("sidecar"),
                  ContainerSnapshot.terminated("node", 3, "Error")),
              List.of());
      RunState s = failedWith(p);
      assertEquals(3, s.exitCode());
      assertTrue(
          s.description().contains("command exited with code 3 in container node"),
          s.description());
      assertEquals(0, s.nodesReady());
    }

    @Test
    @DisplayName("an init container (setup, code clone) exiting non-zero is a user error")
    void setupFailure() {
      PodSnapshot p =
          new PodSnapshot(
              "p0",
              "n0",
              "Failed",
              "",
              0,
              false,
              false,
              T0,
              List.of(ContainerSnapshot.terminated("setup", 2, "Error")),
              List.of(),
              List.of());
      RunState s = failedWith(p);
      assertEquals(Cause.USER, s.cause());
      assertEquals(2, s.exitCode());
      assertTrue(
          s.description().contains("setup failed in init container setup with exit code 2"),
          s.description());
    }

    @Test
    @DisplayName("a Workload evicted by Kueue explains a failure without pod evidence as platform")
    void workloadEvicted() {
      Runs r = run().condition(yes("Failed", "ReachedMaxRestarts", T0));
      r.workload("cq", yes("Evicted", "Preempted", T0));
      assertEquals(
          "failed (platform error): preempted by Kueue, attempt 1 of 4", r.map().description());
      Runs timeout = run().condition(yes("Failed", "ReachedMaxRestarts", NOW));
      timeout.workload("cq", yes("Evicted", "PodsReadyTimeout", T0));
      assertEquals(
          "failed (platform error): evicted by Kueue (PodsReadyTimeout), attempt 1 of 4",
          timeout.map().description());
    }

    @Test
    @DisplayName(
        "a failure without evidence is held back for the settle time (the pod's status may lag), then called platform")
    void settle() {
      Runs r =
          run()
              .condition(yes("Failed", "FailedJobs", NOW))
              .pods(readyPod("p0", "n0"), readyPod("p1", "n1"));
      assertEquals(
          Phase.FAILED,
          r.map().phase(),
          "a Failed JobSet is failed at once, never running or admitted");
      assertTrue(
          RunStateMapper.provisional(r.observe()),
          "the controller waits: the failed pod's status may be on its way");
      r.at(NOW.plus(RunStateMapper.SETTLE).minusMillis(1));
      assertTrue(RunStateMapper.provisional(r.observe()));
      r.at(NOW.plus(RunStateMapper.SETTLE));
      assertFalse(RunStateMapper.provisional(r.observe()));
      Runs explained =
          run()
              .condition(yes("Failed", "FailedJobs", NOW))
              .pods(
                  pod(
                      "p0",
                      "n0",
                      "Failed",
                      false,
                      ContainerSnapshot.terminated("node", 1, "Error")));
      assertEquals(Phase.FAILED, explained.map().phase());
      assertFalse(RunStateMapper.provisional(explained.observe()), "evidence needs no wait");
    }

    @Test
    @DisplayName("no evidence at all: a platform error naming the JobSet's Failed reason")
    void noEvidence() {
      RunState s = run().restarts(3).condition(yes("Failed", "ReachedMaxRestarts", T0)).map();
      assertEquals(Cause.PLATFORM, s.cause());
      assertEquals(
          "failed (platform error): JobSet failed (ReachedMaxRestarts), attempt 4 of 4",
          s.description());
      assertNull(s.exitCode());
      assertEquals("", s.node());
    }

    @Test
    @DisplayName("the newest attempt's pods explain the failure first")
    void newestAttemptFirst() {
      PodSnapshot old =
          new PodSnapshot(
              "a-old",
              "n0",
              "Failed",
              "",
              0,
              false,
              false,
              T0,
              List.of(),
              List.of(ContainerSnapshot.terminated("node", 3, "Error")),
              List.of());
      PodSnapshot last =
          new PodSnapshot(
              "z-new",
              "n1",
              "Failed",
              "",
              1,
              false,
              false,
              T0,
              List.of(),
              List.of(ContainerSnapshot.terminated("node", 4, "Error")),
              List.of());
      RunState s =
          run()
              .restarts(1)
              .condition(yes("Failed", "ReachedMaxRestarts", NOW))
              .pods(old, last)
              .map();
      assertEquals(4, s.exitCode());
      assertEquals("n1", s.node());
    }

    @Test
    @DisplayName("a Failed condition without time ends the run now")
    void failedWithoutTime() {
      RunState s = run().condition(yes("Failed", "FailedJobs", null)).map();
      assertEquals(Duration.between(T0, NOW), s.duration());
      assertTrue(s.phase().terminal());
    }

    private RunState failedWith(PodSnapshot... pods) {
      return run().condition(yes("Failed", "FailedJobs", NOW)).pods(pods).map();
    }

    private String disruption(String reason) {
      PodSnapshot p =
          new PodSnapshot(
              "p0",
              "n0",
              "Failed",
              "",
              0,
              false,
              false,
              T0,
              List.of(),
              List.of(ContainerSnapshot.terminated("node", 137, "Error")),
              List.of(yes("DisruptionTarget", reason, T0)));
      RunState s = failedWith(p);
      assertEquals(Cause.PLATFORM, s.cause());
      return s.description()
          .substring("failed (platform error): ".length(), s.description().indexOf(" on node n0"));
    }

    private String podReason(String reason) {
      PodSnapshot p =
          new PodSnapshot(
              "p0", "n0", "Failed", reason, 0, false, false, T0, List.of(), List.of(), List.of());
      RunState s = failedWith(p);
      assertEquals(Cause.PLATFORM, s.cause());
      return s.description()
          .substring("failed (platform error): ".length(), s.description().indexOf(" on node n0"));
    }
  }

  @Test
  @DisplayName("every description fits GitHub's 140 characters, however long Kueue's message is")
  void longDescriptionFits() {
    RunState s =
        run().suspended().workload("", no("QuotaReserved", "Pending", QUOTA + QUOTA + QUOTA)).map();
    assertEquals(140, s.description().codePointCount(0, s.description().length()));
    assertTrue(s.description().endsWith("…"));
  }

  @Nested
  @DisplayName("evidence that outlives the pods")
  class Durable {
    /**
     * The real Job controller's words (kubernetes pkg/controller/job job_controller.go,
     * pod_failure_policy.go) for the compiled pod failure policy: a user's exit is FailIndex (no
     * exit code kept), the Job then fails with reason FailedIndexes; only the code-sync init
     * container has a FailJob exit rule (index 2).
     */
    static final String FAILED_INDEXES = "Job has failed indexes";

    static final String MAX_FAILED_INDEXES =
        "Job has exceeded the specified maximal number of failed indexes";
    static final String CODE_SYNC_EXIT_1 =
        "Container code-sync for pod team-a/llama-ft-7f3a9c-node-0-0-x7k2p failed"
            + " with exit code 1 matching FailJob rule at index 2";

    @Test
    @DisplayName(
        "a user's exit whose pod is gone (FailedIndexes, status.failedIndexes) is a user error naming the rank, never a platform error")
    void podDeletedJobRemembers() {
      Runs withPod =
          run()
              .condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW))
              .failedIndexes("llama-ft-7f3a9c-node-0", "FailedIndexes", FAILED_INDEXES, "1")
              .pods(
                  pod(
                      "p0",
                      "n0",
                      "Failed",
                      false,
                      ContainerSnapshot.terminated("node", 1, "Error")));
      assertEquals(
          "failed (user error): command exited with code 1 in container node on node n0, attempt 1 of 4",
          withPod.map().description());
      Runs gone =
          run()
              .condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW))
              .failedIndexes("llama-ft-7f3a9c-node-0", "FailedIndexes", FAILED_INDEXES, "1");
      RunState s = gone.map();
      assertEquals(Phase.FAILED, s.phase());
      assertEquals(Cause.USER, s.cause());
      assertNull(s.exitCode(), "FailIndex keeps no exit code");
      assertEquals(
          "failed (user error): rank 1 of node-0 exited non-zero (pod gone, exit code unknown), attempt 1 of 4",
          s.description());
      assertFalse(RunStateMapper.provisional(gone.observe()), "the Job's reason is evidence");
    }

    @Test
    @DisplayName(
        "one rank's exit fails the Job and stops its peers (non-zero too): the status names the rank the Job names, not the first pod by name")
    void rankNamedByTheJobWins() {
      String rank2 =
          "Container node for pod team-a/llama-ft-7f3a9c-node-0-2-k8s9q failed with exit code 3 matching FailJob rule at index 1";
      RunState s =
          run()
              .condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW))
              .failedJob("llama-ft-7f3a9c-node-0", "PodFailurePolicy", rank2)
              .pods(
                  pod(
                      "llama-ft-7f3a9c-node-0-0-a1b2c",
                      "n0",
                      "Failed",
                      false,
                      ContainerSnapshot.terminated("node", 143, "Error")),
                  pod(
                      "llama-ft-7f3a9c-node-0-1-d3e4f",
                      "n1",
                      "Failed",
                      false,
                      ContainerSnapshot.terminated("node", 1, "Error")),
                  pod(
                      "llama-ft-7f3a9c-node-0-2-k8s9q",
                      "n2",
                      "Failed",
                      false,
                      ContainerSnapshot.terminated("node", 3, "Error")))
              .map();
      assertEquals(Cause.USER, s.cause());
      assertEquals(3, s.exitCode());
      assertEquals(
          "failed (user error): command exited with code 3 in container node on node n2, attempt 1 of 4",
          s.description());
    }

    @Test
    @DisplayName(
        "MaxFailedIndexesExceeded, several failed indexes, or none recorded: still the user's")
    void failedIndexesVariants() {
      RunState max =
          run()
              .condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW))
              .failedIndexes(
                  "llama-ft-7f3a9c-node-0", "MaxFailedIndexesExceeded", MAX_FAILED_INDEXES, "0")
              .map();
      assertEquals(Cause.USER, max.cause());
      assertEquals(
          "failed (user error): rank 0 of node-0 exited non-zero (pod gone, exit code unknown), attempt 1 of 4",
          max.description());
      RunState many =
          run()
              .condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW))
              .failedIndexes("llama-ft-7f3a9c-node-0", "FailedIndexes", FAILED_INDEXES, "0,2-3")
              .map();
      assertEquals(
          "failed (user error): ranks 0,2-3 of node-0 exited non-zero (pods gone, exit codes unknown),"
              + " attempt 1 of 4",
          many.description());
      RunState none =
          run()
              .condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW))
              .failedJob("other-job", "FailedIndexes", FAILED_INDEXES)
              .map();
      assertEquals(
          "failed (user error): a rank of other-job exited non-zero (pod gone, exit code unknown),"
              + " attempt 1 of 4",
          none.description());
    }

    @Test
    @DisplayName(
        "Job messages: DisruptionTarget is a platform error, the GPU check's and 137's exit codes too; DeadlineExceeded is the user's timeout; a code-sync exit is setup")
    void jobReasons() {
      assertEquals(
          Cause.PLATFORM,
          failedBy(
                  "PodFailurePolicy",
                  "Pod team-a/p-0 has condition DisruptionTarget matching FailJob rule at index 0")
              .cause());
      assertTrue(
          failedBy(
                  "PodFailurePolicy",
                  "Pod team-a/p-0 has condition DisruptionTarget matching FailJob rule at index 0")
              .description()
              .contains("pod p-0 disrupted (DisruptionTarget"));
      RunState deadline =
          failedBy("DeadlineExceeded", "Job was active longer than specified deadline");
      assertEquals(Cause.USER, deadline.cause());
      assertEquals(
          "failed (user error): ran past its timeout; raise timeout in train.yaml, attempt 1 of 4",
          deadline.description());
      RunState gpu =
          failedBy(
              "PodFailurePolicy",
              "Container code-sync for pod a/p failed with exit code "
                  + GpuCheck.EXIT_CODE
                  + " matching FailJob rule at index 2");
      assertEquals(Cause.PLATFORM, gpu.cause());
      assertEquals(
          Cause.PLATFORM,
          failedBy(
                  "PodFailurePolicy",
                  "Container code-sync for pod a/p failed with exit code 137 matching FailJob rule at index 2")
              .cause());
      RunState two =
          failedBy(
              "PodFailurePolicy",
              "Container code-sync for pod a/p failed with exit code 2 matching FailJob rule at index 2");
      assertEquals(Cause.USER, two.cause());
      assertEquals(2, two.exitCode());
      assertEquals(
          "failed (user error): setup failed in init container code-sync with exit code 2, attempt 1 of 4",
          two.description());
      Runs backoff =
          run()
              .condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW))
              .failedJob(
                  "j-0", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
      assertTrue(
          RunStateMapper.provisional(backoff.observe()),
          "BackoffLimitExceeded says no why: wait for the pods");
      assertEquals(
          "failed (platform error): JobSet failed (FailJobSetFailurePolicyAction), attempt 1 of 4",
          backoff.map().description());
    }

    @Test
    @DisplayName(
        "a Job not Failed (or Failed=False) is no evidence; the newest attempt's failed Job wins")
    void jobChoice() {
      Runs r = run().condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW));
      r.jobs.add(
          new JobSnapshot(
              "j-ok",
              0,
              List.of(
                  new ConditionSnapshot("Failed", false, "FailedIndexes", FAILED_INDEXES, T0))));
      assertTrue(RunStateMapper.provisional(r.observe()));
      r.jobs.add(
          new JobSnapshot(
              "j-old",
              0,
              List.of(
                  new ConditionSnapshot(
                      "Failed",
                      true,
                      "PodFailurePolicy",
                      "Pod team-a/p-0 has condition DisruptionTarget matching FailJob rule at index 0",
                      T0))));
      r.jobs.add(
          new JobSnapshot(
              "j-new",
              1,
              List.of(
                  new ConditionSnapshot(
                      "Failed", true, "PodFailurePolicy", CODE_SYNC_EXIT_1, T0))));
      assertEquals(Cause.USER, r.map().cause());
    }

    private RunState failedBy(String reason, String message) {
      return run()
          .condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW))
          .failedJob("j-0", reason, message)
          .map();
    }
  }

  @Nested
  @DisplayName("no way back")
  class Monotonic {
    @Test
    @DisplayName(
        "running stays running when a pod of the attempt fails, until the JobSet says Failed (never back to starting)")
    void runningStaysRunning() {
      Runs r =
          run()
              .admittedWorkload(T0)
              .pods(
                  readyPod("p0", "n0"),
                  pod(
                      "p1",
                      "n1",
                      "Failed",
                      false,
                      ContainerSnapshot.terminated("node", 1, "Error")));
      assertEquals(Phase.RUNNING, r.map().phase());
      r.condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW));
      assertEquals(Phase.FAILED, r.map().phase());
    }

    @Test
    @DisplayName(
        "pods created one by one, each scheduled, pulling, then ready: the starting step only moves forward (no description twice)")
    void startingStepOnlyMovesForward() {
      PodSnapshot unscheduled0 = pod("p0", "", "Pending", false);
      PodSnapshot pulling0 =
          pod("p0", "n0", "Pending", false, ContainerSnapshot.waiting("node", "ContainerCreating"));
      PodSnapshot pulling1 =
          pod("p1", "n1", "Pending", false, ContainerSnapshot.waiting("node", "ContainerCreating"));
      List<List<PodSnapshot>> steps =
          List.of(
              List.of(),
              List.of(unscheduled0),
              List.of(pulling0),
              List.of(pulling0, pod("p1", "", "Pending", false)),
              List.of(pulling0, pulling1),
              List.of(readyPod("p0", "n0"), pulling1),
              List.of(readyPod("p0", "n0"), readyPod("p1", "n1")));
      List<String> posted = new ArrayList<>();
      for (List<PodSnapshot> pods : steps) {
        Runs r = run().admittedWorkload(T0);
        r.pods.addAll(pods);
        String d = r.map().description();
        if (posted.isEmpty() || !posted.get(posted.size() - 1).equals(d)) {
          posted.add(d);
        }
      }
      assertEquals(
          List.of(
              "admitted: no pods yet, attempt 1 of 4",
              "starting: waiting for nodes, attempt 1 of 4",
              "starting: pulling images, attempt 1 of 4",
              "running: 2 of 2 nodes ready, attempt 1 of 4"),
          posted);
    }

    @Test
    @DisplayName(
        "a 12-node run starting pod by pod (created, scheduled, pulling, ready) has 3 descriptions in 36 observations, not one per pod")
    void twelveNodesStartWithoutChurn() {
      List<PodSnapshot> pods = new ArrayList<>();
      List<String> posted = new ArrayList<>();
      Consumer<List<PodSnapshot>> observe =
          now -> {
            Runs r = run().admittedWorkload(T0);
            r.expected = 12;
            r.pods.addAll(now);
            String d = r.map().description();
            if (posted.isEmpty() || !posted.get(posted.size() - 1).equals(d)) {
              posted.add(d);
            }
          };
      for (int i = 0; i < 12; i++) {
        pods.add(pod("p" + i, "", "Pending", false));
        observe.accept(pods);
      }
      for (int i = 0; i < 12; i++) {
        pods.set(
            i,
            pod(
                "p" + i,
                "n" + i,
                "Pending",
                false,
                ContainerSnapshot.waiting("node", "ContainerCreating")));
        observe.accept(pods);
      }
      for (int i = 0; i < 12; i++) {
        pods.set(i, readyPod("p" + i, "n" + i));
        observe.accept(pods);
      }
      assertEquals(
          List.of(
              "starting: waiting for nodes, attempt 1 of 4",
              "starting: pulling images, attempt 1 of 4",
              "running: 12 of 12 nodes ready, attempt 1 of 4"),
          posted,
          "36 observations, 3 descriptions");
    }

    @Test
    @DisplayName(
        "an unschedulable pod gives the scheduler's reason in the starting description, without node count and preemption note")
    void schedulerReason() {
      PodSnapshot pending =
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
                      "PodScheduled",
                      false,
                      "Unschedulable",
                      "0/3 nodes are available: persistentvolumeclaim \"ddp-snapshots\" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
                      T0)));
      RunState s = run().admittedWorkload(T0).pods(pending).map();
      assertEquals(
          "starting: waiting for nodes: persistentvolumeclaim \"ddp-snapshots\" not found, attempt 1 of 4",
          s.description());
    }
  }

  @Nested
  class MpiLauncher {
    @Test
    @DisplayName(
        "an MPI run of 3 nodes with its launcher up: running, 3 of 3 nodes (the launcher is no node)")
    void launcherIsNoNode() {
      RunState s =
          run()
              .mpi(3)
              .pods(
                  readyPod("p0", "n0"),
                  readyPod("p1", "n1"),
                  readyPod("p2", "n2"),
                  launcher("n0", "Running", true, ContainerSnapshot.running("node")))
              .map();
      assertEquals(Phase.RUNNING, s.phase());
      assertEquals(3, s.nodesReady());
      assertEquals(3, s.nodesTotal());
      assertEquals("running: 3 of 3 nodes ready, attempt 1 of 4", s.description());
    }

    @Test
    @DisplayName("every node ready but the launcher not yet: still starting, 3 of 3 nodes ready")
    void launcherNotUpYet() {
      RunState s =
          run()
              .mpi(3)
              .admittedWorkload(T0)
              .pods(
                  readyPod("p0", "n0"),
                  readyPod("p1", "n1"),
                  readyPod("p2", "n2"),
                  launcher(
                      "n0",
                      "Pending",
                      false,
                      ContainerSnapshot.waiting("node", "ContainerCreating")))
              .map();
      assertEquals(Phase.STARTING, s.phase());
      assertEquals(3, s.nodesReady());
      assertEquals(3, s.nodesTotal());
    }

    @Test
    @DisplayName(
        "a launcher that exits 1 is the run's failure: user error, its node and exit code; nodes 2 of 2")
    void launcherFailure() {
      RunState s =
          run()
              .mpi(2)
              .condition(yes("Failed", "FailJobSetFailurePolicyAction", NOW))
              .pods(
                  readyPod("p0", "n0"),
                  readyPod("p1", "n1"),
                  launcher("n5", "Failed", false, ContainerSnapshot.terminated("node", 1, "Error")))
              .map();
      assertEquals(Phase.FAILED, s.phase());
      assertEquals(Cause.USER, s.cause());
      assertEquals("n5", s.node());
      assertEquals(1, s.exitCode());
      assertEquals(2, s.nodesReady());
      assertEquals(2, s.nodesTotal());
    }

    @Test
    @DisplayName("a succeeded MPI run counts its done nodes, not its launcher")
    void succeededCountsNodes() {
      RunState s =
          run()
              .mpi(1)
              .condition(yes("Completed", "AllJobsCompleted", NOW))
              .pods(
                  readyPod("p0", "n0"),
                  launcher(
                      "n0",
                      "Succeeded",
                      false,
                      ContainerSnapshot.terminated("node", 0, "Completed")))
              .map();
      assertEquals(1, s.nodesReady());
      assertEquals(1, s.nodesTotal());
    }
  }
}
