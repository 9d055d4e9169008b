package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.ConditionSnapshot;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.JobSnapshot;
import dev.trainyard.controller.state.RunObservation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The child Jobs of a failed run: read on demand, once a Job shows why, and never for a run that
 * did not fail.
 */
class FailedJobsTest {
  static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  static final RunKey KEY = new RunKey("team-a", "r");
  final ReconcilerTest.FakeSource source = new ReconcilerTest.FakeSource();
  final List<RunKey> reads = new ArrayList<>();
  List<JobSnapshot> jobs = List.of();

  FailedJobs failedJobs() {
    return new FailedJobs(
        source,
        key -> {
          reads.add(key);
          return jobs;
        });
  }

  void jobSet(Instant created, ConditionSnapshot... conditions) {
    source.runs.put(
        KEY,
        new RunObservation(
            new JobSetSnapshot("team-a", "r", created, false, 1, 0, 0, "", List.of(conditions)),
            List.of(),
            Optional.empty(),
            T0.plusSeconds(1)));
  }

  @Test
  @DisplayName(
      "a run that did not fail reads no Job; a failed one reads them until a Job is Failed, then keeps the answer")
  void readsOnlyForFailedRuns() {
    FailedJobs f = failedJobs();
    jobSet(T0);
    f.observe(KEY);
    assertEquals(List.of(), reads);
    jobSet(T0, new ConditionSnapshot("Failed", true, "FailJobSetFailurePolicyAction", "", T0));
    assertEquals(List.of(), f.observe(KEY).orElseThrow().jobs());
    f.observe(KEY);
    assertEquals(2, reads.size(), "nothing failed yet: read again");
    jobs =
        List.of(
            new JobSnapshot(
                "r-node-0",
                0,
                List.of(new ConditionSnapshot("Failed", true, "DeadlineExceeded", "", T0))));
    assertEquals(jobs, f.observe(KEY).orElseThrow().jobs());
    assertEquals(jobs, f.observe(KEY).orElseThrow().jobs());
    assertEquals(3, reads.size(), "a failed Job is kept");
    jobSet(
        T0.plusSeconds(5),
        new ConditionSnapshot("Failed", true, "FailJobSetFailurePolicyAction", "", T0));
    f.observe(KEY);
    assertEquals(4, reads.size(), "a re-created JobSet is read again");
    source.runs.remove(KEY);
    assertTrue(f.observe(KEY).isEmpty());
    source.provenance.put(KEY, new RunProvenance("r", "c", "p", "dev", "r"));
    assertEquals(source.provenance.get(KEY), f.provenance(KEY).orElseThrow());
  }
}
