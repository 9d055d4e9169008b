package dev.trainyard.compiler.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LocalRunner}'s note on a run whose ranks never report a process group. */
class LocalRunnerTest {
  @TempDir Path tmp;

  private LocalRunner.Outcome run(String run, StringWriter err) throws Exception {
    CompileResult r =
        TrainProject.create(tmp.resolve("repo"), "nodes: 2\nrun: " + run + "\n").compile();
    assertFalse(r.hasErrors(), r.diagnostics().toString());
    AtomicInteger port = new AtomicInteger(41000);
    LocalPlan plan =
        LocalPlanner.plan(
                TrainProject.tree(r),
                new LocalPlanner.Settings(0, 1, name -> Optional.empty(), port::incrementAndGet))
            .plan()
            .orElseThrow();
    Path scratch = Files.createDirectories(tmp.resolve("scratch"));
    LocalRunner runner =
        new LocalRunner(
            plan,
            scratch,
            new PrintWriter(new StringWriter()),
            new PrintWriter(err),
            Duration.ofSeconds(1),
            Clock.systemUTC());
    for (LocalNode node : plan.nodes()) {
      Files.createDirectories(runner.checkout(node).resolve(node.workdir()));
    }
    return runner.run(Duration.ofSeconds(4));
  }

  @Test
  @DisplayName(
      "every node still running and no rank in a process group after the quiet time: one note on stderr naming the promised world and the timeout, not a failure of its own")
  void quietRunIsNoted() throws Exception {
    StringWriter err = new StringWriter();
    LocalRunner.Outcome o = run("sleep 30", err);
    assertEquals(124, o.exitCode(), o.state());
    assertEquals(
        "run --local: no rank has joined a process group after 1s (2 promised); a launch line that"
            + " never forms the group waits here until --timeout (4s)\n",
        err.toString());
  }

  @Test
  @DisplayName("a rank that has reported its world: no note")
  void reportedRankIsNotNoted() throws Exception {
    StringWriter err = new StringWriter();
    LocalRunner.Outcome o =
        run("'echo \"rank 0 of 2\" >> \"$TRAINYARD_LOCAL_PROBE\"; sleep 30'", err);
    assertEquals(124, o.exitCode(), o.state());
    assertEquals("", err.toString());
  }
}
