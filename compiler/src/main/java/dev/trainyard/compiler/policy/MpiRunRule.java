package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.runtime.MpiSettings;
import dev.trainyard.compiler.runtime.MpiSettings.MpiImplementation;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * MPI runtimes run {@code run} once per rank under the launcher's {@code mpirun}, so {@code run}
 * names only the program. A second {@code mpirun} is refused, its tuning ({@code -bind-to}, {@code
 * -map-by}, {@code --mca}) moves to train.yaml's {@code mpi} field; a launcher inside mpirun
 * ({@code deepspeed}, {@code torchrun} or its module {@code python -m torch.distributed.run},
 * {@code horovodrun}, {@code mlx.launch}) would start its own processes in every rank. The
 * corrected command keeps what the launcher gave the program: DeepSpeed's launcher passes {@code
 * --local_rank} (microsoft/DeepSpeedExamples {@code HelloDeepSpeed} parses it), torchrun sets
 * {@code RANK}, {@code LOCAL_RANK}, {@code WORLD_SIZE}; Horovod and MLX read MPI themselves
 * (horovod {@code docs/mpi.rst} adds {@code -bind-to none -map-by slot}).
 */
final class MpiRunRule {
  private static final Pattern PROGRAM = Pattern.compile("(.*/)?python[0-9.]*|.*\\.py|\\./.*");

  /**
   * mpirun's names: Open MPI's mpirun, mpiexec, orterun (4) and prterun (5); Intel MPI's and
   * MPICH's mpiexec.hydra.
   */
  private static final List<String> MPIRUN =
      List.of("mpirun", "mpiexec", "mpiexec.hydra", "orterun", "prterun");

  private static final List<String> NESTED =
      List.of("deepspeed", "torchrun", "horovodrun", "mlx.launch");
  private static final String TORCHRUN_ENV =
      "RANK=$OMPI_COMM_WORLD_RANK LOCAL_RANK=$OMPI_COMM_WORLD_LOCAL_RANK"
          + " WORLD_SIZE=$OMPI_COMM_WORLD_SIZE LOCAL_WORLD_SIZE=$OMPI_COMM_WORLD_LOCAL_SIZE ";

  /** mpirun(1) options (either dash form) that take one value. */
  private static final List<String> MPIRUN_VALUE_OPTIONS =
      List.of(
          "np",
          "n",
          "c",
          "H",
          "host",
          "hostfile",
          "machinefile",
          "x",
          "wdir",
          "bind-to",
          "map-by",
          "rank-by",
          "npernode",
          "N",
          "prefix",
          "output-filename");

  private MpiRunRule() {}

  static void check(RunCheck c) {
    Optional<RunTokens.Word> mpirun =
        MPIRUN.stream().map(c.run()::word).flatMap(Optional::stream).findFirst();
    if (mpirun.isPresent()) {
      String tuning = MpirunTuning.of(c.run(), mpirun.get()).yaml();
      c.error(
          DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
          mpirun.get(),
          "`run` calls mpirun, but MPI runtimes already start `run` under mpirun on the launcher",
          "write only the program; the hostfile and -np are set for you"
              + (tuning.isEmpty() ? "" : ", and the tuning goes to `" + tuning + "`")
              + ", e.g. "
              + c.hint(
                  program(c, mpirun.get(), "", "")
                      .or(() -> mpirunProgram(c, mpirun.get()))
                      .orElse("python train.py")));
      return;
    }
    for (String name : NESTED) {
      c.run().word(name).ifPresent(w -> nested(c, w, name, name));
    }
    Launchers.torchModule(c.run())
        .ifPresent(l -> nested(c, l.first(), "torchrun", l.text(c.run())));
  }

  /**
   * {@code name} is the launcher's kind, {@code shown} how {@code run} spells it ({@code python -m
   * torch.distributed.run}).
   */
  private static void nested(RunCheck c, RunTokens.Word launcher, String name, String shown) {
    boolean openMpi =
        c.job().runtime().mpi().map(MpiSettings::implementation).orElse(MpiImplementation.OPEN_MPI)
            == MpiImplementation.OPEN_MPI;
    String why =
        switch (name) {
          case "deepspeed" ->
              "deepspeed.init_distributed() reads the ranks from mpirun"
                  + (c.run().has("--no_local_rank")
                      ? ""
                      : "; --local_rank, which the deepspeed launcher passed, comes from OMPI_COMM_WORLD_LOCAL_RANK");
          case "torchrun" ->
              openMpi
                  ? "RANK, LOCAL_RANK and WORLD_SIZE, which torchrun set, come from mpirun's OMPI_COMM_WORLD_* names"
                  : "read the ranks from mpirun's PMI_RANK and PMI_SIZE";
          case "horovodrun" ->
              "hvd.init() reads the ranks from mpirun; Horovod's documented `mpi: {bindTo: none, mapBy: slot}` goes to train.yaml";
          default -> "mx.distributed.init() picks up MPI by itself";
        };
    String prefix = name.equals("torchrun") && openMpi ? TORCHRUN_ENV : "";
    String suffix =
        name.equals("deepspeed") && !c.run().has("--no_local_rank")
            ? " --local_rank=$OMPI_COMM_WORLD_LOCAL_RANK"
            : "";
    c.error(
        DiagnosticCode.NESTED_LAUNCHER,
        launcher,
        "`run` starts "
            + shown
            + " inside the mpirun of runtime "
            + c.job().runtime().name()
            + ": every rank would start its own launcher and its own processes",
        "run the program directly; "
            + why
            + ", e.g. "
            + c.hint(program(c, launcher, prefix, suffix).orElse("python train.py" + suffix)));
  }

  /**
   * {@code run} with mpirun and its options removed, for a program {@link #program} does not
   * recognise ({@code mpirun -np 4 hostname}): the first word that is neither an option nor an
   * option's value. The options that take values are Open MPI's mpirun(1) ones ({@code --mca} takes
   * two); empty when every word is an option.
   */
  private static Optional<String> mpirunProgram(RunCheck c, RunTokens.Word mpirun) {
    int program = programIndex(c.run().words(), c.run().indexOf(mpirun));
    return program < 0
        ? Optional.empty()
        : Optional.of(
            c.rewrite().remove(mpirun.start(), c.run().words().get(program).start()).apply());
  }

  /** Whether {@code word} is one of mpirun's names. */
  static boolean isMpirun(String word) {
    return MPIRUN.contains(word.replaceFirst("^.*/", ""));
  }

  /**
   * The index of the program an mpirun at {@code mpirun} starts: the first word of its simple
   * command that is neither an option nor an option's value; -1 when every word is an option.
   */
  static int programIndex(List<RunTokens.Word> words, int mpirun) {
    for (int i = mpirun + 1;
        i < words.size() && words.get(i).command() == words.get(mpirun).command();
        i++) {
      String w = words.get(i).text();
      if (!w.startsWith("-")) {
        return i;
      }
      i +=
          w.contains("=")
              ? 0
              : w.matches("--?mca")
                  ? 2
                  : MPIRUN_VALUE_OPTIONS.contains(w.replaceFirst("^--?", "")) ? 1 : 0;
    }
    return -1;
  }

  /**
   * {@code run} with the launcher and its options replaced by {@code prefix} + the program (python
   * added when missing), {@code suffix} after the program's last argument; empty when no program is
   * recognised.
   */
  static Optional<String> program(
      RunCheck c, RunTokens.Word launcher, String prefix, String suffix) {
    List<RunTokens.Word> words = c.run().words();
    RunTokens.Word last =
        words.stream()
            .filter(w -> w.command() == launcher.command())
            .reduce((a, b) -> b)
            .orElseThrow();
    for (int i = c.run().indexOf(launcher) + 1;
        i < words.size() && words.get(i).command() == launcher.command();
        i++) {
      RunTokens.Word w = words.get(i);
      if (PROGRAM.matcher(w.text()).matches()
          && !words.get(i - 1).text().matches("--?(hostfile|H|host|hosts|x|np|n)")) {
        // A script needs python in front (the launcher added it); an executable such as ./pi does
        // not.
        String python = w.text().endsWith(".py") ? "python " : "";
        return Optional.of(
            c.rewrite()
                .remove(launcher.start(), w.start())
                .insert(launcher.start(), prefix + python)
                .insert(last.end(), suffix)
                .apply());
      }
    }
    return Optional.empty();
  }
}
