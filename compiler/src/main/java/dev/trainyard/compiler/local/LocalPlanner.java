package dev.trainyard.compiler.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the compiled JobSet of an {@link OutputTree} into the node processes of {@code trainyard
 * run --local} (pure: no disk, no processes). Each node gets exactly the env of its pod's {@code
 * node} container, resolved as the kubelet resolves it: {@code value} with {@code $(VAR)} expanded
 * and {@code $$} unescaped, the completion index for {@code
 * batch.kubernetes.io/job-completion-index} (Kubernetes "Indexed Job" docs), and Secret values from
 * {@link Settings#secrets}. The compiled hostnames ({@code <jobset>-<rjob>-<j>-<i>.<subdomain>})
 * become 127.0.0.1, and every port the container declares, and the rendezvous port {@code
 * MASTER_PORT}, becomes a free port of this host, the same one for every node. A checkpointed run's
 * volume becomes a folder of this machine ({@link Checkpoints}) and its attempt 0.
 *
 * <pre>{@code
 * Result r = LocalPlanner.plan(tree, new Settings(0, 0, name -> Optional.ofNullable(System.getenv(name)), ports));
 * }</pre>
 */
public final class LocalPlanner {
  private static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
  private static final Pattern KUBELET_REF =
      Pattern.compile("\\$\\$|\\$\\(([A-Za-z_][A-Za-z0-9_.-]*)\\)");

  private static final Set<String> MPI = Set.of("mpi", "deepspeed", "mlx");

  private LocalPlanner() {}

  /**
   * Choices of the command line.
   *
   * @param nodes nodes to start, at most the compiled count; 0 for all of them
   * @param procsPerNode processes per node for torchrun ({@code PET_NPROC_PER_NODE}); 0 keeps it
   * @param secrets the value for an env variable a Secret fills in the pod, by variable name
   * @param freePort a free TCP port of this host, asked once per declared container port and once
   *     for an undeclared {@code MASTER_PORT}
   */
  public record Settings(
      int nodes,
      int procsPerNode,
      Function<String, Optional<String>> secrets,
      IntSupplier freePort,
      Optional<Checkpoints> checkpoints) {

    /** Without a local checkpoint folder: the compiled paths stay. */
    public Settings(
        int nodes,
        int procsPerNode,
        Function<String, Optional<String>> secrets,
        IntSupplier freePort) {
      this(nodes, procsPerNode, secrets, freePort, Optional.empty());
    }
  }

  /**
   * What a checkpointed run's volume is on this machine ({@code docs/checkpoints.md}): {@code
   * TRAINYARD_CHECKPOINT_ROOT} becomes {@code root} and {@code CHECKPOINT_DIR} {@code root/folder}.
   *
   * @param root an absolute folder of this machine, e.g. {@code
   *     /home/me/ml/job/.trainyard/checkpoints}
   * @param folder the run's folder below it, e.g. the run id {@code 3f2a1b}
   */
  public record Checkpoints(String root, String folder) {}

  /** The restart count label the compiled pods read through the downward API. */
  private static final String RESTART_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt";

  /**
   * The plan, or the problems that stop it (one sentence each, with what to do).
   *
   * @param plan present when {@code problems} is empty
   * @param problems e.g. {@code the Secret hf-token (key token) fills HF_TOKEN: set HF_TOKEN or
   *     pass --secret-file}
   */
  public record Result(Optional<LocalPlan> plan, List<String> problems) {
    public Result {
      problems = List.copyOf(problems);
    }
  }

  /** The node processes for the one JobSet in {@code tree}. */
  public static Result plan(OutputTree tree, Settings settings) {
    Optional<Map.Entry<String, String>> file =
        tree.files().entrySet().stream()
            .filter(e -> e.getKey().contains("/jobset-") && e.getKey().endsWith(".yaml"))
            .findFirst();
    if (file.isEmpty()) {
      return new Result(Optional.empty(), List.of("the compiled output holds no JobSet"));
    }
    var loaded =
        new YamlDocumentLoader().load(new SourceFile(file.get().getKey(), file.get().getValue()));
    JsonNode jobSet = loaded.value().orElseThrow().root();
    String framework =
        text(
            jobSet,
            "/spec/replicatedJobs/0/template/spec/template/metadata/annotations/trainyard.dev~1framework");
    if (framework.isEmpty()) {
      framework =
          text(jobSet, "/metadata/annotations/trainyard.dev~1runtime").replaceFirst("@.*", "");
    }
    if (MPI.contains(framework)) {
      return mpi(tree, jobSet, framework, settings);
    }
    if (!jobSet.at("/spec/replicatedJobs/1").isMissingNode()) {
      return new Result(
          Optional.empty(),
          List.of(
              "the compiled JobSet has more than one replicated job and runtime framework "
                  + framework
                  + " is not an MPI one; run --local knows torch, jax, plain and MPI runtimes"));
    }
    return nodes(jobSet, framework, settings);
  }

  /**
   * An MPI runtime: one process, the launcher pod's container env (its {@code MASTER_PORT}, for
   * scripts that form a torch group from MPI's ranks, a free port) and its compiled mpirun made
   * local ({@link MpiLaunch}); the node pods (sshd) have no counterpart here, mpirun starts every
   * rank on this machine.
   */
  private static Result mpi(OutputTree tree, JsonNode jobSet, String framework, Settings settings) {
    JsonNode launcher = jobSet.at("/spec/replicatedJobs/0");
    for (JsonNode rjob : jobSet.at("/spec/replicatedJobs")) {
      launcher = "launcher".equals(rjob.path("name").asText()) ? rjob : launcher;
    }
    JsonNode pod = launcher.at("/template/spec/template/spec");
    JsonNode container = pod.at("/containers/0");
    Optional<JsonNode> files =
        tree.files().entrySet().stream()
            .filter(e -> e.getKey().contains("/configmap-") && e.getKey().endsWith("-mpi.yaml"))
            .findFirst()
            .map(e -> parse(e.getKey(), e.getValue()).path("data"));
    Rewrite rewrite =
        new Rewrite(text(jobSet, "/spec/network/subdomain"), freePorts(container, settings));
    List<String> problems = new ArrayList<>();
    Map<String, String> env = env(container.path("env"), 0, rewrite, settings, problems);
    int compiled = Integer.parseInt(env.getOrDefault("NNODES", "1"));
    if (settings.nodes() > compiled) {
      problems.add(tooMany(settings.nodes(), compiled));
    }
    int count = settings.nodes() == 0 ? compiled : Math.min(settings.nodes(), compiled);
    MpiLaunch.Result launch =
        files.isEmpty()
            ? new MpiLaunch.Result(
                Optional.empty(), Optional.of("the compiled output holds no MPI ConfigMap"))
            : MpiLaunch.of(
                files.get().path("launch.sh").asText(),
                files.get().path("hostfile").asText(),
                count,
                settings.procsPerNode());
    launch.problem().ifPresent(problems::add);
    if (!problems.isEmpty()) {
      return new Result(Optional.empty(), new ArrayList<>(new TreeSet<>(problems)));
    }
    MpiLaunch mpi = launch.launch().orElseThrow();
    scale(env, compiled, count, 0);
    int slots = mpi.world() / count;
    for (String key :
        Set.of("OMPI_MCA_orte_set_default_slots", "PRTE_MCA_prte_set_default_slots")) {
      env.computeIfPresent(key, (k, v) -> Integer.toString(slots));
    }
    LocalNode node = LocalNode.of("launcher", env, workdir(pod, container));
    String commit = text(jobSet, "/metadata/annotations/trainyard.dev~1source-commit");
    return new Result(
        Optional.of(
            new LocalPlan(
                text(jobSet, "/metadata/name"),
                framework,
                commit,
                List.of(node),
                mpi.world(),
                Optional.of(mpi))),
        List.of());
  }

  private static JsonNode parse(String name, String yaml) {
    return new YamlDocumentLoader().load(new SourceFile(name, yaml)).value().orElseThrow().root();
  }

  private static String tooMany(int asked, int compiled) {
    return "--nodes "
        + asked
        + " is more than the "
        + compiled
        + " node(s) train.yaml compiles to; --nodes may only scale down";
  }

  /**
   * The refusal of a {@code --procs} above the compiled processes per node (torchrun's {@code
   * PET_NPROC_PER_NODE}, MPI's slots; 1 for runtimes that start one process per node): like {@code
   * --nodes}, it may only scale down.
   */
  static String tooManyProcs(int asked, int compiled) {
    return "--procs "
        + asked
        + " is more than the "
        + compiled
        + " process(es) per node train.yaml compiles to; --procs may only scale down";
  }

  /**
   * The compiled {@code PET_NPROC_PER_NODE} of a container; 1 without one; none when not a number.
   */
  private static OptionalInt compiledProcs(JsonNode container) {
    return literal(container.path("env"), "PET_NPROC_PER_NODE")
        .map(
            v ->
                v.matches("[0-9]{1,9}") ? OptionalInt.of(Integer.parseInt(v)) : OptionalInt.empty())
        .orElse(OptionalInt.of(1));
  }

  /**
   * Each port the container declares, and an undeclared literal {@code MASTER_PORT} ({@link
   * #rendezvousPort}), mapped to a free port of this host: one per port, the same for every node.
   */
  private static Map<String, String> freePorts(JsonNode container, Settings settings) {
    Map<String, String> ports = new TreeMap<>();
    container
        .path("ports")
        .forEach(
            p ->
                ports.put(
                    p.path("containerPort").asText(),
                    Integer.toString(settings.freePort().getAsInt())));
    rendezvousPort(container.path("env"))
        .filter(port -> !ports.containsKey(port))
        .ifPresent(port -> ports.put(port, Integer.toString(settings.freePort().getAsInt())));
    return ports;
  }

  /** The {@code value} of the first env entry named {@code name} (empty without one). */
  private static Optional<String> literal(JsonNode env, String name) {
    for (JsonNode e : env) {
      if (name.equals(e.path("name").asText())) {
        return Optional.of(e.path("value").asText(""));
      }
    }
    return Optional.empty();
  }

  private static Result nodes(JsonNode jobSet, String framework, Settings settings) {
    JsonNode rjob = jobSet.at("/spec/replicatedJobs/0");
    JsonNode pod = rjob.at("/template/spec/template/spec");
    JsonNode container = pod.at("/containers/0");
    int compiled = rjob.at("/template/spec/completions").asInt(1);
    List<String> refused = new ArrayList<>();
    if (settings.nodes() > compiled) {
      refused.add(tooMany(settings.nodes(), compiled));
    }
    OptionalInt perNode = compiledProcs(container);
    if (perNode.isPresent() && settings.procsPerNode() > perNode.getAsInt()) {
      refused.add(tooManyProcs(settings.procsPerNode(), perNode.getAsInt()));
    }
    if (!refused.isEmpty()) {
      return new Result(Optional.empty(), refused);
    }
    int count = settings.nodes() == 0 ? compiled : settings.nodes();
    Rewrite rewrite =
        new Rewrite(text(jobSet, "/spec/network/subdomain"), freePorts(container, settings));
    String workdir = workdir(pod, container);
    List<String> problems = new ArrayList<>();
    List<LocalNode> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Map<String, String> env = env(container.path("env"), i, rewrite, settings, problems);
      scale(env, compiled, count, settings.procsPerNode());
      checkpoints(env, settings.checkpoints());
      nodes.add(LocalNode.of("node-" + i, env, workdir));
    }
    if (!problems.isEmpty()) {
      return new Result(Optional.empty(), new ArrayList<>(new TreeSet<>(problems)));
    }
    LocalNode first = nodes.get(0);
    int procs =
        first.get("PET_NPROC_PER_NODE").isEmpty()
            ? 1
            : Integer.parseInt(first.get("PET_NPROC_PER_NODE"));
    String commit = text(jobSet, "/metadata/annotations/trainyard.dev~1source-commit");
    return new Result(
        Optional.of(
            new LocalPlan(text(jobSet, "/metadata/name"), framework, commit, nodes, count * procs)),
        List.of());
  }

  /** The pod's working directory below the code-sync root ({@code --root} + {@code --link}). */
  static String workdir(JsonNode pod, JsonNode container) {
    String root = "";
    String link = "";
    for (JsonNode arg : pod.at("/initContainers/0/args")) {
      String a = arg.asText();
      root = a.startsWith("--root=") ? a.substring(7) : root;
      link = a.startsWith("--link=") ? a.substring(7) : link;
    }
    String checkout = root + "/" + link;
    String dir = container.path("workingDir").asText("");
    return dir.startsWith(checkout + "/") ? dir.substring(checkout.length() + 1) : "";
  }

  private static Map<String, String> env(
      JsonNode list, int index, Rewrite rewrite, Settings settings, List<String> problems) {
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode e : list) {
      String name = e.path("name").asText();
      JsonNode from = e.path("valueFrom");
      if (from.has("secretKeyRef")) {
        JsonNode ref = from.path("secretKeyRef");
        Optional<String> value = settings.secrets().apply(name);
        value.ifPresent(v -> env.put(name, v));
        if (value.isEmpty() && !ref.path("optional").asBoolean(false)) {
          problems.add(
              "the Secret "
                  + ref.path("name").asText()
                  + " (key "
                  + ref.path("key").asText()
                  + ") fills "
                  + name
                  + ": set "
                  + name
                  + " in your environment or in --secret-file (values never come from the GitOps repo)");
        }
      } else if (from.has("fieldRef")) {
        String path = from.at("/fieldRef/fieldPath").asText();
        env.put(name, fieldValue(path, index));
      } else {
        env.put(name, rewrite.apply(expand(e.path("value").asText(""), env)));
      }
    }
    return env;
  }

  /**
   * A downward API field as this machine gives it: the completion index, {@code localhost} for the
   * node name, 0 restarts (a local run is the first attempt), else "".
   */
  private static String fieldValue(String path, int index) {
    if (path.contains(COMPLETION_INDEX)) {
      return Integer.toString(index);
    }
    if (path.contains(RESTART_ATTEMPT)) {
      return "0";
    }
    return path.equals("spec.nodeName") ? "localhost" : "";
  }

  /** A checkpointed run's volume paths → the local folder, when one is given. */
  private static void checkpoints(Map<String, String> env, Optional<Checkpoints> local) {
    if (local.isEmpty() || !env.containsKey("TRAINYARD_CHECKPOINT_ROOT")) {
      return;
    }
    env.put("TRAINYARD_CHECKPOINT_ROOT", local.get().root());
    env.put("CHECKPOINT_DIR", local.get().root() + "/" + local.get().folder());
  }

  /**
   * The kubelet's expansion: {@code $(VAR)} of a variable defined before it, {@code $$} → {@code
   * $}.
   */
  static String expand(String value, Map<String, String> defined) {
    Matcher m = KUBELET_REF.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement = m.group(1) == null ? "$" : defined.getOrDefault(m.group(1), m.group());
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  /**
   * {@code --nodes}/{@code --procs}: the counts the launchers read, where they hold the compiled
   * ones.
   */
  private static void scale(Map<String, String> env, int compiled, int count, int procs) {
    for (String key : Set.of("NNODES", "PET_NNODES", "JAX_NUM_PROCESSES")) {
      env.computeIfPresent(
          key, (k, v) -> v.equals(Integer.toString(compiled)) ? Integer.toString(count) : v);
    }
    if (procs > 0) {
      env.computeIfPresent("PET_NPROC_PER_NODE", (k, v) -> Integer.toString(procs));
    }
  }

  /**
   * The literal {@code MASTER_PORT} of the node container, if any: JAX's coordinator, the plain and
   * MPI runtimes' rendezvous listen there without declaring it as a container port, and two local
   * runs on one fixed port would join each other's world.
   */
  static Optional<String> rendezvousPort(JsonNode env) {
    return literal(env, "MASTER_PORT").filter(v -> v.matches("\\d+"));
  }

  private static String text(JsonNode node, String pointer) {
    return node.at(pointer).asText("");
  }

  /** Compiled pod hostnames → 127.0.0.1; declared container ports → this host's free ports. */
  record Rewrite(String subdomain, Map<String, String> ports) {
    String apply(String value) {
      String v = value;
      if (!subdomain.isEmpty()) {
        v =
            v.replaceAll(
                "[a-z0-9]([-a-z0-9]*[a-z0-9])?\\."
                    + Pattern.quote(subdomain)
                    + "(\\.[a-z0-9.-]*[a-z0-9])?",
                "127.0.0.1");
      }
      if (ports.containsKey(v)) {
        return ports.get(v);
      }
      Matcher m = Pattern.compile("(127\\.0\\.0\\.1:)(\\d+)").matcher(v);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        m.appendReplacement(
            out, Matcher.quoteReplacement(m.group(1) + ports.getOrDefault(m.group(2), m.group(2))));
      }
      m.appendTail(out);
      return out.toString();
    }
  }
}
