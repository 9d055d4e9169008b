package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code trainyard run --local} with the real parts: git, bash, process groups, and the torch CPU
 * venv of scripts/python-envs (the tests that need it are NOT RUN without it, saying why).
 */
class RunLocalCommandTest {
  private static final Path ROOT =
      Path.of(System.getProperty("trainyard.repo.root", "..")).toAbsolutePath().normalize();
  private static final long CLI_SECONDS = 600;

  @TempDir Path tmp;

  @Test
  @DisplayName(
      "a remote pods could not clone (a local path, file://) does not stop a local run: only"
          + " https/ssh/scp-style remotes are passed to the compile")
  void localRemotes() {
    assertTrue(RunCommand.clonableByPods("https://github.com/acme/x.git"));
    assertTrue(RunCommand.clonableByPods("ssh://git@github.com/acme/x.git"));
    assertTrue(RunCommand.clonableByPods("git@github.com:acme/x.git"));
    assertFalse(RunCommand.clonableByPods("/work/main"));
    assertFalse(RunCommand.clonableByPods("../main"));
    assertFalse(RunCommand.clonableByPods("file:///work/main"));
    assertFalse(RunCommand.clonableByPods("C:/repo"));
  }

  @Test
  @DisplayName("examples/pytorch-ddp on 2 nodes x 1 process forms a gloo world of 2 on 127.0.0.1")
  void ddpFormsWorldOfTwo() throws Exception {
    Path venv = torchVenv();
    Path repo = repo("run: torchrun train.py --epochs 1 --snapshot_path snapshot.pt\nnodes: 2\n");
    copyExample(repo);
    commit(repo);
    Cli r = cli(repo, venv, "run", "--local", "--procs", "1", "--timeout", "8m");
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("MASTER_ADDR 127.0.0.1 port "), r.out());
    assertTrue(r.out().contains("[node-0] [rank 0] epoch 0:"), r.out());
    assertTrue(r.out().contains("[node-1] [rank 1] epoch 0:"), r.out());
    assertTrue(
        r.out().contains("world check: 2 of 2 ranks formed one torch world (ranks 0-1)"), r.out());
    assertTrue(r.out().contains("succeeded; world size seen: 2 of 2, 2 node(s), "), r.out());
  }

  @Test
  @DisplayName(
      "examples/jax's bare jax.distributed.initialize() on 2 nodes forms a JAX world of 2 on 127.0.0.1 (process count and id from the compiled JAX_NUM_PROCESSES/JAX_PROCESS_ID, where a pod's come from JAX's Kubernetes detector)")
  void jaxFormsWorldOfTwo() throws Exception {
    Path venv = venv("jax-0.10.2");
    // The example's train.py without its requirements.txt: setup would pip-install the CUDA build.
    Path repo = repo("runtime: jax\nrun: python train.py --steps 20\nnodes: 2\n");
    Files.copy(ROOT.resolve("examples/jax/train.py"), repo.resolve("train.py"));
    commit(repo);
    Cli r = cli(repo, venv, "run", "--local", "--timeout", "5m");
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("[node-0] 2 processes, 2 devices (1 local, cpu)"), r.out());
    assertTrue(r.out().contains("[node-0] step 19: loss "), r.out());
    assertTrue(
        r.out().contains("world check: 2 of 2 ranks formed one jax world (ranks 0-1)"), r.out());
    assertTrue(r.out().contains("succeeded; world size seen: 2 of 2, 2 node(s), "), r.out());
  }

  @Test
  @DisplayName(
      "`python train.py` whose ranks each set up a world of 1 on 2 nodes fails: trained alone")
  void rankAloneIsCaught() throws Exception {
    Path venv = torchVenv();
    Path repo = repo("runtime: plain\nrun: python alone.py\nnodes: 2\n");
    // The tutorial pattern: RANK/WORLD_SIZE read with defaults, so without a launcher each node is
    // rank 0 of 1.
    Files.writeString(
        repo.resolve("alone.py"),
        "import os, tempfile, torch.distributed as dist\n"
            + "dist.init_process_group('gloo', init_method='file://' + tempfile.mktemp(),"
            + " rank=int(os.environ.get('RANK', 0)), world_size=int(os.environ.get('WORLD_SIZE', 1)))\n"
            + "print('training with world size', dist.get_world_size())\n");
    commit(repo);
    Cli r = cli(repo, venv, "run", "--local", "--timeout", "5m");
    assertEquals(1, r.exit(), r.out());
    assertTrue(r.out().contains("[node-1] training with world size 1"), r.out());
    assertTrue(
        r.out()
            .contains(
                "world check: FAILED: train.yaml promises a world of 2, but node-0 (rank 0 of 1), node-1 (rank 0 of 1) trained alone"),
        r.out());
    assertTrue(r.out().contains("failed (user error): train.yaml promises a world of 2"), r.out());
  }

  @Test
  @DisplayName(
      "a node exiting 3 ends the run with exit 3, says which node, and stops the other's processes")
  void firstFailureStopsTheRest() throws Exception {
    String marker = "trainyard-test-" + UUID.randomUUID();
    Path repo =
        repo(
            "runtime: plain\nnodes: 2\nrun: |\n  if [ \"$NODE_RANK\" = 1 ]; then sleep 1; echo boom; exit 3; fi\n"
                + "  bash -c 'exec -a "
                + marker
                + " sleep 300'\n");
    commit(repo);
    long start = System.nanoTime();
    MainTest.Run r = MainTest.run("run", "--local", repo.resolve("train.yaml").toString());
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
    assertEquals(3, r.exit(), r.out() + r.err());
    assertTrue(r.out().contains("[node-1] boom"), r.out());
    assertTrue(
        r.out().contains("failed (user error): command exited with code 3 on node-1"), r.out());
    assertTrue(r.out().contains("world size not checked (2 promised)"), r.out());
    assertTrue(seconds < 120, "took " + seconds + " s");
    assertFalse(processWith(marker), "a node-0 process is left");
  }

  @ParameterizedTest(name = "SIG{0}")
  @CsvSource({"INT, 130, stopped (Ctrl-C)", "TERM, 143, stopped (SIGTERM)"})
  @DisplayName(
      "Ctrl-C (SIGINT to the CLI) stops every node's processes, exit 130; SIGTERM too, said as SIGTERM, exit 143")
  void ctrlCStopsEverything(String signal, int exit, String said) throws Exception {
    String marker = "trainyard-test-" + UUID.randomUUID();
    Path repo =
        repo(
            "runtime: plain\nnodes: 2\nrun: |\n  echo started\n  bash -c 'exec -a "
                + marker
                + " sleep 300'\n");
    commit(repo);
    Path log = tmp.resolve("ctrl-c.log");
    Process p = javaCli(repo, Map.of(), log, "run", "--local").start();
    try {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      while (countLines(log, "started") < 2 && System.nanoTime() < until && p.isAlive()) {
        TimeUnit.MILLISECONDS.sleep(200);
      }
      assertEquals(2, countLines(log, "started"), Files.readString(log));
      until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!processWith(marker) && System.nanoTime() < until) {
        TimeUnit.MILLISECONDS.sleep(200);
      }
      assertTrue(processWith(marker), "the nodes' sleep never started");
      new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid()))
          .start()
          .waitFor(10, TimeUnit.SECONDS);
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the CLI did not end after SIGINT");
      assertEquals(exit, p.exitValue(), Files.readString(log));
      assertTrue(Files.readString(log).contains(said), Files.readString(log));
      assertFalse(processWith(marker), "a node process is left after Ctrl-C");
      try (Stream<Path> left = Files.list(tmp.resolve("cli-tmp"))) {
        assertEquals(List.of(), left.toList(), "the working copies are left after Ctrl-C");
      }
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  @DisplayName(
      "bad input: no train.yaml (exit 2), not a git repository (exit 1), uncommitted files (exit 1, names --working-tree)")
  void badInput() throws Exception {
    MainTest.Run none = MainTest.run("run", "--local", tmp.resolve("nope/train.yaml").toString());
    assertEquals(2, none.exit());
    assertTrue(none.err().contains("no train.yaml at "), none.err());
    assertFalse(none.err().contains("Exception"), none.err());

    Path plain = Files.createDirectories(tmp.resolve("plain"));
    Files.writeString(plain.resolve("train.yaml"), "run: echo hi\n");
    MainTest.Run noGit = MainTest.run("run", "--local", plain.resolve("train.yaml").toString());
    assertEquals(1, noGit.exit(), noGit.err());
    assertTrue(noGit.err().contains("is not in a git repository"), noGit.err());

    Path repo = repo("runtime: plain\nrun: cat note.txt\n");
    Files.writeString(repo.resolve("note.txt"), "before any commit\n");
    MainTest.Run noCommit = MainTest.run("run", "--local", repo.resolve("train.yaml").toString());
    assertEquals(1, noCommit.exit(), noCommit.err());
    assertTrue(noCommit.err().contains("the git repository has no commit yet"), noCommit.err());
    MainTest.Run firstTry =
        MainTest.run("run", "--local", "--working-tree", repo.resolve("train.yaml").toString());
    assertEquals(0, firstTry.exit(), firstTry.err());
    assertTrue(firstTry.out().contains("[node-0] before any commit"), firstTry.out());
    commit(repo);
    Files.writeString(repo.resolve("note.txt"), "from the work tree\n");
    MainTest.Run dirty = MainTest.run("run", "--local", repo.resolve("train.yaml").toString());
    assertEquals(1, dirty.exit(), dirty.err());
    assertTrue(dirty.err().contains("pass --working-tree"), dirty.err());
    MainTest.Run tree =
        MainTest.run("run", "--local", "--working-tree", repo.resolve("train.yaml").toString());
    assertEquals(0, tree.exit(), tree.err());
    assertTrue(tree.out().contains("[node-0] from the work tree"), tree.out());
    // an edited train.yaml runs as it is with --working-tree (without it: E305, naming the flag)
    Files.writeString(
        repo.resolve("train.yaml"), "runtime: plain\nrun: cat note.txt; echo edited\n");
    MainTest.Run editedCommitted =
        MainTest.run("run", "--local", repo.resolve("train.yaml").toString());
    assertEquals(1, editedCommitted.exit(), editedCommitted.err());
    assertTrue(editedCommitted.err().contains("pass --working-tree"), editedCommitted.err());
    MainTest.Run edited =
        MainTest.run("run", "--local", "--working-tree", repo.resolve("train.yaml").toString());
    assertEquals(0, edited.exit(), edited.err());
    assertTrue(edited.out().contains("[node-0] edited"), edited.out());
    // A clone of a local path has that path as its remote: pods could not clone it, a local run
    // needs no remote at all.
    git(repo, "remote", "add", "origin", tmp.resolve("elsewhere").toString());
    MainTest.Run localRemote =
        MainTest.run("run", "--local", "--working-tree", repo.resolve("train.yaml").toString());
    assertEquals(0, localRemote.exit(), localRemote.err());

    MainTest.Run noLocal = MainTest.run("run", repo.resolve("train.yaml").toString());
    assertEquals(2, noLocal.exit());
    assertTrue(noLocal.err().contains("--local"), noLocal.err());
    for (String[] bad :
        new String[][] {
          {"--procs", "0", "--procs must be at least 1, got 0"},
          {"--procs", "-1", "--procs must be at least 1, got -1"},
          {"--nodes", "0", "--nodes must be at least 1, got 0"},
          {
            "--procs",
            "99999",
            "trainyard: error: --procs 99999 is more than the 1 process(es) per node train.yaml"
                + " compiles to; --procs may only scale down"
          }
        }) {
      MainTest.Run r =
          MainTest.run(
              "run",
              "--local",
              "--working-tree",
              bad[0],
              bad[1],
              repo.resolve("train.yaml").toString());
      assertEquals(2, r.exit(), r.err());
      assertTrue(r.err().contains(bad[2]), r.err());
    }
  }

  @Test
  @DisplayName(
      "--nodes scales down (NNODES follows) and may not scale up; a Secret's value comes from --secret-file")
  void nodesAndSecrets() throws Exception {
    Path repo =
        repo(
            "runtime: plain\nnodes: 3\nsecrets:\n  - {name: hf-token, key: token, env: HF_TOKEN}\n"
                + "run: echo \"nodes=$NNODES rank=$NODE_RANK master=$MASTER_ADDR token-length=${#HF_TOKEN}\"\n");
    commit(repo);
    String yaml = repo.resolve("train.yaml").toString();
    MainTest.Run missing = MainTest.run("run", "--local", yaml);
    assertEquals(2, missing.exit(), missing.err());
    assertTrue(
        missing.err().contains("the Secret hf-token (key token) fills HF_TOKEN: set HF_TOKEN"),
        missing.err());
    Path secrets =
        Files.writeString(tmp.resolve("secrets.env"), "# local values\nHF_TOKEN=s3cr3t\n");
    MainTest.Run two =
        MainTest.run("run", "--local", "--nodes", "2", "--secret-file", secrets.toString(), yaml);
    assertEquals(0, two.exit(), two.err());
    assertTrue(
        two.out().contains("[node-1] nodes=2 rank=1 master=127.0.0.1 token-length=6"), two.out());
    assertFalse(two.out().contains("[node-2]"), two.out());
    assertFalse((two.out() + two.err()).contains("s3cr3t"));
    MainTest.Run four = MainTest.run("run", "--local", "--nodes", "4", yaml);
    assertEquals(2, four.exit());
    assertTrue(four.err().contains("--nodes 4 is more than the 3 node(s)"), four.err());
    Path absent = tmp.resolve("absent.env");
    MainTest.Run noFile = MainTest.run("run", "--local", "--secret-file", absent.toString(), yaml);
    assertEquals(2, noFile.exit(), noFile.err());
    assertTrue(
        noFile
            .err()
            .contains(
                "--secret-file " + absent + " cannot be read: no such file or folder: " + absent),
        noFile.err());
  }

  @Test
  @DisplayName(
      "--checkpoint-dir that cannot be a folder (a file is there): usage error naming the flag and the reason, exit 2, no stack trace")
  void checkpointDirInTheWay() throws Exception {
    Path repo = repo("runtime: plain\nrun: echo hi\ncheckpoint: {}\n");
    commit(repo);
    Path file = Files.writeString(tmp.resolve("a-file"), "x");
    MainTest.Run r =
        MainTest.run(
            "run",
            "--local",
            "--checkpoint-dir",
            file.toString(),
            repo.resolve("train.yaml").toString());
    assertEquals(2, r.exit(), r.err());
    assertTrue(
        r.err()
            .contains(
                "--checkpoint-dir "
                    + file
                    + " cannot be written: a file is in the way: "
                    + file
                    + " (hint: pass --checkpoint-dir with a folder you can write)"),
        r.err());
    assertFalse(r.err().contains("Exception"), r.err());
    // a new folder inside the repository is hidden from git (else the next run's E305 refuses
    // its checkpoints); an existing one git does not ignore gets a warning
    Path inRepo = repo.resolve("ckpt");
    for (int i = 0; i < 2; i++) {
      MainTest.Run twice =
          MainTest.run(
              "run",
              "--local",
              "--checkpoint-dir",
              inRepo.toString(),
              repo.resolve("train.yaml").toString());
      assertEquals(0, twice.exit(), twice.err());
    }
    assertEquals(
        "# trainyard run --local: local checkpoints\n*\n",
        Files.readString(inRepo.resolve(".gitignore")));
    Path existing = Files.createDirectories(repo.resolve("kept"));
    Files.writeString(existing.resolve("notes.txt"), "mine\n");
    commit(repo);
    MainTest.Run warned =
        MainTest.run(
            "run",
            "--local",
            "--checkpoint-dir",
            existing.toString(),
            repo.resolve("train.yaml").toString());
    assertTrue(
        warned
            .err()
            .contains(
                "trainyard: warning: --checkpoint-dir "
                    + existing
                    + " is inside the repository and git does not ignore it"),
        warned.err());
    assertFalse(
        Files.exists(existing.resolve(".gitignore")), "a folder of the user's is left as it is");
    // train.yaml in a folder git ignores: not in the copy, said in words (was the JDK's "Cannot
    // run program setsid (in directory …)", exit 3)
    Path hidden = Files.createDirectories(repo.resolve("hidden"));
    Files.writeString(hidden.resolve("train.yaml"), "runtime: plain\nrun: echo hi\n");
    Files.writeString(repo.resolve(".gitignore"), "hidden/\n");
    MainTest.Run ignored =
        MainTest.run("run", "--local", "--working-tree", hidden.resolve("train.yaml").toString());
    assertEquals(1, ignored.exit(), ignored.err());
    assertTrue(
        ignored
            .err()
            .contains(
                "trainyard: error: train.yaml's folder hidden is not in the copy of the work tree:"
                    + " git ignores it"),
        ignored.err());
    assertFalse(ignored.err().contains("setsid"), ignored.err());
    Files.delete(repo.resolve(".gitignore"));
    Files.delete(hidden.resolve("train.yaml"));
    Files.delete(hidden);
    MainTest.Run empty =
        MainTest.run(
            "run", "--local", "--checkpoint-dir", "", repo.resolve("train.yaml").toString());
    assertEquals(2, empty.exit(), empty.err());
    assertTrue(
        empty.err().contains("trainyard: --checkpoint-dir got an empty value (an unset variable?)"),
        empty.err());
    // a read-only mount (root ignores permission bits, not a read-only file system)
    Path ro = Files.createDirectories(tmp.resolve("ro"));
    Assumptions.assumeTrue(
        exitsZero("mount", "--bind", ro.toString(), ro.toString()),
        "NOT RUN (read-only part): mount --bind needs root");
    try {
      assertTrue(exitsZero("mount", "-o", "remount,bind,ro", ro.toString()));
      MainTest.Run readOnly =
          MainTest.run(
              "run",
              "--local",
              "--checkpoint-dir",
              ro.toString(),
              repo.resolve("train.yaml").toString());
      assertEquals(2, readOnly.exit(), readOnly.err());
      assertTrue(
          readOnly.err().contains("--checkpoint-dir " + ro + " cannot be written: "),
          readOnly.err());
      assertTrue(readOnly.err().contains("Read-only file system"), readOnly.err());
    } finally {
      assertTrue(exitsZero("umount", ro.toString()), "umount " + ro);
    }
  }

  @Test
  @DisplayName(
      "mpi 2 nodes x 2 slots: the compiled mpirun with a localhost hostfile starts 4 ranks whose mpi4py allreduce sums 1+2+3+4; --nodes 1 runs 2")
  void mpiAllreduce() throws Exception {
    assumeTrue(onPath("mpirun"), "NOT RUN: mpirun is not installed (Debian openmpi-bin)");
    assumeTrue(
        exitsZero("/usr/bin/python3", "-c", "import mpi4py"),
        "NOT RUN: /usr/bin/python3 has no mpi4py (Debian python3-mpi4py)");
    Path repo =
        repo("runtime: mpi\nnodes: 2\nprocsPerNode: 2\nrun: /usr/bin/python3 allreduce.py\n");
    Files.writeString(
        repo.resolve("allreduce.py"),
        // One write per line: mpirun passes on each rank's output as the rank writes it, so a line
        // written in two parts (print's text, then its newline) can interleave with another rank's.
        "import sys\nfrom mpi4py import MPI\n"
            + "c = MPI.COMM_WORLD\n"
            + "total = c.allreduce(c.Get_rank() + 1, op=MPI.SUM)\n"
            + "sys.stdout.write(f'rank {c.Get_rank()} of {c.Get_size()}: allreduce sum {total}\\n')\n"
            + "sys.stdout.flush()\n");
    commit(repo);
    String trainYaml = repo.resolve("train.yaml").toString();
    MainTest.Run r = MainTest.run("run", "--local", trainYaml, "--timeout", "3m");
    assertEquals(0, r.exit(), r.out() + r.err());
    for (int rank = 0; rank < 4; rank++) {
      assertTrue(r.out().contains("[launcher] rank " + rank + " of 4: allreduce sum 10"), r.out());
    }
    assertTrue(
        r.out().contains("world check: 4 of 4 ranks formed one mpi world (ranks 0-3)"), r.out());
    assertTrue(
        r.out()
            .contains(
                "succeeded; world size seen: 4 of 4, 2 node(s) as mpirun -np 4 from one launcher, "),
        r.out());
    MainTest.Run one = MainTest.run("run", "--local", trainYaml, "--nodes", "1");
    assertEquals(0, one.exit(), one.out() + one.err());
    assertTrue(one.out().contains("[launcher] rank 1 of 2: allreduce sum 3"), one.out());
    assertTrue(one.out().contains("world check: 2 of 2 ranks formed one mpi world"), one.out());
  }

  @Test
  @DisplayName(
      "an mpi run whose rank exits 3 fails the run with mpirun's exit code, on the launcher")
  void mpiRankFails() throws Exception {
    assumeTrue(onPath("mpirun"), "NOT RUN: mpirun is not installed (Debian openmpi-bin)");
    Path repo =
        repo(
            "runtime: mpi\nnodes: 2\nprocsPerNode: 1\nrun: |\n"
                + "  if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then echo boom; exit 3; fi\n");
    commit(repo);
    MainTest.Run r =
        MainTest.run("run", "--local", repo.resolve("train.yaml").toString(), "--timeout", "2m");
    assertTrue(r.exit() != 0, r.out() + r.err());
    assertTrue(r.out().contains("[launcher] boom"), r.out());
    assertTrue(
        r.out()
            .contains("failed (user error): command exited with code " + r.exit() + " on launcher"),
        r.out());
  }

  private static boolean onPath(String tool) {
    return exitsZero("bash", "-c", "command -v " + tool);
  }

  private static boolean exitsZero(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  // --- helpers ---

  private record Cli(int exit, String out) {}

  /**
   * Saves 3 steps by the contract (state, then COMPLETE) below CHECKPOINT_DIR, after resuming from
   * RESUME_FROM when it is set; prints what it was told.
   */
  static final String SAVES_THREE_STEPS =
      "import os, torch\n"
          + "d = os.environ['CHECKPOINT_DIR']; r = os.environ.get('RESUME_FROM', '')\n"
          + "print('told: attempt', os.environ['TRAINYARD_ATTEMPT'], 'dir', d, 'resume', r or '-',"
          + " flush=True)\n"
          + "step, w = 0, torch.zeros(1)\n"
          + "if r:\n"
          + "    s = torch.load(os.path.join(r, 'state.pt')); step, w = s['step'], s['w']\n"
          + "    print('resumed at step', step, flush=True)\n"
          + "for _ in range(3):\n"
          + "    step += 1; w += 1\n"
          + "p = os.path.join(d, f'step-{step}'); os.makedirs(p, exist_ok=True)\n"
          + "torch.save({'step': step, 'w': w}, os.path.join(p, 'state.pt'))\n"
          + "open(os.path.join(p, 'COMPLETE'), 'w').close()\n"
          + "print('saved step', step, 'weight', int(w.item()), flush=True)\n";

  @Test
  @DisplayName(
      "checkpoint: CHECKPOINT_DIR is a local folder (made, git-ignored), TRAINYARD_ATTEMPT 0; the next run resumes from the newest complete checkpoint; --fresh resumes from none in a folder of its own; --checkpoint-dir elsewhere")
  void checkpointContract() throws Exception {
    Path venv = torchVenv();
    Path repo = repo("runtime: plain\nrun: python ck.py\ncheckpoint: {}\n");
    Files.writeString(repo.resolve("ck.py"), SAVES_THREE_STEPS);
    commit(repo);
    Cli first = cli(repo, venv, "run", "--local", "--timeout", "5m");
    assertEquals(0, first.exit(), first.out());
    Path folder = repo.toRealPath().resolve(".trainyard").resolve("checkpoints");
    Matcher told =
        Pattern.compile("\\[node-0\\] told: attempt 0 dir (\\S+)/(\\w+) resume -")
            .matcher(first.out());
    assertTrue(told.find(), first.out());
    assertEquals(folder.toString(), told.group(1), "below .trainyard/checkpoints");
    String runId = told.group(2);
    assertTrue(
        first.out().contains("checkpoints: " + folder + " (CHECKPOINT_DIR " + folder + "/" + runId),
        first.out());
    assertTrue(
        first.out().contains("[node-0] trainyard: attempt 0 starts fresh: no complete checkpoint"),
        first.out());
    assertTrue(first.out().contains("[node-0] saved step 3 weight 3"), first.out());
    assertTrue(Files.exists(folder.resolve(runId).resolve("step-3").resolve("COMPLETE")));
    assertEquals("", gitStatus(repo), "git ignores the local checkpoints");

    Cli second = cli(repo, venv, "run", "--local", "--timeout", "5m");
    assertEquals(0, second.exit(), second.out());
    assertTrue(
        second
            .out()
            .contains(
                "[node-0] trainyard: attempt 0 resumes from "
                    + folder
                    + "/"
                    + runId
                    + "/step-3 (saved "),
        second.out());
    assertTrue(second.out().contains("[node-0] resumed at step 3"), second.out());
    assertTrue(second.out().contains("[node-0] saved step 6 weight 6"), second.out());

    Cli fresh = cli(repo, venv, "run", "--local", "--fresh", "--timeout", "5m");
    assertEquals(0, fresh.exit(), fresh.out());
    assertTrue(
        fresh
            .out()
            .contains("[node-0] told: attempt 0 dir " + folder + "/" + runId + "-2 resume -"),
        fresh.out());
    assertTrue(fresh.out().contains("--fresh: not resuming"), fresh.out());
    assertTrue(fresh.out().contains("[node-0] saved step 3 weight 3"), fresh.out());
    assertTrue(Files.exists(folder.resolve(runId).resolve("step-6")), "nothing is deleted");

    Cli after = cli(repo, venv, "run", "--local", "--timeout", "5m");
    assertEquals(0, after.exit(), after.out());
    assertTrue(
        after.out().contains("resumes from " + folder + "/" + runId + "-2/step-3 (saved "),
        "the fresh run's checkpoint is the newest: " + after.out());

    Path elsewhere = tmp.resolve("elsewhere");
    Cli other =
        cli(
            repo,
            venv,
            "run",
            "--local",
            "--checkpoint-dir",
            elsewhere.toString(),
            "--timeout",
            "5m");
    assertEquals(0, other.exit(), other.out());
    assertTrue(
        other
            .out()
            .contains(
                "[node-0] told: attempt 0 dir "
                    + elsewhere.toAbsolutePath().normalize()
                    + "/"
                    + runId
                    + " resume -"),
        other.out());
    System.out.println(
        "[RunLocalCommandTest] checkpoint runs: "
            + String.join(
                " | ",
                second.out().lines().filter(l -> l.contains("trainyard: attempt")).toList()));
  }

  private static String gitStatus(Path repo) throws Exception {
    Process p =
        new ProcessBuilder("git", "-C", repo.toString(), "status", "--porcelain")
            .redirectErrorStream(true)
            .start();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  private Path repo(String trainYaml) throws IOException {
    Path repo = Files.createDirectories(tmp.resolve("repo"));
    Files.writeString(repo.resolve("train.yaml"), trainYaml);
    git(repo, "init", "-q");
    return repo;
  }

  private static void copyExample(Path repo) throws IOException {
    Path example = ROOT.resolve("examples/pytorch-ddp");
    Files.copy(example.resolve("train.py"), repo.resolve("train.py"));
    Files.copy(example.resolve("requirements.txt"), repo.resolve("requirements.txt"));
  }

  private static void commit(Path repo) throws Exception {
    git(repo, "add", "-A");
    git(repo, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-qm", "code");
  }

  private static void git(Path dir, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, out);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** The torch venv of scripts/python-envs, or NOT RUN naming the reason. */
  private static Path torchVenv() {
    return venv("torch-2.13.0");
  }

  /** The venv {@code name} of scripts/python-envs, or NOT RUN naming the reason. */
  private static Path venv(String name) {
    String prop = System.getProperty("trainyard.python.dir", "");
    Path dir =
        (prop.isBlank()
                ? Path.of(System.getProperty("user.home"), ".cache", "trainyard", "python")
                : Path.of(prop))
            .resolve(name);
    assumeTrue(
        Files.exists(dir.resolve("ready")),
        "NOT RUN: no " + name + " venv at " + dir + " (scripts/python-envs makes it)");
    return dir;
  }

  /** The CLI in a JVM of its own, the venv first on PATH as a user's shell would have it. */
  private Cli cli(Path dir, Path venv, String... args) throws Exception {
    Path log = tmp.resolve("cli-" + UUID.randomUUID() + ".log");
    Process p =
        javaCli(dir, Map.of("PATH", venv.resolve("bin") + ":" + System.getenv("PATH")), log, args)
            .start();
    if (!p.waitFor(CLI_SECONDS, TimeUnit.SECONDS)) {
      new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start();
      p.waitFor(30, TimeUnit.SECONDS);
      p.destroyForcibly();
      throw new AssertionError(
          "run --local did not end in " + CLI_SECONDS + " s:\n" + Files.readString(log));
    }
    return new Cli(p.exitValue(), Files.readString(log));
  }

  private static ProcessBuilder javaCli(
      Path dir, Map<String, String> env, Path log, String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                // A suite started in the background (`mvn … &` from a script) inherits SIGINT and
                // SIGHUP ignored, and a JVM installs no handler for an ignored signal: the CLI
                // would
                // never see the test's Ctrl-C. coreutils env (8.31+) puts them back to default.
                "env",
                "--default-signal=INT,HUP,TERM",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-Djava.io.tmpdir=" + tmpdir(log.getParent()),
                "-cp",
                System.getProperty("java.class.path"),
                "dev.trainyard.cli.Main"));
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    pb.environment().putAll(env);
    return pb;
  }

  private static Path tmpdir(Path parent) {
    try {
      return Files.createDirectories(parent.resolve("cli-tmp"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long countLines(Path log, String text) throws IOException {
    if (!Files.exists(log)) {
      return 0;
    }
    try (Stream<String> lines = Files.lines(log)) {
      return lines.filter(l -> l.matches("\\[node-\\d+\\] " + text)).count();
    }
  }

  /** Whether any process's command line holds {@code marker} (the process table, /proc). */
  private static boolean processWith(String marker) throws IOException {
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      return procs
          .filter(p -> p.getFileName().toString().matches("\\d+"))
          .anyMatch(
              p -> {
                try {
                  return new String(
                          Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8)
                      .contains(marker);
                } catch (IOException e) {
                  return false; // the process ended meanwhile
                }
              });
    }
  }
}
