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
 * {@link DeepspeedLauncher}: the DeepSpeed launcher as the command of a multi-node run on a runtime
 * without mpirun trains each node alone (found by a fresh user: it compiled clean).
 */
class DeepspeedLauncherTest {
  @TempDir Path dir;

  private List<Diagnostic> e409(String trainYaml, Map<String, String> files) {
    CompileResult result = TrainProject.create(dir, "jobs/a", trainYaml, files).compile();
    return result.diagnostics().stream()
        .filter(d -> d.code() == DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY)
        .toList();
  }

  private List<Diagnostic> e409(String trainYaml) {
    return e409(trainYaml, Map.of());
  }

  @Test
  @DisplayName(
      "deepspeed train.py on the torch runtime with 2 nodes: E409 at the launcher word, the hint starts the script with torchrun and keeps its arguments")
  void torchRuntime() {
    List<Diagnostic> found =
        e409(
            "nodes: 2\nrun: deepspeed --num_gpus 1 --master_port=29501 train.py --deepspeed_config ds.json\n");
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertEquals(Severity.ERROR, d.severity());
    assertEquals("train.yaml:2:6", d.location().toString());
    assertEquals(
        "`run` starts the DeepSpeed launcher on each of the 2 nodes: without a hostfile it starts"
            + " ranks on its own node only, and with one it reaches the others over SSH, which these"
            + " pods do not run, so each node would train alone",
        d.message());
    assertEquals(
        "start the script with torchrun, which forms the group of all nodes (deepspeed.initialize"
            + " reads its RANK, WORLD_SIZE and MASTER_ADDR; LOCAL_RANK comes in the environment, not"
            + " as --local_rank), or use `runtime: deepspeed`, which starts every rank with mpirun,"
            + " e.g. `run: torchrun train.py --deepspeed_config ds.json`",
        d.hint());
  }

  @Test
  @DisplayName(
      "the hinted line compiles clean; --hostfile's value, --module and --no_python map to torchrun; a path to deepspeed counts")
  void hintsCompileAndMap() {
    String hint =
        e409("nodes: 3\nrun: cd src && /opt/venv/bin/deepspeed -H hosts --module pkg.train --lr 1\n")
            .get(0)
            .hint();
    assertTrue(hint.endsWith("e.g. `run: cd src && torchrun -m pkg.train --lr 1`"), hint);
    assertTrue(
        e409("nodes: 2\nrun: deepspeed --no_python --include localhost:0 ./train.sh\n")
            .get(0)
            .hint()
            .endsWith("e.g. `run: torchrun --no-python ./train.sh`"));
    assertTrue(
        e409("nodes: 2\nrun: deepspeed --num_gpus 4 train.py --deepspeed ds.json --local_rank 0\n")
            .get(0)
            .hint()
            .endsWith("e.g. `run: torchrun train.py --deepspeed ds.json`"),
        "a literal --local_rank goes: torchrun sets LOCAL_RANK per process");
    assertTrue(
        e409("nodes: 2\nrun: deepspeed train.py --local-rank=0 && torchrun x.py --local_rank 1\n")
            .get(0)
            .hint()
            .endsWith("e.g. `run: torchrun train.py && torchrun x.py --local_rank 1`"));
    assertTrue(
        e409("nodes: 2\nrun: deepspeed --num_gpus 2\n")
            .get(0)
            .hint()
            .endsWith("e.g. `run: torchrun train.py`"));
    assertEquals(
        List.of(),
        e409(
            "nodes: 2\nrun: torchrun train.py --deepspeed_config ds.json\n",
            Map.of("train.py", "import deepspeed\n")));
  }

  @Test
  @DisplayName(
      "found after exec, env, NAME=value; as deepspeed.pt, ds and python -m deepspeed.launcher.runner; --no_ssh with a literal --node_rank gets only this hint")
  void otherSpellings() {
    for (String run :
        List.of(
            "exec deepspeed train.py",
            "env FOO=1 deepspeed train.py",
            "env -i FOO=1 nohup deepspeed train.py",
            "FOO=1 deepspeed train.py",
            "ds train.py",
            "deepspeed.pt train.py",
            "python3 -u -m deepspeed.launcher.runner train.py")) {
      List<Diagnostic> found = e409("nodes: 2\nrun: " + run + "\n");
      assertEquals(1, found.size(), run + ": " + found);
      assertTrue(found.get(0).hint().endsWith("torchrun train.py`"), run + ": " + found);
    }
    List<Diagnostic> noSsh =
        e409("nodes: 2\nrun: deepspeed --no_ssh --node_rank 0 --hostfile h train.py\n");
    assertEquals(1, noSsh.size(), noSsh.toString());
    assertTrue(noSsh.get(0).hint().endsWith("e.g. `run: torchrun train.py`"), noSsh.toString());
    assertEquals(
        List.of(),
        e409(
            "nodes: 2\nrun: torchrun train.py --name ds\n",
            Map.of("train.py", "import os\nprint(os.environ['RANK'])\n")));
  }

  @Test
  @DisplayName(
      "on plain and jax the hint says runtime torch as well; not reported: one node, MPI runtimes, deepspeed as an argument")
  void otherRuntimesAndQuietCases() {
    String plain = e409("runtime: plain\nnodes: 2\nrun: deepspeed train.py\n").get(0).hint();
    assertTrue(
        plain.startsWith("start the script with torchrun on `runtime: torch` (this runtime sets"),
        plain);
    assertTrue(plain.endsWith("e.g. `runtime: torch` and `run: torchrun train.py`"), plain);
    assertEquals(1, e409("runtime: jax\nnodes: 2\nrun: deepspeed train.py\n").size());
    assertEquals(List.of(), e409("nodes: 1\nrun: deepspeed train.py\n"));
    assertEquals(
        List.of(),
        e409("runtime: deepspeed\nnodes: 2\nrun: python train.py --deepspeed_config ds.json\n"));
    assertEquals(List.of(), e409("nodes: 2\nrun: torchrun train.py --launcher deepspeed\n"));
    assertEquals(List.of(), e409("nodes: 2\nrun: echo deepspeed && torchrun train.py\n"));
  }

  @Test
  @DisplayName(
      "the torch launch rules still run without the DeepSpeed launcher (one node or several) and are skipped with it: one finding, one command")
  void torchRulesOnlyWithoutIt() {
    assertEquals(1, e409("nodes: 2\nrun: torchrun --nnodes 3 train.py\n").size());
    assertEquals(1, e409("nodes: 1\nrun: torchrun --nnodes 3 train.py\n").size());
    CompileResult module =
        TrainProject.create(
                dir,
                "jobs/m",
                "nodes: 2\nrun: python -m deepspeed.launcher.runner train.py\n",
                Map.of())
            .compile();
    List<Diagnostic> atRun =
        module.diagnostics().stream().filter(d -> d.pointer().equals("/run")).toList();
    assertEquals(1, atRun.size(), atRun.toString());
    assertEquals(DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY, atRun.get(0).code());
  }
}
