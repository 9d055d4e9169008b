package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Variables inside launcher flags. A flag that must hold the same value on every node (the
 * rendezvous id and endpoint, the node and process counts, node 0's address) must not take a value
 * that differs per pod ({@code $RANDOM}, {@code $HOSTNAME}, {@code $(hostname)}, {@code $(date
 * +%s)}): each node would wait in its own rendezvous. A rank flag must come from the node's rank,
 * never from a random number. And a variable no pod sets (a host or scheduler variable copied from
 * a README, e.g. {@code $NUM_NODES}) expands to nothing, so the flag swallows the next word: in a
 * topology flag (a node or process count, a node rank) that is an error, since the launcher then
 * cannot count or place the group's members; in the other launcher flags a warning (the launcher
 * may fail at once or fall back to a default). Slurm's {@code $SLURM_*} are the Slurm rule's to
 * report; the fixed command replaces them too.
 */
final class LaunchVariables {
  /**
   * Flags that must agree on every node → the value a pod has for them ("" = drop the flag: its
   * default works).
   */
  private static final Map<String, Function<RunCheck, String>> GROUP = new LinkedHashMap<>();

  /** Flags whose value is this node's rank. */
  private static final Set<String> RANK =
      Set.of("--node_rank", "--node-rank", "--machine_rank", "--machine-rank");

  /** Flags that count the group's nodes or processes: without a value the group cannot form. */
  private static final Set<String> COUNTS =
      Set.of(
          "--nnodes",
          "--num_machines",
          "--num-machines",
          "--num_nodes",
          "--nproc_per_node",
          "--nproc-per-node",
          "--num_gpus",
          "--num_processes",
          "--num-processes");

  private static final Pattern PER_POD =
      Pattern.compile(
          "\\$\\{?(RANDOM|SRANDOM|BASHPID|HOSTNAME|EPOCHSECONDS|EPOCHREALTIME)\\b}?|\\$\\$|(\\$\\(|`)\\s*(hostname|date|uuidgen|shuf|mktemp|od|head)\\b"
              // $((RANDOM + 20000)): arithmetic names its variables without $.
              + "|\\$\\(\\([^)]*\\b(RANDOM|SRANDOM|BASHPID|EPOCHSECONDS)\\b");
  private static final Pattern REFERENCE =
      Pattern.compile(
          "\\$\\{([A-Za-z_][A-Za-z0-9_]*|[1-9][0-9]*)([^}]*)}|\\$([A-Za-z_][A-Za-z0-9_]*|[1-9])");

  static {
    group(c -> "", "--rdzv_id", "--rdzv-id");
    group(c -> "$MASTER_ADDR:$MASTER_PORT", "--rdzv_endpoint", "--rdzv-endpoint");
    group(
        c -> "$MASTER_ADDR",
        "--master_addr",
        "--master-addr",
        "--main_process_ip",
        "--main-process-ip");
    group(
        c -> "$MASTER_PORT",
        "--master_port",
        "--master-port",
        "--main_process_port",
        "--main-process-port");
    group(c -> "$NNODES", "--nnodes", "--num_machines", "--num-machines", "--num_nodes");
    group(RunCheck::perNodeValue, "--nproc_per_node", "--nproc-per-node", "--num_gpus");
    group(RunCheck::totalValue, "--num_processes", "--num-processes");
  }

  private static void group(Function<RunCheck, String> value, String... flags) {
    for (String f : flags) {
      GROUP.put(f, value);
    }
  }

  private LaunchVariables() {}

  static void check(RunCheck c) {
    List<Finding> found = findings(c);
    String fixed = fixed(c, found);
    for (Finding f : found) {
      if (f.code() == null) {
        continue;
      }
      String advice =
          replacement(c, f).isEmpty()
              ? "drop "
                  + f.flag().name()
                  + " (every node of this run already shares one rendezvous)"
              : "use the value every pod has";
      c.out()
          .add(
              (f.error()
                      ? Diagnostic.error(
                          f.code(), c.at(f.flag().value()), RunCheck.POINTER, f.message())
                      : Diagnostic.warning(
                          f.code(), c.at(f.flag().value()), RunCheck.POINTER, f.message()))
                  .withHint(advice + ", e.g. " + c.hint(fixed)));
    }
  }

  /**
   * The command every hint of this rule gives: each flag found replaced by the value every pod has
   * (a {@code $SLURM_*} value too, which the Slurm rule reports), or "" when no flag needs it.
   */
  static String fixed(RunCheck c) {
    return fixed(c, findings(c));
  }

  private static List<Finding> findings(RunCheck c) {
    List<Finding> found = new ArrayList<>();
    for (String name : GROUP.keySet()) {
      c.run().flags(name).forEach(f -> checkFlag(c, f, false).ifPresent(found::add));
    }
    for (String name : RANK) {
      c.run().flags(name).forEach(f -> checkFlag(c, f, true).ifPresent(found::add));
    }
    return found;
  }

  private static String fixed(RunCheck c, List<Finding> found) {
    // The torchrun rule's command carries these replacements too (and the whole group off the
    // torch runtime), so each hint's command is accepted as a whole.
    return found.isEmpty() ? "" : TorchrunFlags.fixed(c);
  }

  /**
   * Adds to {@code edit} each finding's flag with the value every pod has (or without it, when its
   * default works), except the flags at the offsets in {@code removed}, which another rule drops.
   */
  static void replace(RunCheck c, RunCheck.Rewrite edit, Set<Integer> removed) {
    for (Finding f : findings(c)) {
      if (removed.contains(f.flag().word().start())) {
        continue;
      }
      String replacement = replacement(c, f);
      edit.remove(f.flag());
      if (!replacement.isEmpty()) {
        edit.insert(f.flag().word().start(), f.flag().name() + " " + replacement + " ");
      }
      // MASTER_ADDR=$(hostname); … --master_addr $MASTER_ADDR: the pod's value is the variable
      // itself, so the assignment that overwrote it goes.
      if (f.assigned() != null && replacement.contains("$" + f.assigned())) {
        SlurmRule.assignmentSpans(c.run(), f.assigned())
            .forEach(span -> edit.remove(span[0], span[1]));
      }
    }
  }

  private static Optional<Finding> checkFlag(RunCheck c, RunTokens.Flag f, boolean rank) {
    String value = f.value().text();
    Matcher ref = REFERENCE.matcher(value);
    // A variable run sets from a per-pod value carries it: ID=$RANDOM; torchrun --rdzv_id $ID.
    String perPod = PER_POD.matcher(value).find() ? value : "";
    String assigned = null;
    while (perPod.isEmpty() && ref.find()) {
      String var = ref.group(1) != null ? ref.group(1) : ref.group(3);
      perPod =
          PodVariables.assignedValue(c.run(), var, f.value())
              .filter(v -> PER_POD.matcher(v).find())
              .map(v -> value + " (" + var + "=" + v + ")")
              .orElse("");
      assigned = perPod.isEmpty() ? null : var;
    }
    if (!perPod.isEmpty()) {
      return Optional.of(
          new Finding(
              f,
              rank,
              DiagnosticCode.POD_VARIABLE_IN_FLAG,
              true,
              "`run` passes "
                  + f.name()
                  + " "
                  + perPod
                  + ", which differs from pod to pod: "
                  + (rank
                      ? "node ranks would collide or be missing"
                      : "the nodes would never agree and wait until the rendezvous timeout"),
              assigned));
    }
    ref.reset();
    while (ref.find()) {
      String var = ref.group(1) != null ? ref.group(1) : ref.group(3);
      boolean hasDefault = ref.group(2) != null && ref.group(2).matches("^:?[-=].*");
      if (var.startsWith("SLURM_") || SlurmRule.slurmVariables(c.run()).contains(var)) {
        // The Slurm rule reports it; the fixed command still replaces it.
        return Optional.of(new Finding(f, rank, null, true, ""));
      }
      Optional<String> unset = hasDefault ? Optional.empty() : PodVariables.unset(c, var, f.word());
      if (unset.isPresent()) {
        return Optional.of(undefined(f, unset.get(), rank));
      }
    }
    return Optional.empty();
  }

  /**
   * {@code why}: why the variable is empty there, following "but " ({@link PodVariables#unset}).
   */
  private static Finding undefined(RunTokens.Flag f, String why, boolean rank) {
    String what =
        "`run` passes "
            + f.name()
            + " "
            + f.value().text()
            + ", but "
            + why
            + ": the flag would get an empty value";
    if (rank || COUNTS.contains(f.name())) {
      return new Finding(
          f,
          rank,
          DiagnosticCode.UNDEFINED_VARIABLE_IN_TOPOLOGY,
          true,
          what
              + ", so the launcher cannot "
              + (rank ? "place this node in the group" : "count the group")
              + " and the run never forms one");
    }
    return new Finding(f, rank, DiagnosticCode.UNDEFINED_VARIABLE_IN_FLAG, false, what);
  }

  /** The value a pod has for the flag; "" when the flag is best dropped. */
  private static String replacement(RunCheck c, Finding f) {
    return f.rank() ? "$NODE_RANK" : GROUP.get(f.flag().name()).apply(c);
  }

  /**
   * @param flag the flag and its value
   * @param rank whether it is a rank flag
   * @param code its diagnostic code; null for a {@code $SLURM_*} value, which only the fixed
   *     command replaces
   * @param error an error, else a warning
   * @param message what is wrong
   * @param assigned the variable {@code run} set from a per-pod value that the flag reads, or null
   */
  private record Finding(
      RunTokens.Flag flag,
      boolean rank,
      DiagnosticCode code,
      boolean error,
      String message,
      String assigned) {

    Finding(RunTokens.Flag flag, boolean rank, DiagnosticCode code, boolean error, String message) {
      this(flag, rank, code, error, message, null);
    }
  }
}
