package dev.trainyard.compiler.resolve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.resolve.JobLayout.ReplicatedJobShape;
import dev.trainyard.compiler.runtime.RuntimeBinder;
import dev.trainyard.compiler.runtime.RuntimeDefinition;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The JobSet name budget: 54 − len(rjob) − digits(replicas−1) − digits(completions−1) (jobset#408).
 */
class JobLayoutTest {
  private static JobLayout node(int pods) {
    return new JobLayout(List.of(new ReplicatedJobShape(JobLayout.NODE, pods, true)));
  }

  @ParameterizedTest(name = "{0} pods: {1}")
  @CsvSource({"1, 48", "2, 48", "9, 48", "10, 48", "11, 47", "100, 47", "101, 46"})
  @DisplayName(
      "the budget loses a character when the last pod index gains a digit (10 pods: index 9; 11 pods: index 10)")
  void budgetByPods(int pods, int max) {
    assertEquals(max, node(pods).maxJobSetNameLength());
  }

  @Test
  @DisplayName(
      "the tightest replicated job sets the budget: a launcher (8 characters) beats 10 node pods")
  void tightest() {
    JobLayout layout =
        new JobLayout(
            List.of(
                new ReplicatedJobShape(JobLayout.NODE, 10, true),
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

  private static RuntimeDefinition runtime(String framework, String mpi) {
    String yaml =
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: r\nversion: 1.0-1\nframework: "
            + framework
            + "\nimage: img\n"
            + mpi;
    var doc = new YamlDocumentLoader().load(new SourceFile("r.yaml", yaml)).value().orElseThrow();
    return RuntimeBinder.bind(doc, "test").value().orElseThrow();
  }

  @Test
  @DisplayName("a runtime without MPI has one node job of `nodes` pods")
  void plainLayout() {
    assertEquals(
        List.of(new ReplicatedJobShape(JobLayout.NODE, 3, true)),
        JobLayout.of(runtime("torch", ""), 3).jobs());
  }

  @Test
  @DisplayName("MPI: node job first, then a separate launcher that runs no ranks")
  void mpiLayout() {
    assertEquals(
        List.of(
            new ReplicatedJobShape(JobLayout.NODE, 3, true),
            new ReplicatedJobShape(JobLayout.LAUNCHER, 1, false)),
        JobLayout.of(runtime("mpi", "mpi: {launcherAsNode: false}\n"), 3).jobs());
  }

  @Test
  @DisplayName(
      "launcherAsNode: the launcher is rank host 0, so N nodes have N-1 node pods and 1 node has no node job")
  void launcherAsNode() {
    RuntimeDefinition ds = runtime("deepspeed", "mpi: {launcherAsNode: true}\n");
    assertEquals(
        List.of(
            new ReplicatedJobShape(JobLayout.NODE, 2, true),
            new ReplicatedJobShape(JobLayout.LAUNCHER, 1, true)),
        JobLayout.of(ds, 3).jobs());
    assertEquals(
        List.of(new ReplicatedJobShape(JobLayout.LAUNCHER, 1, true)), JobLayout.of(ds, 1).jobs());
  }

  @Test
  @DisplayName("job(name) finds the replicated job of that name only")
  void findJob() {
    JobLayout layout = JobLayout.of(runtime("mpi", "mpi: {}\n"), 2);
    assertEquals(JobLayout.LAUNCHER, layout.job(JobLayout.LAUNCHER).orElseThrow().name());
    assertEquals(Optional.empty(), layout.job("worker"));
  }
}
