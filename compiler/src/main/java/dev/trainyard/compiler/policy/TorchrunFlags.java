package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * torchrun's flags win over the {@code PET_*} defaults each node gets (torch {@code
 * distributed/run.py}), so a literal {@code --node_rank}, {@code --master_addr}, {@code
 * --master_port} or {@code --rdzv_endpoint} copied from a README makes every node rank 0 or point
 * at a wrong host, and a literal {@code --nnodes} or {@code --nproc_per_node} that differs from the
 * compiled topology waits for peers that never come. A value that refers to a variable is checked
 * by {@link LaunchVariables}. Every hint gives the same command: the run with all of these flags
 * dropped, so it is right however many of them there were.
 */
final class TorchrunFlags {
  private static final String[][] PER_NODE = {
    {"--node_rank", "--node-rank"},
    {"--master_addr", "--master-addr"},
    {"--master_port", "--master-port"},
    {"--rdzv_endpoint", "--rdzv-endpoint"}
  };

  /**
   * A value that is one variable and nothing else: {@code $N}, {@code ${N}}, or {@code ${N:-3}}
   * with a literal default.
   */
  private static final Pattern VARIABLE =
      Pattern.compile(
          "\\$([A-Za-z_][A-Za-z0-9_]*)|\\$\\{([A-Za-z_][A-Za-z0-9_]*)}|\\$\\{([A-Za-z_][A-Za-z0-9_]*):?-([^}$`(){]*)}");

  private TorchrunFlags() {}

  static void check(RunCheck c) {
    List<Finding> found = new ArrayList<>();
    int nodes = c.nodes();
    literals(c, "--nnodes").stream()
        .filter(
            f ->
                !f.value().text().equals(Integer.toString(nodes))
                    && !f.value().text().equals(nodes + ":" + nodes))
        .forEach(
            f ->
                found.add(
                    new Finding(
                        f,
                        "`run` passes --nnodes " + f.value().text() + ", but `nodes` is " + nodes,
                        "drop --nnodes; torchrun reads PET_NNODES=" + nodes)));
    literals(c, "--nproc_per_node", "--nproc-per-node").stream()
        .filter(
            f ->
                !f.value().text().equals(Integer.toString(c.procsPerNode()))
                    && !f.value().text().equals("gpu")
                    && !f.value().text().equals("auto"))
        .forEach(
            f ->
                found.add(
                    new Finding(
                        f,
                        "`run` passes --nproc_per_node "
                            + f.value().text()
                            + ", but each node gets "
                            + c.procsPerNode()
                            + " processes",
                        "drop the flag, or set `procsPerNode: " + f.value().text() + "`")));
    for (String[] flag : PER_NODE) {
      literals(c, flag)
          .forEach(
              f ->
                  found.add(
                      new Finding(
                          f,
                          "`run` passes a literal "
                              + flag[0]
                              + " "
                              + f.value().text()
                              + ", which overrides what each node is told",
                          "drop "
                              + flag[0]
                              + "; torchrun reads PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT, set per node")));
    }
    // Under `tune run` dropping a literal rendezvous would make torchtune force --standalone
    // (E423): its hint
    // gives the whole rendezvous instead, as TuneRunRule does.
    Optional<RunTokens.Word> tune = c.run().pair("tune", "run");
    RunCheck.Rewrite edit = c.rewrite();
    found.forEach(f -> edit.remove(f.flag()));
    String fixed = tune.map(t -> TuneRunRule.fixed(c, t)).orElseGet(edit::apply);
    found.forEach(
        f ->
            c.error(
                DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
                f.flag().word(),
                f.message(),
                (tune.isPresent() ? "pass the values every node gets" : f.hint())
                    + ", e.g. "
                    + RunCheck.runHint(fixed)));
  }

  /**
   * The first use of the flag when its value is literal; empty when absent or when the value refers
   * to a variable.
   */
  static Optional<RunTokens.Flag> literal(RunCheck c, String... names) {
    return literals(c, names).stream().findFirst();
  }

  /**
   * Every use of the flag with a literal value (a run may start several commands), a variable that
   * {@code run} itself sets once to a literal counting as that literal ({@code export N=3; torchrun
   * --nnodes $N} passes 3), and a default where nothing sets the variable ({@code --nnodes ${N:-3}}
   * passes 3).
   */
  static List<RunTokens.Flag> literals(RunCheck c, String... names) {
    List<RunTokens.Flag> found = new ArrayList<>();
    for (RunTokens.Flag f : c.run().flags(names)) {
      String v = f.value().text();
      Matcher ref = VARIABLE.matcher(v);
      if (!v.contains("$") && !v.contains("`")) {
        found.add(f);
      } else if (ref.matches()) {
        String name =
            ref.group(1) != null
                ? ref.group(1)
                : ref.group(2) != null ? ref.group(2) : ref.group(3);
        // ${N:-3} is 3 where nothing sets N: no pod, and no assignment of run before this command.
        Optional<String> value =
            ref.group(3) != null
                ? Optional.of(ref.group(4))
                    .filter(d -> PodVariables.unset(c, name, f.word()).isPresent())
                : PodVariables.constant(c.run(), name, f.value());
        value.ifPresent(
            literal ->
                found.add(
                    new RunTokens.Flag(
                        f.name(),
                        f.word(),
                        new RunTokens.Word(
                            literal, f.value().start(), f.value().end(), f.value().command()),
                        f.end())));
      }
    }
    return found;
  }

  private record Finding(RunTokens.Flag flag, String message, String hint) {}
}
