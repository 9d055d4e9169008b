package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.runtime.Framework;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * torchrun's flags win over the {@code PET_*} defaults each node gets (torch {@code
 * distributed/run.py}), so a literal {@code --node_rank}, {@code --master_addr}, {@code
 * --master_port} or {@code --rdzv_endpoint} copied from a README makes every node rank 0 or point
 * at a wrong host, and a literal {@code --nnodes} or {@code --nproc_per_node} that differs from the
 * compiled topology waits for peers that never come. A value that refers to a variable is checked
 * by {@link LaunchVariables}. Every hint gives the same command: the run with all of these flags
 * dropped, so it is right however many of them there were. A kept {@code --rdzv_backend c10d} then
 * meets at {@code PET_RDZV_ENDPOINT}, which the torch runtime sets to node 0's address ({@code
 * TorchPlugin}); without it c10d would meet at each node's own {@code localhost:29400}.
 *
 * <p>Only the torch runtime sets {@code PET_*}. On the others (plain, JAX) torchrun on several
 * nodes must carry the whole group on its command line ({@code --nnodes} and a rendezvous: {@code
 * --rdzv_endpoint}, or {@code --master_addr} with {@code --node_rank}); without it each node is a
 * group of its own (torchrun's defaults: one node, {@code 127.0.0.1}) or waits at its own {@code
 * localhost:29400}. There every hint gives the launcher with {@link #withGroup the group's flags}
 * from the neutral env ({@code $NNODES}, {@code $MASTER_ADDR}, …).
 */
final class TorchrunFlags {
  /**
   * Flags whose literal value overrides what each node is told. A literal {@code --master_port} is
   * not among them: the same port on every node is right (static rendezvous meets at {@code
   * PET_RDZV_ENDPOINT} when it is set, else at {@code --master_addr:--master_port}; torch {@code
   * run.py} {@code get_rdzv_endpoint}), so {@code --master_port 29501} is accepted (issue #19).
   */
  private static final String[][] PER_NODE = {
    {"--node_rank", "--node-rank"},
    {"--master_addr", "--master-addr"},
    {"--rdzv_endpoint", "--rdzv-endpoint"}
  };

  /**
   * Rendezvous backends whose store runs outside the pods: a literal endpoint names the same store
   * on every node.
   */
  private static final List<String> EXTERNAL_STORE = List.of("etcd", "etcd-v2");

  /** Rendezvous backends that admit a node range {@code MIN:MAX} (static waits for MAX). */
  private static final List<String> ELASTIC = List.of("c10d", "etcd", "etcd-v2");

  /** {@code --nnodes MIN:MAX}. */
  private static final Pattern RANGE = Pattern.compile("([0-9]{1,6}):([0-9]{1,6})");

  /** A loopback or unspecified host: each node's own. */
  private static final Pattern LOCAL_HOST =
      Pattern.compile("(localhost|127\\.[0-9.]+|0\\.0\\.0\\.0|\\[?::1?]?)(:[0-9]*)?");

  /**
   * A value that is one variable and nothing else: {@code $N}, {@code ${N}}, or {@code ${N:-3}}
   * with a literal default, where the defaulted name may also be a positional parameter ({@code
   * ${2:-2}}, which {@code run} never has: bash runs it with no arguments).
   */
  private static final Pattern VARIABLE =
      Pattern.compile(
          "\\$([A-Za-z_][A-Za-z0-9_]*|[1-9])|\\$\\{([A-Za-z_][A-Za-z0-9_]*|[1-9][0-9]*)}|\\$\\{([A-Za-z_][A-Za-z0-9_]*|[1-9][0-9]*):?-([^}$`(){]*)}");

  /**
   * torchrun flags with a value that a command carrying the whole group sets itself (every use is
   * replaced).
   */
  static final List<String> GROUP_FLAGS =
      List.of(
          "--nnodes",
          "--nproc_per_node",
          "--nproc-per-node",
          "--rdzv_backend",
          "--rdzv-backend",
          "--rdzv_endpoint",
          "--rdzv-endpoint",
          "--node_rank",
          "--node-rank",
          "--master_addr",
          "--master-addr",
          "--master_port",
          "--master-port",
          "--rdzv_id",
          "--rdzv-id");

  private TorchrunFlags() {}

  static void check(RunCheck c) {
    boolean pet = c.framework() == Framework.TORCH;
    Optional<RunTokens.Word> launcher = launcher(c);
    if (!pet
        && c.nodes() > 1
        && launcher.isPresent()
        && c.run().pair("tune", "run").isEmpty()
        && !carriesGroup(c)) {
      c.error(
          DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
          launcher.get(),
          "`run` starts torchrun on runtime "
              + c.job().runtime().name()
              + ", whose pods set no PET_* variables: without --nnodes"
              + " and a rendezvous on its command line each of the "
              + c.nodes()
              + " nodes forms a group of its own",
          "pass the group on the command line, from the variables every node has, e.g. "
              + c.hint(withGroup(c, launcher.get())));
    }
    List<Finding> found = findings(c);
    boolean whole = c.run().pair("tune", "run").isPresent() || wholeGroup(c).isPresent();
    String fixed = fixed(c);
    found.forEach(
        f ->
            c.error(
                DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
                f.flag().word(),
                f.message(),
                (whole ? "pass the values every node gets" : f.hint())
                    + ", e.g. "
                    + c.hint(fixed)));
  }

  /** The literal flags that contradict the topology or override a node's place in it. */
  private static List<Finding> findings(RunCheck c) {
    List<Finding> found = new ArrayList<>();
    int nodes = c.nodes();
    literals(c, "--nnodes").stream()
        .filter(
            f ->
                !f.value().text().equals(Integer.toString(nodes))
                    && !f.value().text().equals(nodes + ":" + nodes)
                    && !elastic(c, f.value().text()))
        .forEach(
            f ->
                found.add(
                    new Finding(
                        f,
                        "`run` passes --nnodes "
                            + f.value().text()
                            + rangeNote(c, f.value().text())
                            + ", but `nodes` is "
                            + nodes,
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
    // torchrun's --master_port is an int option (argparse: "invalid int value"), and no port is
    // outside 1-65535: every node stops before training.
    literals(c, "--master_port", "--master-port").stream()
        .filter(
            f ->
                !f.value().text().matches("[1-9][0-9]{0,4}")
                    || Integer.parseInt(f.value().text()) > 65535)
        .forEach(
            f ->
                found.add(
                    new Finding(
                        f,
                        "`run` passes --master_port "
                            + f.value().text()
                            + ", which is no port number (1-65535): torchrun stops with an argument"
                            + " error on every node",
                        "drop the flag (torchrun reads PET_MASTER_PORT) or pass a port from 1 to"
                            + " 65535")));
    for (String[] flag : PER_NODE) {
      // The rendezvous endpoint has a variable of its own: with --rdzv_backend c10d kept, torchrun
      // meets there.
      String reads =
          flag[0].equals("--rdzv_endpoint")
              ? "PET_RDZV_ENDPOINT (node 0's address, for c10d and static alike)"
              : "PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT, set per node";
      literals(c, flag).stream()
          .filter(f -> !flag[0].equals("--rdzv_endpoint") || !externalStore(c, f))
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
                          "drop " + flag[0] + "; torchrun reads " + reads)));
    }
    return found;
  }

  /**
   * The one command every hint of a torchrun line gives, so it is right however many findings the
   * line has (issue #19): under {@code tune run} the whole rendezvous ({@link TuneRunRule#fixed}),
   * as dropping a literal one would make torchtune force {@code --standalone} (E423); off the torch
   * runtime the whole group ({@link #withGroup}), since nothing fills in a dropped flag; else the
   * line with every finding's flag and, on several nodes, {@code --standalone} removed, and each
   * flag {@link LaunchVariables} reports (a per-pod, unset or Slurm value) given the pod's value;
   * without an {@code srun} prefix or Slurm-only assignments ({@link RunCheck#rewrite}).
   */
  static String fixed(RunCheck c) {
    Optional<RunTokens.Word> tune = c.run().pair("tune", "run");
    Optional<String> whole = tune.map(t -> TuneRunRule.fixed(c, t)).or(() -> wholeGroup(c));
    if (whole.isPresent()) {
      return whole.get();
    }
    RunCheck.Rewrite edit = c.rewrite();
    Set<Integer> removed = new HashSet<>();
    findings(c)
        .forEach(
            f -> {
              edit.remove(f.flag());
              removed.add(f.flag().word().start());
            });
    if (c.nodes() > 1) {
      c.run().words().stream().filter(w -> w.text().equals("--standalone")).forEach(edit::remove);
    }
    // The flags with a per-pod or unset value get the pod's value in the same command, so every
    // hint of the line gives one command with all of its findings fixed.
    LaunchVariables.replace(c, edit, removed);
    return edit.apply();
  }

  /**
   * The command every torchrun hint gives on a runtime without {@code PET_*} and several nodes
   * ({@link #withGroup}); empty on the torch runtime, on one node, without torchrun, and under
   * {@code tune run} (its own rule's).
   */
  static Optional<String> wholeGroup(RunCheck c) {
    if (c.framework() == Framework.TORCH
        || c.nodes() < 2
        || c.run().pair("tune", "run").isPresent()) {
      return Optional.empty();
    }
    return launcher(c).map(l -> withGroup(c, l));
  }

  /**
   * {@code torchrun}, or the module word of {@code python -m torch.distributed.run} (or {@code
   * .launch}).
   */
  static Optional<RunTokens.Word> launcher(RunCheck c) {
    return c.run()
        .word("torchrun")
        .or(() -> Launchers.torchModule(c.run()).map(Launchers.Launcher::last));
  }

  /**
   * Whether {@code run} gives torchrun the group itself: {@code --nnodes} and either c10d (or etcd)
   * with {@code --rdzv_endpoint} (the rendezvous assigns ranks) or the static backend's rank with
   * its master ({@code --node_rank} and {@code --master_addr} or {@code --rdzv_endpoint}: static
   * reads the rank from {@code --node_rank}, torch {@code config_from_args}).
   */
  private static boolean carriesGroup(RunCheck c) {
    RunTokens run = c.run();
    boolean endpoint = run.hasAny("--rdzv_endpoint", "--rdzv-endpoint");
    boolean dynamic = ELASTIC.contains(backend(c));
    boolean ranked =
        run.hasAny("--node_rank", "--node-rank")
            && (endpoint || run.hasAny("--master_addr", "--master-addr"));
    return run.has("--nnodes") && (dynamic ? endpoint : ranked);
  }

  /**
   * The command with {@link #GROUP_FLAGS} (and {@code --standalone}) removed wherever they stand
   * and the group's flags inserted after {@code after}: {@code --nnodes $NNODES --nproc_per_node N
   * --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT} ({@code $PET_NNODES} and {@code
   * $PET_NPROC_PER_NODE} on torch; no rendezvous on one node).
   */
  static String withGroup(RunCheck c, RunTokens.Word after) {
    RunCheck.Rewrite edit = c.rewrite();
    c.run().words().stream().filter(w -> w.text().equals("--standalone")).forEach(edit::remove);
    GROUP_FLAGS.forEach(name -> c.run().flags(name).forEach(edit::remove));
    String flags =
        " --nnodes "
            + (c.framework() == Framework.TORCH ? "$PET_NNODES" : "$NNODES")
            + " --nproc_per_node "
            + c.perNodeValue()
            + (c.nodes() > 1
                ? " --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT"
                : "");
    return edit.insert(after.end(), flags).apply();
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
        // A wrapper script's positional parameter is the call's argument when it passes one.
        Optional<String> value =
            ref.group(3) != null
                ? c.positional(name)
                    .or(
                        () ->
                            Optional.of(ref.group(4))
                                .filter(d -> PodVariables.unset(c, name, f.word()).isPresent()))
                : c.positional(name)
                    .or(() -> PodVariables.constant(c.run(), name, f.value()))
                    .or(() -> positionalAssignment(c, name, f));
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

  /**
   * The literal a variable holds that {@code run} (or a wrapper script) sets once from a positional
   * parameter, as scripts take their sizes ({@code NODES=${1:-1}; torchrun --nnodes $NODES}): the
   * call's argument when it passes a literal one, else the default when it passes none; empty
   * otherwise.
   */
  private static Optional<String> positionalAssignment(RunCheck c, String name, RunTokens.Flag f) {
    Optional<String> assigned = PodVariables.assignedValue(c.run(), name, f.value());
    if (assigned.isEmpty()) {
      return Optional.empty();
    }
    Matcher m = VARIABLE.matcher(assigned.get().replaceAll("^\"(.*)\"$", "$1"));
    if (!m.matches() || m.group(3) == null && m.group(1) == null && m.group(2) == null) {
      return Optional.empty();
    }
    String parameter =
        m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3);
    if (!parameter.matches("[1-9][0-9]*")) {
      return Optional.empty();
    }
    Optional<String> passed = c.positional(parameter);
    if (passed.isPresent() || m.group(3) == null) {
      return passed;
    }
    return PodVariables.unset(c, parameter, f.word()).isPresent()
        ? Optional.of(m.group(4))
        : Optional.empty();
  }

  /** The {@code --rdzv_backend} value {@code run} passes, or "static" (torchrun's default). */
  private static String backend(RunCheck c) {
    return c.run()
        .flag("--rdzv_backend", "--rdzv-backend")
        .map(f -> f.value().text())
        .orElse("static");
  }

  /**
   * An elastic range that holds {@code nodes} on a backend that admits ranges: torchrun starts once
   * MIN nodes joined and re-forms the group as the others join (torch elastic {@code
   * DynamicRendezvousHandler}); static rendezvous sets the world size to MAX ({@code
   * static_tcp_rendezvous.create_rdzv_handler}) and would wait for nodes that never come.
   */
  static boolean elastic(RunCheck c, String value) {
    Matcher m = RANGE.matcher(value);
    return m.matches()
        && ELASTIC.contains(backend(c))
        && Integer.parseInt(m.group(1)) <= c.nodes()
        && c.nodes() <= Integer.parseInt(m.group(2));
  }

  /** Why a range is refused, for the message; "" for a single number. */
  private static String rangeNote(RunCheck c, String value) {
    Matcher m = RANGE.matcher(value);
    if (!m.matches()) {
      return "";
    }
    if (Integer.parseInt(m.group(1)) > Integer.parseInt(m.group(2))) {
      // torch elastic RendezvousParameters: "min_nodes ... must be ... <= max_nodes".
      return " (no range: its minimum is above its maximum, which torchrun refuses)";
    }
    return ELASTIC.contains(backend(c))
        ? " (an elastic range that does not hold it)"
        : " (a range: the static rendezvous waits for " + m.group(2) + " nodes)";
  }

  /**
   * A literal endpoint of an etcd rendezvous that is not the node's own host: an external store
   * every node reaches at the same address (torch elastic {@code etcd_rendezvous}).
   */
  private static boolean externalStore(RunCheck c, RunTokens.Flag endpoint) {
    return EXTERNAL_STORE.contains(backend(c))
        && !LOCAL_HOST.matcher(endpoint.value().text()).matches();
  }

  private record Finding(RunTokens.Flag flag, String message, String hint) {}
}
