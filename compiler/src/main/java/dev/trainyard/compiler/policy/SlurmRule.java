package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Slurm does not exist in a pod: {@code srun}, {@code scontrol}, {@code sbatch} and {@code
 * $SLURM_*} are errors. Launch lines copied from a Slurm README ({@code srun -N 2 torchrun --nnodes
 * $SLURM_NNODES --rdzv_id $RANDOM --rdzv_endpoint $head_node_ip:29500 train.py}) are fixed as a
 * whole: every hint drops the {@code srun} prefix with its options ({@link #srunPrefix}, as {@link
 * RunCheck#rewrite} does for every rule) and gives the launcher's flags the values every pod has
 * ({@link LaunchVariables}), so the Slurm hint and the other findings' hints show the same command.
 */
final class SlurmRule {
  static final Pattern SLURM =
      Pattern.compile("\\$\\{?SLURM_|(?<=^|[\\s;&|(])(srun|scontrol|sbatch)(?=\\s|$)");

  /**
   * Whether {@link #SLURM} finds a match in {@code text}; a text without {@code SLURM_}, {@code
   * srun}, {@code scontrol} or {@code sbatch}, which every match holds, is not scanned (the
   * lookbehind at every position was 2 % of a warm compile, issue #24).
   */
  static Optional<Matcher> slurm(String text) {
    if (!mentionsSlurm(text)) {
      return Optional.empty();
    }
    Matcher m = SLURM.matcher(text);
    return m.find() ? Optional.of(m) : Optional.empty();
  }

  /** False when {@code text} holds none of the words every {@link #SLURM} match holds. */
  static boolean mentionsSlurm(String text) {
    return text.contains("SLURM_")
        || text.contains("srun")
        || text.contains("scontrol")
        || text.contains("sbatch");
  }

  /** Words that start the program srun would have started: the end of srun's options. */
  private static final Pattern PROGRAM =
      Pattern.compile(
          "(.*/)?(torchrun|python[0-9.]*|accelerate|deepspeed|tune|bash|sh|uv|poetry|env)|.*\\.(py|sh)|\\./.*");

  /**
   * srun options written without {@code =} that take the next word as their value (Slurm's srun(1)
   * manual; the common ones in training READMEs).
   */
  private static final Set<String> WITH_VALUE =
      Set.of(
          "-N",
          "-n",
          "-c",
          "-p",
          "-t",
          "-J",
          "-o",
          "-e",
          "-w",
          "-A",
          "-G",
          "--nodes",
          "--ntasks",
          "--ntasks-per-node",
          "--cpus-per-task",
          "--gpus",
          "--gpus-per-node",
          "--gpus-per-task",
          "--gres",
          "--partition",
          "--time",
          "--job-name",
          "--output",
          "--error",
          "--nodelist",
          "--mem",
          "--account",
          "--export",
          "--mpi",
          "--cpu-bind",
          "--distribution",
          "--qos");

  /** An assignment's name at the start of a word: {@code head_node_ip=…}, {@code nodes=(…}. */
  private static final Pattern ASSIGNMENT =
      Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=.*", Pattern.DOTALL);

  /** Builtins that assign their arguments. */
  private static final Set<String> DECLARE = Set.of("export", "declare", "local", "readonly");

  private static final Pattern REFERENCE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)");

  private SlurmRule() {}

  static void check(RunCheck c) {
    Optional<Matcher> found = slurm(c.run().code());
    if (found.isEmpty()) {
      return;
    }
    Matcher m = found.get();
    // The match is the command word itself (the lookarounds take no characters) or the $SLURM_
    // prefix.
    c.out()
        .add(
            Diagnostic.error(
                    DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
                    c.source().at(m.start(), m.end() - m.start()),
                    RunCheck.POINTER,
                    "`run` uses Slurm (srun, scontrol or $SLURM_*), which does not exist in a Kubernetes pod")
                .withHint(hint(c)));
  }

  /**
   * The hint: the command another finding of this line already gives (so every hint agrees), else
   * the line with srun's prefix dropped and {@code $SLURM_*} launcher values replaced (a line that
   * still needs Slurm after that, e.g. {@code scontrol show hostnames}, gets only the variables to
   * use).
   */
  private static String hint(RunCheck c) {
    String use = "use $NNODES, $NODE_RANK, $MASTER_ADDR and $MASTER_PORT, which every node has";
    Optional<String> other = c.otherHint();
    if (other.isPresent()) {
      return use + "; " + other.get();
    }
    String fixed = LaunchVariables.fixed(c);
    if (fixed.isEmpty() && srunPrefix(c.run()).isPresent()) {
      fixed = c.rewrite().apply();
    }
    if (fixed.isEmpty() || slurm(RunTokens.of(fixed).code()).isPresent()) {
      return use;
    }
    return use + "; e.g. " + c.hint(fixed);
  }

  /**
   * Variables {@code run} computes from Slurm, in commands that only assign them: {@code
   * nodes=($(scontrol show hostnames $SLURM_JOB_NODELIST))}, then {@code head_node=${nodes[0]}} and
   * {@code head_node_ip=$(srun … hostname --ip-address)} that follow from them. A launcher flag
   * holding one of them gets the pod's value in every hint ({@link LaunchVariables}).
   */
  static Set<String> slurmVariables(RunTokens run) {
    return slurmAssignments(run).keySet().stream()
        .map(span -> span.name())
        .collect(Collectors.toCollection(LinkedHashSet::new));
  }

  /**
   * The commands that only assign Slurm-derived variables, as offsets {@code [start, end)} from
   * their first word to the next command's first word (separator and line break included), so that
   * a rewrite can drop them whole.
   */
  static List<int[]> slurmAssignmentSpans(RunTokens run) {
    return slurmAssignments(run).values().stream().toList();
  }

  private record Assigned(String name, int command) {}

  private static Map<Assigned, int[]> slurmAssignments(RunTokens run) {
    if (slurm(run.code()).isEmpty()) {
      return Map.of();
    }
    Map<Assigned, int[]> found = new LinkedHashMap<>();
    Set<String> derived = new LinkedHashSet<>();
    for (Assignment a : assignments(run)) {
      boolean fromSlurm = slurm(" " + a.text()).isPresent();
      Matcher ref = REFERENCE.matcher(a.text());
      while (!fromSlurm && ref.find()) {
        fromSlurm = derived.contains(ref.group(1));
      }
      if (fromSlurm) {
        derived.add(a.name());
        found.put(new Assigned(a.name(), a.command()), new int[] {a.start(), a.end()});
      }
    }
    return found;
  }

  /**
   * The commands of {@code run} that assign {@code name} ({@code NAME=…}, {@code export NAME=…}),
   * as offsets {@code [start, end)} to the next command's start, for a rewrite to drop.
   */
  static List<int[]> assignmentSpans(RunTokens run, String name) {
    return assignments(run).stream()
        .filter(a -> a.name().equals(name))
        .map(a -> new int[] {a.start(), a.end()})
        .toList();
  }

  /**
   * One command that starts with an assignment: the name, its command index, its span to the next
   * command's start, and its text as written.
   */
  private record Assignment(String name, int command, int start, int end, String text) {}

  private static List<Assignment> assignments(RunTokens run) {
    List<List<RunTokens.Word>> commands = run.commands();
    List<Assignment> out = new ArrayList<>();
    for (int k = 0; k < commands.size(); k++) {
      List<RunTokens.Word> words = commands.get(k);
      // `export MASTER_ADDR=$(scontrol show hostnames … | head -n 1)`, PyTorch's sbatch layout.
      boolean declared = DECLARE.contains(words.get(0).text()) && words.size() > 1;
      Matcher name = ASSIGNMENT.matcher(words.get(declared ? 1 : 0).text());
      if (!name.matches()) {
        continue;
      }
      int[] span = run.dropSpan(commands, k);
      out.add(
          new Assignment(
              name.group(1),
              words.get(0).command(),
              span[0],
              span[1],
              run.text().substring(words.get(0).start(), words.get(words.size() - 1).end())));
    }
    return out;
  }

  /**
   * Offsets {@code [start, end)} of an {@code srun} prefix with its options, up to the program it
   * starts ({@code srun -N 2 --ntasks-per-node=1 torchrun …} → {@code srun -N 2 --ntasks-per-node=1
   * }); empty when {@code run} has no {@code srun} or srun starts no program this rule can name.
   */
  static Optional<int[]> srunPrefix(RunTokens run) {
    List<RunTokens.Word> words = run.words();
    for (int i = 0; i < words.size(); i++) {
      if (!words.get(i).text().equals("srun")) {
        continue;
      }
      int j = i + 1;
      while (j < words.size() && words.get(j).command() == words.get(i).command()) {
        String w = words.get(j).text();
        if (PROGRAM.matcher(w).matches()) {
          return Optional.of(new int[] {words.get(i).start(), words.get(j).start()});
        }
        if (!w.startsWith("-")) {
          return Optional.empty();
        }
        j += WITH_VALUE.contains(w) ? 2 : 1;
      }
      return Optional.empty();
    }
    return Optional.empty();
  }
}
