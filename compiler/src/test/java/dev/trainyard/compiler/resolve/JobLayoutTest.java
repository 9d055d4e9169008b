package dev.trainyard.compiler.resolve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.resolve.JobLayout.ReplicatedJobShape;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The JobSet name budget: 54 − len(rjob) − digits(replicas−1) − digits(completions−1) (jobset#408). */
class JobLayoutTest {
  private static JobLayout node(int pods) {
    return new JobLayout(List.of(new ReplicatedJobShape(JobLayout.NODE, pods, true)));
  }

  @ParameterizedTest(name = "{0} pods: {1}")
  @CsvSource({"1, 48", "2, 48", "9, 48", "10, 48", "11, 47", "100, 47", "101, 46"})
  @DisplayName("the budget loses a character when the last pod index gains a digit (10 pods: index 9; 11 pods: index 10)")
  void budgetByPods(int pods, int max) {
    assertEquals(max, node(pods).maxJobSetNameLength());
  }

  @Test
  @DisplayName("the tightest replicated job sets the budget: a launcher (8 characters) beats 10 node pods")
  void tightest() {
    JobLayout layout = new JobLayout(List.of(new ReplicatedJobShape(JobLayout.NODE, 10, true),
        new ReplicatedJobShape(JobLayout.LAUNCHER, 1, false)));
    assertEquals(JobLayout.LAUNCHER, layout.tightestJob().name());
    assertEquals(44, layout.maxJobSetNameLength());
  }

  @ParameterizedTest(name = "digits({0}) = {1}")
  @CsvSource({"-1, 1", "0, 1", "9, 1", "10, 2", "15, 2", "99, 2", "100, 3"})
  @DisplayName("digits of a pod index; a negative index counts as 0")
  void digits(int index, int digits) {
    assertEquals(digits, JobLayout.digits(index));
  }
}
