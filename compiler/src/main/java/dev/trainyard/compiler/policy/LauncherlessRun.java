package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.runtime.Framework;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A torch run on several nodes whose command starts no launcher ({@code python train.py}): unless
 * the script itself reads the node's place in the group ({@code MASTER_ADDR}, {@code NODE_RANK},
 * {@code NNODES}, {@code PET_*}, or Lightning, which reads them), every node trains alone and the
 * run still "succeeds". {@code torch.multiprocessing.spawn} starts processes on one node only, so
 * an {@code mp.spawn} script trains alone per node too (pytorch/examples {@code distributed/ddp};
 * reference/running-real-scripts.md). The script is read from the committed folder when it can be;
 * otherwise the command's shape decides. A script that only sets {@code MASTER_ADDR} ({@code
 * os.environ['MASTER_ADDR'] = 'localhost'}, as mp.spawn examples do) does not join the group; one
 * built on Horovod or MLX needs mpirun, not torchrun, and its hint says so; on the plain and jax
 * runtimes (no launcher either) such a script is reported too, since {@code mx.distributed.init()}
 * falls back to a group of one without mpirun (ml-explore/mlx {@code
 * docs/src/usage/distributed.rst}).
 */
final class LauncherlessRun {
  private static final List<String> LAUNCHERS =
      List.of(
          "torchrun",
          "accelerate",
          "tune",
          "deepspeed",
          "lightning",
          "composer",
          "torch.distributed.run",
          "torch.distributed.launch",
          Launchers.ACCELERATE_MODULE,
          "mpirun",
          "mpiexec",
          "colossalai",
          "ray");
  static final Pattern JOINS =
      Pattern.compile(
          "MASTER_ADDR|NODE_RANK|NNODES|PET_[A-Z]|GROUP_RANK|import\\s+lightning"
              + "|from\\s+lightning|pytorch_lightning");

  /**
   * Words one of which every match of {@link #JOINS} holds. A script with none of them cannot join,
   * and is not scanned with the pattern: the scan of a 3 KB script that holds none was a quarter of
   * a warm compile of the jax example (issue #24). Removing {@link #ASSIGNS}' matches, which end at
   * a line's end, never forms one of these words, as none spans a line break.
   */
  private static final List<String> JOIN_WORDS =
      List.of("MASTER_ADDR", "NODE_RANK", "NNODES", "PET_", "GROUP_RANK", "lightning");

  private static final Pattern SPAWN =
      Pattern.compile("\\b(mp|multiprocessing)\\.spawn\\s*\\(|\\bstart_processes\\s*\\(");

  /**
   * A statement that sets a variable instead of reading it ({@code os.environ['MASTER_ADDR'] =
   * 'localhost'}, {@code os.putenv("MASTER_PORT", "12355")}): the pytorch/examples {@code mp.spawn}
   * scripts set these for one machine, which the join check must not take for a read (issue #19).
   * {@code setdefault} keeps the pod's value: a read.
   */
  static final Pattern ASSIGNS =
      Pattern.compile(
          "environ\\s*\\[\\s*['\"][A-Z_]+['\"]\\s*]\\s*=(?!=)[^\\n]*|putenv\\s*\\(\\s*['\"][A-Z_]+['\"][^\\n]*");

  /**
   * Frameworks whose processes take their ranks from mpirun, not torchrun: torchrun would start
   * lone copies.
   */
  private static final Pattern MPI_FRAMEWORK =
      Pattern.compile("^\\s*(import|from)\\s+(horovod|mlx)\\b", Pattern.MULTILINE);

  /**
   * Runtimes whose {@code run} starts on every node with no launcher of Trainyard's: torch (any
   * script is checked), plain and jax (only an MLX or Horovod script, which needs mpirun; other
   * scripts on them are expected to read the env themselves).
   */
  private static final Set<Framework> LINTED =
      Set.of(Framework.TORCH, Framework.PLAIN, Framework.JAX);

  private static final List<String> PYTHON_VALUE_OPTIONS = List.of("-W", "-X");

  private LauncherlessRun() {}

  static void check(RunCheck c) {
    if (!LINTED.contains(c.framework())
        || c.nodes() < 2
        || c.run().code().contains("SLURM_")
        || LAUNCHERS.stream().anyMatch(c.run()::hasWord)) {
      return;
    }
    List<RunTokens.Word> words = c.run().words();
    // `srun python train.py` starts python too (the Slurm rule reports srun; the hint drops it).
    int afterSrun = SlurmRule.srunPrefix(c.run()).map(span -> span[1]).orElse(-1);
    for (int i = 0; i < words.size(); i++) {
      if (Launchers.PYTHON.matcher(words.get(i).text()).matches()
          && (c.run().startsCommand(i) || words.get(i).start() == afterSrun)) {
        program(words, i).ifPresent(p -> report(c, p));
        return;
      }
    }
  }

  private static void report(RunCheck c, Program p) {
    Optional<String> script =
        p.module()
            ? Optional.empty()
            : c.scripts().read(p.name().text()).map(LauncherlessRun::withoutComments);
    if (script.isPresent() && joins(script.get())) {
      return;
    }
    Optional<String> mpi =
        script
            .filter(LauncherlessRun::mayImportMpiFramework)
            .map(MPI_FRAMEWORK::matcher)
            .filter(Matcher::find)
            .map(m -> m.group(2));
    if (mpi.isPresent()) {
      String runtime = mpi.get().equals("mlx") ? "mlx" : "mpi";
      c.warning(
          DiagnosticCode.NODES_TRAIN_ALONE,
          p.python(),
          p.name().text()
              + " uses "
              + (runtime.equals("mlx")
                  ? "MLX, whose mx.distributed.init()"
                  : "Horovod, whose hvd.init()")
              + " takes its ranks from mpirun, and `run` starts it with python on each of the "
              + c.nodes()
              + " nodes: each would train alone",
          (c.framework() == Framework.TORCH ? "torchrun would only start more lone copies; " : "")
              + "use an MPI runtime, which starts `run` under mpirun across the nodes:"
              + " `runtime: "
              + runtime
              + "` (an image with "
              + mpi.get()
              + ") and `run: python "
              + p.name().text()
              + "`");
      return;
    }
    if (c.framework() != Framework.TORCH) {
      return;
    }
    boolean spawn =
        script.filter(LauncherlessRun::maySpawn).filter(s -> SPAWN.matcher(s).find()).isPresent();
    String what =
        script.isPresent()
            ? p.name().text()
                + (spawn
                    ? " starts its processes with mp.spawn, which stays on one node,"
                    : " reads no MASTER_ADDR, NODE_RANK or PET_* variable,")
            : "`run` starts " + p.name().text() + " with python and no launcher,";
    String fixed =
        c.rewrite()
            .remove(p.python().start(), p.name().start())
            .insert(p.python().start(), "torchrun " + (p.module() ? "-m " : ""))
            .apply();
    c.warning(
        DiagnosticCode.NODES_TRAIN_ALONE,
        p.python(),
        what + " so each of the " + c.nodes() + " nodes would train alone",
        "start it with torchrun, which reads PET_NNODES, PET_NODE_RANK and PET_MASTER_ADDR"
            + (spawn
                ? " (and let torchrun start one process per GPU instead of mp.spawn, reading LOCAL_RANK)"
                : "")
            + ", e.g. "
            + c.hint(fixed));
  }

  /**
   * Whether a script (comments removed) reads the node's place in the group: a {@link #JOINS} match
   * once the statements that set a variable ({@link #ASSIGNS}) are taken out.
   */
  static boolean joins(String script) {
    if (!mayJoin(script)) {
      return false;
    }
    return JOINS.matcher(maySet(script) ? ASSIGNS.matcher(script).replaceAll("") : script).find();
  }

  /**
   * False when {@code script} holds none of {@link #JOIN_WORDS}, so {@link #JOINS} cannot match.
   */
  static boolean mayJoin(String script) {
    return JOIN_WORDS.stream().anyMatch(script::contains);
  }

  /** False when {@code script} holds neither word every {@link #ASSIGNS} match starts with. */
  static boolean maySet(String script) {
    return script.contains("environ") || script.contains("putenv");
  }

  /** False when {@code script} holds neither word an {@link #MPI_FRAMEWORK} match holds. */
  static boolean mayImportMpiFramework(String script) {
    return script.contains("horovod") || script.contains("mlx");
  }

  /** False when {@code script} holds neither word a {@link #SPAWN} match holds. */
  static boolean maySpawn(String script) {
    return script.contains("spawn") || script.contains("start_processes");
  }

  /**
   * Python source with each comment (a {@code #} outside a string literal, to the end of its line)
   * removed; strings, line breaks and all else kept. A comment such as {@code # torchrun sets
   * MASTER_ADDR for us} is no sign that the script joins a group; a string can be ({@code
   * os.environ["MASTER_ADDR"]}), so strings stay. Python's lexical rules
   * (https://docs.python.org/3/reference/lexical_analysis.html, "Comments" and "String and Bytes
   * literals"): a string opens with one or three single or double quotes (prefixes such as {@code
   * r} or {@code f} change nothing here), a backslash keeps the next character inside the string
   * (in raw strings too), a one-quote string ends at its line's end at the latest; an unclosed
   * string runs to the end of the text.
   */
  static String withoutComments(String source) {
    if (source.indexOf('#') < 0) {
      return source;
    }
    // Copies the text between comments in runs (Java 17's StringBuilder copies a String part char
    // by char, a whole String at once): this read was 2 % of a warm compile (issue #24).
    StringBuilder out = new StringBuilder(source.length());
    int n = source.length();
    int copied = 0;
    int i = 0;
    while (i < n) {
      char ch = source.charAt(i);
      if (ch == '#') {
        out.append(source.substring(copied, i));
        while (i < n && source.charAt(i) != '\n') {
          i++;
        }
        copied = i;
      } else if (ch == '\'' || ch == '"') {
        String triple = String.valueOf(ch).repeat(3);
        String quote = source.startsWith(triple, i) ? triple : String.valueOf(ch);
        int end = i + quote.length();
        while (end < n && !source.startsWith(quote, end)) {
          char at = source.charAt(end);
          if (at == '\n' && quote.length() == 1) {
            break;
          }
          end += at == '\\' ? 2 : 1;
        }
        i = Math.min(n, source.startsWith(quote, end) ? end + quote.length() : end);
      } else {
        i++;
      }
    }
    return out.append(source.substring(copied, n)).toString();
  }

  /** The script or {@code -m module} after python's own options; empty for {@code python -c}. */
  private static Optional<Program> program(List<RunTokens.Word> words, int python) {
    int command = words.get(python).command();
    for (int i = python + 1; i < words.size() && words.get(i).command() == command; i++) {
      String w = words.get(i).text();
      if (w.equals("-m")) {
        // The module is the next word of the same simple command; `python -m; echo` names none.
        return Launchers.moduleOf(words, python).map(m -> new Program(words.get(python), m, true));
      }
      if (w.equals("-c")) {
        return Optional.empty();
      }
      if (!w.startsWith("-")) {
        return Optional.of(new Program(words.get(python), words.get(i), false));
      }
      i += PYTHON_VALUE_OPTIONS.contains(w) ? 1 : 0;
    }
    return Optional.empty();
  }

  /**
   * @param python the python word
   * @param name the script's word, or the module's
   * @param module whether it runs a module
   */
  private record Program(RunTokens.Word python, RunTokens.Word name, boolean module) {}
}
