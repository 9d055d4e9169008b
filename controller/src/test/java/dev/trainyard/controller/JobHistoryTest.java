package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A job's usual duration: the median of its other successful runs, bounded per job and in jobs. */
class JobHistoryTest {

  static final RunProvenance P =
      new RunProvenance(
          "https://github.com/acme/llm.git", "a".repeat(40), "jobs/x/train.yaml", "dev", "x-1");

  @Test
  @DisplayName(
      "the median of the job's other runs once there are three; its own run and another namespace,"
          + " repo or path do not count; a run is recorded once")
  void median() {
    JobHistory h = new JobHistory();
    String job = JobHistory.job("team-a", P);
    h.record(job, "r1", Duration.ofMinutes(10));
    h.record(job, "r2", Duration.ofMinutes(30));
    assertEquals(Optional.empty(), h.usual(job, "r9"), "two runs are no history");
    h.record(job, "r3", Duration.ofMinutes(20));
    h.record(job, "r3", Duration.ofMinutes(99));
    assertEquals(Optional.of(Duration.ofMinutes(20)), h.usual(job, "r9"));
    assertEquals(Optional.empty(), h.usual(job, "r3"), "its own duration is not its history");
    h.record(job, "r4", Duration.ofMinutes(40));
    assertEquals(Optional.of(Duration.ofMinutes(30)), h.usual(job, "r9"), "upper median of 4");
    assertEquals(Optional.empty(), h.usual(JobHistory.job("team-b", P), "r9"));
    RunProvenance otherPath =
        new RunProvenance(P.sourceRepo(), P.sourceCommit(), "jobs/y/train.yaml", "dev", "y-1");
    assertEquals(Optional.empty(), h.usual(JobHistory.job("team-a", otherPath), "r9"));
    h.record(job, "neg", Duration.ofSeconds(-1));
    h.record(job, "none", null);
    assertEquals(Optional.empty(), h.usual(job, "r1").filter(d -> d.isNegative()));
    assertEquals(Optional.of(Duration.ofMinutes(30)), h.usual(job, "r9"), "nothing added");
  }

  @Test
  @DisplayName("at most PER_JOB runs per job (the oldest go) and JOBS jobs (the least used go)")
  void bounded() {
    JobHistory h = new JobHistory();
    for (int i = 0; i < 3; i++) {
      h.record("stale", "s" + i, Duration.ofMinutes(5));
    }
    assertEquals(Optional.of(Duration.ofMinutes(5)), h.usual("stale", "x"));
    String job = JobHistory.job("team-a", P);
    for (int i = 0; i < JobHistory.PER_JOB; i++) {
      h.record(job, "old-" + i, Duration.ofHours(1));
    }
    String exact = "exactly-20";
    for (int i = 0; i < JobHistory.PER_JOB; i++) {
      h.record(
          exact, "r" + i, i < JobHistory.PER_JOB / 2 ? Duration.ofHours(1) : Duration.ofMinutes(1));
    }
    assertEquals(
        Optional.of(Duration.ofHours(1)), h.usual(exact, "x"), "all 20 kept: upper median");
    for (int i = 0; i < 11; i++) {
      h.record(job, "new-" + i, Duration.ofMinutes(1));
    }
    // Kept: 9 of an hour, 11 of a minute (all 31 would give an hour).
    assertEquals(Optional.of(Duration.ofMinutes(1)), h.usual(job, "x"));
    for (int j = 0; j < JobHistory.JOBS - 3; j++) {
      h.record("job-" + j, "r", Duration.ofMinutes(1));
    }
    h.record("one-more", "r", Duration.ofMinutes(1));
    assertEquals(Optional.empty(), h.usual("stale", "x"), "the job used longest ago went");
    assertEquals(Optional.of(Duration.ofMinutes(1)), h.usual(job, "x"), "a newer one stayed");
  }
}
