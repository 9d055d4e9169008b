package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * W426 beyond torch (issue #19 item 4): an MLX or Horovod script on the plain or jax runtime
 * ({@link LauncherlessRun}) and MaxText's {@code hardware=gpu} without {@code JAX_COORDINATOR_IP}
 * ({@link MaxTextRule}).
 */
class TrainAloneBeyondTorchTest {
  @TempDir Path dir;

  private List<Diagnostic> w426(String trainYaml, Map<String, String> files) {
    CompileResult result = TrainProject.create(dir, "jobs/a", trainYaml, files).compile();
    assertTrue(result.tree().isPresent(), result.diagnostics().toString());
    return result.diagnostics().stream()
        .filter(d -> d.code() == DiagnosticCode.NODES_TRAIN_ALONE)
        .toList();
  }

  @Test
  @DisplayName(
      "an MLX script on runtime plain with 2 nodes: W426 at python, the hint names the mlx runtime (mpirun forms the world), no torchrun")
  void mlxOnPlain() {
    List<Diagnostic> found =
        w426(
            "runtime: plain\nnodes: 2\nrun: python3 train.py\n",
            Map.of("train.py", "import mlx.core as mx\ngroup = mx.distributed.init()\n"));
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertEquals(Severity.WARNING, d.severity());
    assertEquals("train.yaml:3:6", d.location().toString());
    assertEquals("/run", d.pointer());
    assertEquals(
        "train.py uses MLX, whose mx.distributed.init() takes its ranks from mpirun, and `run` starts"
            + " it with python on each of the 2 nodes: each would train alone",
        d.message());
    assertEquals(
        "use an MPI runtime, which starts `run` under mpirun across the nodes: `runtime: mlx` (an"
            + " image with mlx) and `run: python train.py`",
        d.hint());
  }

  @Test
  @DisplayName(
      "Horovod on jax with 3 nodes is reported; on plain, one node, or a script that is neither: not")
  void horovodAndQuietCases() {
    List<Diagnostic> horovod =
        w426(
            "runtime: jax\nnodes: 3\nrun: python hvd.py\n",
            Map.of("hvd.py", "import horovod.torch as hvd\nhvd.init()\n"));
    assertEquals(1, horovod.size(), horovod.toString());
    assertTrue(horovod.get(0).hint().startsWith("use an MPI runtime"), horovod.get(0).hint());
    assertTrue(horovod.get(0).hint().contains("`runtime: mpi` (an image with horovod)"));
    assertEquals(
        List.of(),
        w426("runtime: plain\nrun: python3 train.py\n", Map.of("train.py", "import mlx.core\n")));
    assertEquals(
        List.of(),
        w426(
            "runtime: plain\nnodes: 2\nrun: python3 train.py\n",
            Map.of("train.py", "import torch\n")));
  }

  @Test
  @DisplayName(
      "MaxText hardware=gpu on 2 jax nodes with no JAX_COORDINATOR_IP: W426 at the flag; the hint puts the coordinator before that command")
  void maxText() {
    List<Diagnostic> found =
        w426(
            "runtime: jax\nnodes: 2\nrun: |\n  cd maxtext\n  python3 -m MaxText.train MaxText/configs/base.yml run_name=r hardware=gpu\n",
            Map.of());
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertEquals(5, d.location().line());
    assertEquals(
        3 + "python3 -m MaxText.train MaxText/configs/base.yml run_name=r ".length(),
        d.location().column());
    assertEquals(
        "`hardware=gpu` makes MaxText join its nodes only when JAX_COORDINATOR_IP is set, and no node"
            + " of the 2 has it: each would train alone",
        d.message());
    assertEquals(
        "name the run's coordinator on the command (MaxText also reads NNODES and NODE_RANK, which"
            + " every node has), e.g. `run: \"cd maxtext\\nJAX_COORDINATOR_IP=$MASTER_ADDR"
            + " JAX_COORDINATOR_PORT=$MASTER_PORT python3 -m MaxText.train MaxText/configs/base.yml"
            + " run_name=r hardware=gpu\"`",
        d.hint());
  }

  @Test
  @DisplayName(
      "MaxText not reported: one node, JAX_COORDINATOR_IP in run or env, hardware=gpu_multiprocess")
  void maxTextQuiet() {
    assertEquals(
        List.of(),
        w426("runtime: jax\nrun: python3 -m MaxText.train c.yml hardware=gpu\n", Map.of()));
    assertEquals(
        List.of(),
        w426(
            "runtime: jax\nnodes: 2\nrun: JAX_COORDINATOR_IP=$MASTER_ADDR JAX_COORDINATOR_PORT=$MASTER_PORT python3 -m MaxText.train c.yml hardware=gpu\n",
            Map.of()));
    assertEquals(
        List.of(),
        w426(
            "runtime: jax\nnodes: 2\nenv: {JAX_COORDINATOR_IP: 10.0.0.1}\nrun: python3 -m MaxText.train c.yml hardware=gpu\n",
            Map.of()));
    assertEquals(
        List.of(),
        w426(
            "runtime: jax\nnodes: 2\nrun: python3 -m MaxText.train c.yml hardware=gpu_multiprocess\n",
            Map.of()));
  }
}
