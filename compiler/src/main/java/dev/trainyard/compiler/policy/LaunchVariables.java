package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Variables inside launcher flags. A flag that must hold the same value on every node (the rendezvous id
 * and endpoint, the node and process counts, node 0's address) must not take a value that differs per pod
 * ({@code $RANDOM}, {@code $HOSTNAME}, {@code $(hostname)}, {@code $(date +%s)}): each node would wait in its
 * own rendezvous. A rank flag must come from the node's rank, never from a random number. And a variable no
 * pod sets (a host or scheduler variable copied from a README, e.g. {@code $NUM_NODES}) expands to nothing,
 * so the flag swallows the next word; Slurm's {@code $SLURM_*} are the Slurm rule's.
 */
final class LaunchVariables {
  /** Flags that must agree on every node → the value a pod has for them ("" = drop the flag: its default works). */
  private static final Map<String, Function<RunCheck, String>> GROUP = new LinkedHashMap<>();
  /** Flags whose value is this node's rank. */
  private static final Set<String> RANK = Set.of("--node_rank", "--node-rank", "--machine_rank", "--machine-rank");
  private static final Pattern PER_POD = Pattern.compile(
      "\\$\\{?(RANDOM|SRANDOM|BASHPID|HOSTNAME|EPOCHSECONDS|EPOCHREALTIME)\\b}?|\\$\\$|(\\$\\(|`)\\s*(hostname|date|uuidgen|shuf|mktemp|od|head)\\b");
  private static final Pattern REFERENCE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)([^}]*)}|\\$([A-Za-z_][A-Za-z0-9_]*)");

  static {
    group(c -> "", "--rdzv_id", "--rdzv-id");
    group(c -> "$MASTER_ADDR:$MASTER_PORT", "--rdzv_endpoint", "--rdzv-endpoint");
    group(c -> "$MASTER_ADDR", "--master_addr", "--master-addr", "--main_process_ip", "--main-process-ip");
    group(c -> "$MASTER_PORT", "--master_port", "--master-port", "--main_process_port", "--main-process-port");
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
    for (String name : GROUP.keySet()) {
      c.run().flags(name).forEach(f -> checkFlag(c, f, false));
    }
    for (String name : RANK) {
      c.run().flags(name).forEach(f -> checkFlag(c, f, true));
    }
  }

  private static void checkFlag(RunCheck c, RunTokens.Flag f, boolean rank) {
    String value = f.value().text();
    Matcher perPod = PER_POD.matcher(value);
    if (perPod.find()) {
      c.error(DiagnosticCode.POD_VARIABLE_IN_FLAG, f.value(),
          "`run` passes " + f.name() + " " + value + ", which differs from pod to pod: "
              + (rank ? "node ranks would collide or be missing" : "the nodes would never agree and wait until the rendezvous timeout"),
          fixHint(c, f, rank));
      return;
    }
    Matcher ref = REFERENCE.matcher(value);
    while (ref.find()) {
      String var = ref.group(1) != null ? ref.group(1) : ref.group(3);
      boolean hasDefault = ref.group(2) != null && ref.group(2).matches("^:?[-=].*");
      if (!hasDefault && !var.startsWith("SLURM_") && !PodVariables.defined(c, var)) {
        c.warning(DiagnosticCode.UNDEFINED_VARIABLE_IN_FLAG, f.value(),
            "`run` passes " + f.name() + " " + value + ", but no pod of this job sets $" + var + ": the flag would get an empty value",
            fixHint(c, f, rank));
        return;
      }
    }
  }

  private static String fixHint(RunCheck c, RunTokens.Flag f, boolean rank) {
    String replacement = rank ? "$NODE_RANK" : GROUP.get(f.name()).apply(c);
    RunCheck.Rewrite edit = c.rewrite().remove(f);
    if (replacement.isEmpty()) {
      return "drop " + f.name() + " (every node of this run already shares one rendezvous), e.g. `run: " + edit.apply() + "`";
    }
    return "use the value every pod has, e.g. `run: " + edit.insert(f.word().start(), f.name() + " " + replacement + " ").apply() + "`";
  }
}
