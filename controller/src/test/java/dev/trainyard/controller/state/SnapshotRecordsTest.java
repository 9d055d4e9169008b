package dev.trainyard.controller.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The snapshot records read an absent (null) text as "" (a pod's phase as Pending), so the mapper
 * never meets null.
 */
class SnapshotRecordsTest {

  @Test
  @DisplayName(
      "absent texts of containers, conditions, pods, JobSets, Workloads and failures read as empty; a pod without phase is Pending")
  void nullsReadAsEmpty() {
    ContainerSnapshot c =
        new ContainerSnapshot("node", null, ContainerSnapshot.Status.UNKNOWN, null, null, null);
    assertEquals(List.of("", "", ""), List.of(c.image(), c.reason(), c.message()));
    ConditionSnapshot k = new ConditionSnapshot("Ready", true, null, null, null);
    assertEquals(List.of("", ""), List.of(k.reason(), k.message()));
    PodSnapshot p =
        new PodSnapshot(
            "p", null, null, null, 0, false, false, null, List.of(), List.of(), List.of());
    assertEquals(List.of("", "Pending", ""), List.of(p.node(), p.phase(), p.reason()));
    JobSetSnapshot js = new JobSetSnapshot("n", "j", null, false, 1, 0, 0, null, List.of());
    assertEquals("", js.localQueue());
    assertEquals("", new WorkloadSnapshot(null, List.of()).clusterQueue());
    assertEquals("", new Failure(Cause.USER, "exit 1", null, 1).node());
    assertEquals("", new Failure(Cause.USER, "exit 1", "n", 1, null).hint());
    assertEquals(
        UserSettings.NONE,
        new JobSetSnapshot("n", "j", null, false, 1, 1, 0, 0, "", List.of(), null).settings());
    assertEquals("", new UserSettings(null, null).image());
    assertEquals("", new JobSnapshot("j", 0, List.of(), null).failedIndexes());
    RunObservation o =
        new RunObservation(js, List.of(), Optional.empty(), Instant.EPOCH, List.of(), null);
    assertEquals(Optional.empty(), o.earlier());
  }

  @Test
  @DisplayName("an observation keeps what it carries when its Jobs or its earlier evidence are set")
  void withers() {
    JobSetSnapshot js = new JobSetSnapshot("n", "j", null, false, 1, 0, 0, "q", List.of());
    Failure f =
        new Failure(Cause.USER, "cannot pull image x", "n0", null, "check image in train.yaml");
    JobSnapshot job = new JobSnapshot("j-0", 0, List.of(), "1");
    RunObservation o =
        new RunObservation(js, List.of(), Optional.empty(), Instant.EPOCH)
            .withEarlier(Optional.of(f))
            .withJobs(List.of(job));
    assertEquals(Optional.of(f), o.earlier());
    assertEquals(List.of(job), o.jobs());
    assertEquals(Optional.of(f), o.withJobs(List.of()).earlier());
    assertEquals(List.of(job), o.withEarlier(Optional.empty()).jobs());
    assertEquals(js, o.jobSet());
  }

  @Test
  @DisplayName("given texts are kept as they are")
  void kept() {
    ContainerSnapshot c =
        new ContainerSnapshot(
            "node", "img", ContainerSnapshot.Status.WAITING, "ErrImagePull", "m", null);
    assertEquals(List.of("img", "ErrImagePull", "m"), List.of(c.image(), c.reason(), c.message()));
    PodSnapshot p =
        new PodSnapshot(
            "p", "gpu-1", "Running", "r", 0, true, false, null, List.of(), List.of(), List.of());
    assertEquals(List.of("gpu-1", "Running", "r"), List.of(p.node(), p.phase(), p.reason()));
    ConditionSnapshot k = new ConditionSnapshot("Ready", true, "R", "M", null);
    assertEquals(List.of("R", "M"), List.of(k.reason(), k.message()));
    assertEquals("cq", new WorkloadSnapshot("cq", List.of()).clusterQueue());
    assertEquals("gpu-1", new Failure(Cause.PLATFORM, "evicted", "gpu-1", null).node());
    assertEquals(
        "q", new JobSetSnapshot("n", "j", null, false, 1, 0, 0, "q", List.of()).localQueue());
  }
}
