package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the {@code run} lint reads besides the flags: the script {@code python} starts (read from
 * the committed folder, {@link LauncherlessRun}), python's own options, and where a variable is
 * defined ({@link PodVariables}: secrets, the runtime template, a loop, {@code read}).
 */
class RunLintScriptTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path dir;

  private List<Diagnostic> alone(String run, Map<String, String> files) {
    TrainProject p =
        TrainProject.create(dir, TrainProject.FOLDER, RunLintCases.yaml("torch", 2, run), files);
    return p.compile().diagnostics().stream()
        .filter(d -> d.code() == DiagnosticCode.NODES_TRAIN_ALONE)
        .toList();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "FOO=1 python -W ignore train.py --x 1 | 1 | `run` starts train.py with python and no launcher | `run: FOO=1 torchrun train.py --x 1`",
        "python -m trainer.main                | 1 | `run` starts trainer.main with python            | `run: torchrun -m trainer.main`",
        "python3 -u -X dev -m trainer.main     | 1 | `run` starts trainer.main with python            | `run: torchrun -m trainer.main`",
        "echo python train.py                  | 0 | |",
        "python -c print(1)                    | 0 | |",
        "python -c 'import x' train.py         | 0 | |",
        "python3.11                            | 0 | |",
        "python -m                             | 0 | |",
        "python -m; echo hi                    | 0 | |",
        "cd x; python train.py                 | 1 | `run` starts train.py with python            | `run: cd x; torchrun train.py`",
        "python -m accelerate.commands.launch --num_machines $NNODES --num_processes $((NNODES * PET_NPROC_PER_NODE)) --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR train.py | 0 | |",
      })
  @DisplayName(
      "the launcherless warning needs python as the command (in any simple command), skips python's own options, names the script or module of its own command, and knows accelerate's module is a launcher")
  void launcherlessShapes(String run, int count, String message, String hint) {
    List<Diagnostic> found = alone(run, Map.of());
    assertEquals(count, found.size(), found.toString());
    if (count > 0) {
      assertTrue(found.get(0).message().startsWith(message), found.get(0).message());
      assertTrue(found.get(0).hint().endsWith(hint), found.get(0).hint());
    }
  }

  @Test
  @DisplayName(
      "a variable from secrets, the runtime template, a for loop or read is defined; the launcherless message names a script without env")
  void definedVariables() {
    String yaml =
        "nodes: 2\nsecrets:\n  - {name: s, key: k, env: NN}\nrun: 'torchrun --nnodes $NN --nproc_per_node $PYTHONUNBUFFERED"
            + " a.py; for P in 1; do torchrun --master_port $P a.py; done; read -r Q; torchrun --rdzv_id $Q a.py'\n";
    assertEquals(List.of(), RunLintCases.lint(dir, yaml));
    List<Diagnostic> other =
        RunLintCases.lint(
            dir.resolve("other"),
            "nodes: 2\nsecrets:\n  - {name: s, key: k, env: NN}\nrun: torchrun --nnodes $NX a.py\n");
    assertEquals(
        List.of("E430"),
        other.stream().map(x -> x.code().id()).toList(),
        "a secret defines only its own env name");
    List<Diagnostic> d = alone("python train.py", Map.of("train.py", "print(1)\n"));
    WORDING.approve(d.get(0).message());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "FOO=2 torchrun --nnodes $FOO train.py                      | E430 | prefix",
        "A=1 FOO=2 torchrun --nnodes $FOO train.py                  | E430 | prefix",
        "N=2 python prep.py && torchrun --nnodes $N train.py        | E430 | prefix",
        "python prep.py N=2; torchrun --nnodes $N train.py          | E430 | unset",
        "torchrun --nnodes $N train.py x N=2                        | E430 | unset",
        "torchrun --nnodes $N train.py; export N=2                  | E430 | later",
        "torchrun --nnodes $N train.py; for N in 2; do :; done      | E430 | later",
        "for N in 2; do torchrun --nnodes $N train.py; done         | | ",
        "FOO=2; torchrun --nnodes $FOO train.py                     | | ",
        "FOO=2 BAR=1 && torchrun --nnodes $FOO train.py             | | ",
        "export FOO=2; FOO=3 torchrun --nnodes $FOO train.py        | | ",
        "declare -x N=2 && torchrun --nnodes $N train.py            | | ",
        "readonly X=1 N=2; torchrun --nnodes $N train.py            | | ",
        "if true; then N=2; fi; torchrun --nnodes $N train.py       | | ",
        "(N=2; torchrun --nnodes $N train.py)                       | | ",
      })
  @DisplayName(
      "`N=2 torchrun --nnodes $N` passes an empty --nnodes (bash sets a prefix assignment only in the command's env, after expanding its words), and so does an N set only after the command: E430 saying which; N=2 as an earlier command of its own, after export/declare/readonly, or a loop, defines N")
  void prefixAssignment(String run, String code, String why) {
    List<Diagnostic> found = RunLintCases.lint(dir, RunLintCases.yaml("torch", 2, run));
    if (code == null) {
      assertEquals(List.of(), found);
      return;
    }
    assertEquals(1, found.size(), found.toString());
    assertEquals(code, found.get(0).code().id());
    String var = run.contains("$FOO") ? "FOO" : "N";
    String reason =
        switch (why) {
          case "prefix" ->
              "`"
                  + var
                  + "=…` in front of a command sets $"
                  + var
                  + " only in that command's environment, after the shell expanded its words";
          case "later" -> "`run` sets $" + var + " only after this command";
          default -> "no pod of this job sets $" + var;
        };
    assertEquals(
        "`run` passes --nnodes $"
            + var
            + ", but "
            + reason
            + ": the flag would get an empty value, so the launcher cannot"
            + " count the group and the run never forms one",
        found.get(0).message());
    RunLintCases.assertHintAccepted(dir, "torch", 2, "", found.get(0));
  }

  @Test
  @DisplayName(
      "a variable set under `env` is defined even when run also assigns it in front of the command")
  void prefixAssignmentOfEnvVariable() {
    assertEquals(
        List.of(),
        RunLintCases.lint(
            dir,
            RunLintCases.yaml(
                "torch", 2, "env:\n  FOO: \"2\"\n", "FOO=3 torchrun --nnodes $FOO train.py")));
  }

  @Test
  @DisplayName(
      "python -m runs a module, never the file of that name: a file `train` that reads MASTER_ADDR does not quiet `python -m train`")
  void moduleIsNotReadAsScript() {
    List<Diagnostic> found =
        alone("python -m train", Map.of("train", "import os\nos.environ['MASTER_ADDR']\n"));
    assertEquals(1, found.size(), found.toString());
    WORDING.approve(found.get(0).message());
  }

  static List<Arguments> scripts() {
    return List.of(
        Arguments.of(
            "import os\nimport torch.distributed as dist\ndist.init_process_group('gloo', init_method="
                + "f\"tcp://{os.environ['MASTER_ADDR']}:1\", rank=int(os.environ['NODE_RANK']), world_size=int(os.environ['NNODES']))\n",
            0),
        Arguments.of("import lightning as L\ntrainer = L.Trainer(num_nodes=2)\n", 0),
        Arguments.of("import torch.multiprocessing as mp\nmp.spawn(main, nprocs=4)\n", 1),
        Arguments.of("print('hello')\n", 1),
        // A comment is no sign of a group: W426 stays (the fresh user's train.py).
        Arguments.of("import torch\n# torchrun sets MASTER_ADDR for us\nprint('train')\n", 1),
        Arguments.of("x = 1  # NODE_RANK, NNODES, import lightning\n", 1),
        // A # inside a string starts no comment: the read after it still counts.
        Arguments.of("import os\nurl = 'tcp://#' + os.environ['MASTER_ADDR']\n", 0),
        Arguments.of("import os\nd = \"\"\"a # b\n\"\"\"; r = os.environ[\"NODE_RANK\"]\n", 0));
  }

  @Test
  @DisplayName(
      "withoutComments drops # to the line's end outside strings; keeps strings (one or three quotes, escaped quotes) and line breaks")
  void withoutComments() {
    assertEquals(
        "a = 1  \nb = '#x' \n", LauncherlessRun.withoutComments("a = 1  # c\nb = '#x' # d\n"));
    assertEquals(
        "s = 'it\\'s # no' \n", LauncherlessRun.withoutComments("s = 'it\\'s # no' # yes\n"));
    assertEquals(
        "t = \"\"\"x\n# in\n\"\"\"\n\ny\n",
        LauncherlessRun.withoutComments("t = \"\"\"x\n# in\n\"\"\"\n# out\ny\n"));
    assertEquals("u = 'open\nv = 1 \n", LauncherlessRun.withoutComments("u = 'open\nv = 1 # w\n"));
    assertEquals(
        "w = \"\"\"never closed # x",
        LauncherlessRun.withoutComments("w = \"\"\"never closed # x"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scripts")
  @DisplayName(
      "python train.py on several torch nodes: quiet when the script reads the node's place in the group; a warning naming mp.spawn or the missing env otherwise")
  void scriptIsRead(String script, int warnings) {
    List<Diagnostic> found = alone("python train.py", Map.of("train.py", script));
    assertEquals(warnings, found.size(), found.toString());
    if (script.contains("mp.spawn")) {
      assertTrue(found.get(0).message().contains("mp.spawn"), found.get(0).message());
      WORDING.approve(found.get(0).hint());
    }
  }

  @Test
  @DisplayName(
      "issue #19: an mp.spawn script that sets MASTER_ADDR=localhost itself (pytorch/examples style) is not taken for one that reads it: W426 naming mp.spawn")
  void spawnScriptSettingMasterAddrTrainsAlone() {
    String script =
        "import os\nimport torch.multiprocessing as mp\n"
            + "def ddp_setup(rank, world_size):\n    os.environ[\"MASTER_ADDR\"] = \"localhost\"\n    os.environ['MASTER_PORT'] = '12355'\n"
            + "    os.putenv('NODE_RANK', '0')\n"
            + "if __name__ == '__main__':\n    mp.spawn(main, args=(4,), nprocs=4)\n";
    List<Diagnostic> found = alone("python multigpu.py", Map.of("multigpu.py", script));
    assertEquals(1, found.size(), found.toString());
    WORDING.approve(found.get(0).message());
    List<Diagnostic> reads =
        alone(
            "python reads.py",
            Map.of(
                "reads.py",
                "import os\nos.environ.setdefault('MASTER_ADDR', 'localhost')\n"
                    + "addr = os.environ['MASTER_ADDR']\n"));
    assertEquals(List.of(), reads, "setdefault and a read keep the pod's value");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "import horovod.torch as hvd | Horovod, whose hvd.init() | mpi",
        "from horovod import torch as hvd | Horovod, whose hvd.init() | mpi",
        "import mlx.core as mx | MLX, whose mx.distributed.init() | mlx",
      })
  @DisplayName(
      "issue #19: W426 for a Horovod or MLX script suggests an MPI runtime, never torchrun (which would start more lone copies)")
  void mpiFrameworkScriptGetsAnMpiHint(String imports, String what, String runtime) {
    List<Diagnostic> found = alone("python train.py", Map.of("train.py", imports + "\nprint(1)\n"));
    assertEquals(1, found.size(), found.toString());
    assertTrue(
        found.get(0).message().startsWith("train.py uses " + what + " takes its ranks from mpirun"),
        found.get(0).message());
    assertEquals(
        "torchrun would only start more lone copies; use an MPI runtime, which starts `run` under mpirun across the nodes: `runtime: "
            + runtime
            + "` (an image with "
            + (runtime.equals("mlx") ? "mlx" : "horovod")
            + ") and `run: python train.py`",
        found.get(0).hint());
    assertTrue(!found.get(0).hint().contains("torchrun train.py"), found.get(0).hint());
  }
}
