package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a fixed command drops of a Slurm launch line: the {@code srun} prefix with its options, and
 * the commands that only assign values computed from Slurm (issue #19 item 7).
 */
class SlurmRuleTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "srun -N 2 --ntasks-per-node=1 torchrun t.py | srun -N 2 --ntasks-per-node=1",
        "srun --nodes 2 --gpus-per-node 4 python t.py | srun --nodes 2 --gpus-per-node 4 ",
        "srun -l python3.11 t.py | srun -l ",
        "cd x && srun ./train.sh | srun ",
        "srun --mpi=pmix train.py | srun --mpi=pmix ",
        "srun -l hostname | ",
        "srun -N | ",
        "srun -N 2 | ",
        "srun -N 2; torchrun t.py | ",
        "echo srun | ",
        "torchrun t.py | ",
      })
  @DisplayName(
      "srun's prefix runs up to the program it starts, options' values included; none when srun starts nothing the rule can name")
  void srunPrefix(String run, String prefix) {
    Optional<int[]> span = SlurmRule.srunPrefix(RunTokens.of(run));
    assertEquals(
        prefix == null ? "" : prefix,
        span.map(s -> run.substring(s[0], s[1]).strip()).orElse(""),
        run);
  }

  @Test
  @DisplayName(
      "Slurm-only assignments: those computed from scontrol/srun/$SLURM_* and those computed from them in turn, each to the next command's start; the last one with the separator before it")
  void slurmAssignments() {
    String run = "a=$(scontrol show hostnames); b=${a}; c=1; d=$c; torchrun --master_addr $b t.py";
    RunTokens t = RunTokens.of(run);
    assertEquals(Set.of("a", "b"), SlurmRule.slurmVariables(t));
    List<String> spans =
        SlurmRule.slurmAssignmentSpans(t).stream().map(s -> run.substring(s[0], s[1])).toList();
    assertEquals(List.of("a=$(scontrol show hostnames); ", "b=${a}; "), spans);
    String last = "x=1; h=$(srun hostname)";
    assertEquals(
        List.of("; h=$(srun hostname)"),
        SlurmRule.slurmAssignmentSpans(RunTokens.of(last)).stream()
            .map(s -> last.substring(s[0], s[1]))
            .toList());
    assertEquals(Set.of(), SlurmRule.slurmVariables(RunTokens.of("a=1; b=$a; torchrun t.py")));
    String exported =
        "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
            + "torchrun --master_addr $MASTER_ADDR t.py";
    assertEquals(Set.of("MASTER_ADDR"), SlurmRule.slurmVariables(RunTokens.of(exported)));
    assertEquals(
        List.of(exported.substring(0, exported.indexOf('\n') + 1)),
        SlurmRule.slurmAssignmentSpans(RunTokens.of(exported)).stream()
            .map(s -> exported.substring(s[0], s[1]))
            .toList());
    assertEquals(Set.of(), SlurmRule.slurmVariables(RunTokens.of("export; torchrun t.py")));
    assertEquals(
        Set.of("n"), SlurmRule.slurmVariables(RunTokens.of("n=$SLURM_NNODES torchrun t.py")));
  }
}
