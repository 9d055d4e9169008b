package dev.trainyard.cli;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.DiagnosticPrinter;
import dev.trainyard.compiler.local.LocalNode;
import dev.trainyard.compiler.local.LocalPlan;
import dev.trainyard.compiler.local.LocalPlanner;
import dev.trainyard.compiler.local.LocalRunner;
import dev.trainyard.compiler.local.WorkingCopies;
import dev.trainyard.compiler.resolve.ResolvedCheckpoint;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code trainyard run --local [TRAIN_YAML]}: compiles as {@code compile} does and runs the
 * compiled nodes as processes on this machine ({@link LocalPlanner}, {@link LocalRunner}).
 */
@Command(
    name = "run",
    header = "Run a train.yaml as compiled, on this machine, before GPUs (--local).",
    description = {
      "Compile TRAIN_YAML as compile does, then start each node of the compiled",
      "JobSet as a process group on this machine: no cluster, no containers.",
      "Each node gets its own clean clone of the commit, as pods clone it",
      "(--working-tree copies the files as they are), and exactly its pod's",
      "environment (rank variables, PET_*, MASTER_*, JAX_*, the run's env), with",
      "pod hostnames turned into 127.0.0.1 and ports into free ones. It runs",
      "setup, then run, with bash -eo pipefail -c; lines are prefixed [node-N].",
      "A world check reports the ranks and world size that torch.distributed or",
      "jax.distributed set up, and fails the run when a rank trained alone.",
      "Secret values come from your environment or --secret-file, never from the",
      "GitOps repo. Not like a pod: no image (this machine's tools run), no GPU",
      "start-up check, no volumes, except checkpoint: a local folder stands for",
      "the checkpoint volume (--checkpoint-dir, else .trainyard/checkpoints next to",
      "train.yaml, git-ignored): CHECKPOINT_DIR is its run folder, RESUME_FROM the",
      "newest complete checkpoint in it (--fresh: none), TRAINYARD_ATTEMPT 0.",
      "MPI runtimes (mpi, deepspeed, mlx): one launcher process runs the compiled",
      "mpirun with a localhost hostfile of nodes x slots (--procs sets the slots);",
      "each rank reports the rank and world size mpirun gave it for the world check;",
      "lines are prefixed [launcher]."
    },
    mixinStandardHelpOptions = true,
    footer = {
      "",
      "Example: trainyard run --local examples/pytorch-ddp/train.yaml --timeout 10m",
      "",
      "Exit codes: 0 succeeded, 1 diagnostics, no git repository or a wrong world,",
      "2 usage, 3 environment (git), 4 internal error; else the exit code of the first",
      "node that failed, 124 on --timeout, 130 on Ctrl-C (SIGINT), 143 on SIGTERM",
      "(said as stopped (SIGTERM))."
    })
final class RunCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--local",
      required = true,
      description = "run on this machine (the only mode; submit runs on a cluster)")
  boolean local;

  @Parameters(
      index = "0",
      arity = "0..1",
      defaultValue = "train.yaml",
      paramLabel = "TRAIN_YAML",
      description = "the train.yaml to run (default: train.yaml in this folder)")
  Path trainYaml;

  @Option(
      names = "--nodes",
      paramLabel = "N",
      description = "start only the first N nodes (at most train.yaml's nodes)")
  Integer nodes;

  @Option(
      names = "--procs",
      paramLabel = "N",
      description =
          "processes per node: torchrun's PET_NPROC_PER_NODE, or MPI slots (default and most: the compiled ones)")
  Integer procs;

  @Option(
      names = "--working-tree",
      description = "run the files as they are in the work tree, not a clean clone of HEAD")
  boolean workingTree;

  @Option(
      names = "--secret-file",
      paramLabel = "FILE",
      description =
          "NAME=VALUE lines for the env variables Secrets fill (default: your environment)")
  Path secretFile;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      description = "stop every node after DURATION, e.g. 90s, 10m (default: train.yaml's timeout)")
  String timeout;

  @Option(
      names = "--checkpoint-dir",
      paramLabel = "DIR",
      description =
          "the folder that stands for train.yaml's checkpoint volume (default:"
              + " .trainyard/checkpoints next to train.yaml); a later run resumes from it")
  Path checkpointDir;

  @Option(
      names = "--fresh",
      description =
          "start over: RESUME_FROM stays empty (checkpoints are kept; this run writes its own folder)")
  boolean fresh;

  @Option(
      names = "--platform",
      paramLabel = "FILE",
      description = "platform.yaml (default: the embedded default platform)")
  Path platform;

  @Option(
      names = "--runtimes",
      paramLabel = "DIR",
      description = "platform runtimes folder, one <name>/<version>/runtime.yaml each")
  Path runtimes;

  @Mixin TargetOptions target;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    positive("--nodes", nodes == null ? 1 : nodes);
    positive("--procs", procs == null ? 1 : procs);
    Map<String, String> secrets = SecretFile.read(spec, secretFile);
    Optional<Duration> limit = limit();
    if (!Files.isRegularFile(trainYaml)) {
      throw new ParameterException(
          spec.commandLine(),
          "no train.yaml at "
              + trainYaml
              + " (pass its path: trainyard run --local path/to/train.yaml; trainyard init writes one)");
    }
    Optional<Path> repo = repositoryRoot(trainYaml);
    if (repo.isEmpty()) {
      return 1;
    }
    Path root = repo.get();
    CompileResult result = new Compiler(SshSecretProvider.system()).compile(request(root));
    if (result.hasErrors()) {
      int exit = Reporting.report(spec, OutputOptions.Format.text, result, Optional.empty());
      if (result.diagnostics().stream()
          .anyMatch(d -> d.code() == DiagnosticCode.SOURCE_NOT_COMMITTED)) {
        err.println(
            "run --local runs the commit pods would clone: commit first, or pass --working-tree to run the files as they are");
        err.flush();
      }
      return exit;
    }
    printWarnings(result);
    Optional<LocalPlanner.Checkpoints> checkpoints =
        checkpoints(result.job().orElseThrow().checkpoint(), root);
    LocalPlanner.Result planned =
        LocalPlanner.plan(
            result.tree().orElseThrow(),
            new LocalPlanner.Settings(
                nodes == null ? 0 : nodes,
                procs == null ? 0 : procs,
                name ->
                    Optional.ofNullable(
                        secrets.getOrDefault(name, Invocation.of(spec).environment().get(name))),
                RunCommand::freePort,
                checkpoints));
    if (planned.plan().isEmpty()) {
      planned.problems().forEach(p -> err.println("trainyard: error: " + p));
      err.flush();
      return 2;
    }
    Duration until = limit.orElse(Duration.ofSeconds(result.job().orElseThrow().timeoutSeconds()));
    return run(planned.plan().get(), root, until, checkpoints);
  }

  /** The commit a {@code --working-tree} run of a repository without any commit stands for. */
  static final String NO_COMMIT = "0".repeat(40);

  /**
   * Default checkpoint folder, next to train.yaml; its parent holds a {@code .gitignore} of "*".
   */
  static final String DEFAULT_CHECKPOINTS = ".trainyard/checkpoints";

  /**
   * The local folder that stands for the run's checkpoint volume, made (with a {@code .gitignore}
   * when it is the default, so git and {@code --working-tree} leave it out); the run's folder in it
   * is the run id, or with {@code --fresh} the first {@code <run id>-N} not used yet when the run
   * id's folder holds anything (a fresh run looks for {@code RESUME_FROM} in its own folder only).
   * Empty when train.yaml has no {@code checkpoint:} ({@code --checkpoint-dir} is then said to do
   * nothing).
   */
  private Optional<LocalPlanner.Checkpoints> checkpoints(
      Optional<ResolvedCheckpoint> compiled, Path root) throws IOException {
    if (compiled.isEmpty()) {
      if (checkpointDir != null) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(
            "trainyard: warning: --checkpoint-dir does nothing: train.yaml has no checkpoint:"
                + " (docs/checkpoints.md)");
        err.flush();
      }
      return Optional.empty();
    }
    Path dir =
        checkpointDir != null
            ? checkpointDir.toAbsolutePath().normalize()
            : trainYaml.toAbsolutePath().getParent().resolve(".trainyard").resolve("checkpoints");
    // The folder git must not see: .trainyard next to train.yaml, or a chosen folder inside the
    // work tree that this run makes (git would list its checkpoints as uncommitted files, and
    // the next run would refuse them with E305).
    Path hidden = checkpointDir != null ? dir : dir.getParent();
    String runDir = compiled.get().dir();
    String folder = runDir.substring(runDir.lastIndexOf('/') + 1);
    try {
      boolean made = !Files.exists(hidden, LinkOption.NOFOLLOW_LINKS);
      Files.createDirectories(dir);
      Path ignore = hidden.resolve(".gitignore");
      if (made && inside(hidden, root) || checkpointDir == null && !Files.exists(ignore)) {
        Files.writeString(ignore, "# trainyard run --local: local checkpoints\n*\n");
      } else if (inside(dir, root) && !WorkingCopies.ignored(root, dir)) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(
            "trainyard: warning: --checkpoint-dir "
                + dir
                + " is inside the repository and git does not ignore it: its checkpoints would be"
                + " uncommitted files that the next run refuses (E305); add it to .gitignore");
        err.flush();
      }
      if (fresh) {
        String base = folder;
        for (int n = 2; used(dir.resolve(folder)); n++) {
          folder = base + "-" + n;
        }
      }
      // The run saves here: a read-only mount or an immutable folder is said now, not as the
      // program's failure after it started.
      Path run = Files.createDirectories(dir.resolve(folder));
      Files.delete(Files.createTempFile(run, ".trainyard-write-check", ""));
    } catch (IOException e) {
      throw new ParameterException(
          spec.commandLine(),
          (checkpointDir != null ? "--checkpoint-dir " : "the checkpoint folder ")
              + dir
              + " cannot be written: "
              + Reporting.ioReason(e)
              + " (hint: pass --checkpoint-dir with a folder you can write)");
    }
    return Optional.of(new LocalPlanner.Checkpoints(dir.toString(), folder));
  }

  /** Whether {@code path} lies strictly below the work tree {@code root} (real paths). */
  private static boolean inside(Path path, Path root) throws IOException {
    Path real = path.toRealPath();
    Path top = root.toRealPath();
    return real.startsWith(top) && !real.equals(top);
  }

  /** Whether {@code dir} exists and holds anything. */
  private static boolean used(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (Stream<Path> in = Files.list(dir)) {
      return in.findAny().isPresent();
    }
  }

  private CompileRequest request(Path root) throws IOException {
    CompileRequest.Builder b =
        CompileRequest.builder(trainYaml)
            .platformFile(Optional.ofNullable(platform))
            .runtimesDir(Optional.ofNullable(runtimes))
            .cluster(target.cluster())
            .namespace(target.namespace())
            .fresh(fresh);
    if (WorkingCopies.remoteUrl(root).filter(RunCommand::clonableByPods).isEmpty()) {
      // Pods would need a remote they can reach; this run clones the local repository, so any
      // URL does for GIT_REPO (a clone of a local path, or no remote at all, runs as well).
      b.sourceRepo(Optional.of("https://localhost/" + root.getFileName() + ".git"));
    }
    if (workingTree) {
      // A fresh `git init` has no commit yet; the files are run as they are, so none is needed.
      b.sourceCommit(Optional.of(WorkingCopies.headIfAny(root).orElse(NO_COMMIT)))
          .workingTree(true);
    }
    return b.build();
  }

  /** The work tree's root; empty (said on stderr) when train.yaml is in none: an input problem. */
  private Optional<Path> repositoryRoot(Path file) {
    try {
      return Optional.of(WorkingCopies.repositoryRoot(file.toAbsolutePath().getParent()));
    } catch (IOException e) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          "trainyard: error: "
              + file
              + " is not in a git repository: run --local runs a commit, as pods clone one");
      err.println("    hint: git init && git add . && git commit, then run again");
      err.flush();
      return Optional.empty();
    }
  }

  private Optional<Duration> limit() {
    if (timeout == null) {
      return Optional.empty();
    }
    return Optional.of(DurationFlag.parse(spec, "--timeout", timeout));
  }

  private void printWarnings(CompileResult result) {
    PrintWriter err = spec.commandLine().getErr();
    // Where the commit is pushed matters to pods, not to a run that clones the local repository.
    DiagnosticPrinter.printText(
        result.diagnostics().stream()
            .filter(d -> d.code() != DiagnosticCode.COMMIT_NOT_PUSHED)
            .toList(),
        err);
    err.flush();
  }

  private int run(
      LocalPlan plan, Path root, Duration until, Optional<LocalPlanner.Checkpoints> checkpoints)
      throws IOException, InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    Path scratch = Files.createTempDirectory("trainyard-local-");
    LocalRunner runner =
        new LocalRunner(
            plan,
            scratch,
            out,
            spec.commandLine().getErr(),
            LocalRunner.QUIET_NOTE,
            Clock.systemUTC());
    CountDownLatch done = new CountDownLatch(1);
    Thread hook = new Thread(() -> stopOnCtrlC(runner, done), "trainyard-ctrl-c");
    try {
      out.println(header(plan, root));
      checkpoints.ifPresent(
          c ->
              out.println(
                  "checkpoints: "
                      + c.root()
                      + " (CHECKPOINT_DIR "
                      + c.root()
                      + "/"
                      + c.folder()
                      + (fresh ? "; --fresh: not resuming" : "; resumes from the newest complete")
                      + ")"));
      out.flush();
      for (LocalNode node : plan.nodes()) {
        copy(root, plan.commit(), runner.checkout(node));
        if (!Files.isDirectory(runner.checkout(node).resolve(node.workdir()))) {
          PrintWriter err = spec.commandLine().getErr();
          err.println(
              "trainyard: error: train.yaml's folder "
                  + node.workdir()
                  + " is not in "
                  + (workingTree ? "the copy of the work tree" : "the clone of the commit")
                  + ": git ignores it or has none of its files, so pods would not have it either");
          err.println("    hint: take it out of .gitignore, git add it, and run again");
          err.flush();
          return 1;
        }
      }
      StopSignal.watch();
      Runtime.getRuntime().addShutdownHook(hook);
      LocalRunner.Outcome o = runner.run(until);
      out.println("world check: " + o.world().line().replaceFirst("^world check: ", ""));
      out.println(
          "run "
              + plan.runName()
              + " (local): "
              + o.state()
              + "; world size "
              + o.world()
                  .worldSeen()
                  .map(w -> "seen: " + w + " of " + plan.expectedWorld())
                  .orElse("not checked (" + plan.expectedWorld() + " promised)")
              + ", "
              + shape(plan)
              + ", "
              + String.format(Locale.ROOT, "%.1fs", o.took().toMillis() / 1000.0));
      out.flush();
      return o.exitCode();
    } finally {
      try {
        removeHook(hook);
        delete(scratch);
      } finally {
        // After the clean-up: on Ctrl-C the JVM ends as soon as the hook returns.
        done.countDown();
      }
    }
  }

  private void copy(Path root, String commit, Path into) throws IOException {
    if (workingTree) {
      WorkingCopies.copy(root, into);
    } else {
      WorkingCopies.clone(root, commit, into);
    }
  }

  private String header(LocalPlan plan, Path root) {
    LocalNode first = plan.nodes().get(0);
    String port = first.get("MASTER_PORT");
    return "run "
        + plan.runName()
        + " locally: "
        + shape(plan)
        + ", runtime framework "
        + plan.framework()
        + ", "
        + (workingTree
            ? "the work tree of " + root
            : "a clean clone of commit "
                + plan.commit().substring(0, Math.min(12, plan.commit().length())))
        + (port.isEmpty() ? "" : ", MASTER_ADDR 127.0.0.1 port " + port);
  }

  /**
   * {@code 2 node(s)}, or for an MPI runtime {@code 2 node(s) as mpirun -np 4 from one launcher}
   * (every rank on this machine).
   */
  static String shape(LocalPlan plan) {
    if (plan.mpi().isEmpty()) {
      return plan.nodes().size() + " node(s)";
    }
    return plan.nodes().get(0).get("NNODES")
        + " node(s) as mpirun -np "
        + plan.mpi().get().world()
        + " from one launcher";
  }

  /** Ctrl-C: stop every process group, then let the summary print (bounded) before the JVM ends. */
  private static void stopOnCtrlC(LocalRunner runner, CountDownLatch done) {
    runner.stop(StopSignal.words().orElse("Ctrl-C"), StopSignal.exitCode());
    try {
      done.await(LocalRunner.GRACE.toSeconds() + 5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down (Ctrl-C): the hook is running.
    }
  }

  /**
   * Whether {@code remote} is a URL a pod could clone (scheme://… other than file://, or scp-style
   * user@host:path), not a local path.
   */
  static boolean clonableByPods(String remote) {
    String r = remote.strip();
    return (r.contains("://") && !r.startsWith("file:")) || r.matches("[^/@:]+@[^/:]+:.+");
  }

  /** A usage error (exit 2) unless {@code value} of option {@code name} is at least 1. */
  private void positive(String name, int value) {
    if (value < 1) {
      throw new ParameterException(spec.commandLine(), name + " must be at least 1, got " + value);
    }
  }

  /** A port free on 127.0.0.1 now (the OS picks it); the nodes bind it moments later. */
  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
