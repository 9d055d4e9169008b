package dev.trainyard.compiler.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link WorldCheck} on probe lines in the format sitecustomize.py writes. */
class WorldCheckTest {
  @Test
  @DisplayName("every promised rank once in a world of the promised size: formed")
  void formed() {
    WorldCheck.Verdict v =
        WorldCheck.check(
            2,
            Map.of(
                "node-1", List.of("torch rank=1 world=2 pid=11"),
                "node-0", List.of("torch rank=0 world=2 pid=10", "not a probe line")));
    assertEquals(WorldCheck.Outcome.FORMED, v.outcome());
    assertEquals(Optional.of(2), v.worldSeen());
    assertEquals("world check: 2 of 2 ranks formed one torch world (ranks 0-1)", v.line());
    assertFalse(v.wrong());
  }

  @Test
  @DisplayName("each node rank 0 of 1 though 2 are promised: trained alone, a wrong world")
  void alone() {
    WorldCheck.Verdict v =
        WorldCheck.check(
            2,
            Map.of(
                "node-0", List.of("torch rank=0 world=1 pid=10"),
                "node-1", List.of("torch rank=0 world=1 pid=11")));
    assertEquals(WorldCheck.Outcome.ALONE, v.outcome());
    assertEquals(Optional.of(1), v.worldSeen());
    assertTrue(v.wrong());
    assertEquals(
        "world check: FAILED: train.yaml promises a world of 2, but node-0 (rank 0 of 1), node-1 (rank 0 of 1)"
            + " trained alone; launch with torchrun (it reads PET_*) or pass the world from the environment",
        v.line());
  }

  @Test
  @DisplayName("a world of 2 where 4 are promised: a smaller world")
  void smaller() {
    WorldCheck.Verdict v =
        WorldCheck.check(4, Map.of("node-0", List.of("jax rank=0 world=2 pid=1")));
    assertEquals(WorldCheck.Outcome.ALONE, v.outcome());
    assertTrue(v.line().contains("node-0 (rank 0 of 2) joined a smaller world"), v.line());
  }

  @Test
  @DisplayName("a rank twice, or a rank missing, in a world of the right size: split")
  void split() {
    WorldCheck.Verdict twice =
        WorldCheck.check(
            2,
            Map.of(
                "node-0", List.of("torch rank=0 world=2 pid=1"),
                "node-1", List.of("torch rank=0 world=2 pid=2")));
    assertEquals(WorldCheck.Outcome.SPLIT, twice.outcome());
    assertTrue(twice.wrong());
    assertEquals(
        "world check: FAILED: 2 process(es) reported ranks [0] of a torch world of 2; expected each of the 2 ranks once",
        twice.line());
    WorldCheck.Verdict missing =
        WorldCheck.check(2, Map.of("node-0", List.of("torch rank=0 world=2 pid=1")));
    assertEquals(WorldCheck.Outcome.SPLIT, missing.outcome());
    WorldCheck.Verdict extra =
        WorldCheck.check(
            2,
            Map.of(
                "node-0", List.of("torch rank=0 world=2 pid=1", "torch rank=1 world=2 pid=3"),
                "node-1", List.of("torch rank=1 world=2 pid=2")));
    assertEquals(WorldCheck.Outcome.SPLIT, extra.outcome());
  }

  @Test
  @DisplayName("no probe line: not checked, and not a failure")
  void notChecked() {
    WorldCheck.Verdict v = WorldCheck.check(2, Map.of("node-0", List.of(), "node-1", List.of("x")));
    assertEquals(WorldCheck.Outcome.NOT_CHECKED, v.outcome());
    assertEquals(Optional.empty(), v.worldSeen());
    assertFalse(v.wrong());
    assertEquals(
        "world check: not checked (no process set up torch.distributed or jax.distributed)",
        v.line());
  }

  @Test
  @DisplayName(
      "mpi: the ranks mpirun started form the world; torch lines of the same processes win over them")
  void mpiLines() {
    WorldCheck.Verdict mpi =
        WorldCheck.check(
            4,
            Map.of(
                "launcher",
                List.of(
                    "mpi rank=1 world=4 pid=1",
                    "mpi rank=0 world=4 pid=2",
                    "mpi rank=3 world=4 pid=3",
                    "mpi rank=2 world=4 pid=4")));
    assertEquals(WorldCheck.Outcome.FORMED, mpi.outcome());
    assertEquals("world check: 4 of 4 ranks formed one mpi world (ranks 0-3)", mpi.line());
    WorldCheck.Verdict both =
        WorldCheck.check(
            2,
            Map.of(
                "launcher",
                List.of(
                    "mpi rank=0 world=2 pid=1",
                    "torch rank=0 world=1 pid=1",
                    "mpi rank=1 world=2 pid=2",
                    "torch rank=0 world=1 pid=2")));
    assertEquals(WorldCheck.Outcome.ALONE, both.outcome(), both.line());
    WorldCheck.Verdict torchFirst =
        WorldCheck.check(
            2,
            Map.of(
                "launcher",
                List.of(
                    "torch rank=0 world=2 pid=1",
                    "mpi rank=0 world=2 pid=1",
                    "torch rank=1 world=2 pid=2",
                    "mpi rank=1 world=2 pid=2")));
    assertEquals(WorldCheck.Outcome.FORMED, torchFirst.outcome(), torchFirst.line());
    assertEquals("world check: 2 of 2 ranks formed one torch world (ranks 0-1)", torchFirst.line());
  }
}
