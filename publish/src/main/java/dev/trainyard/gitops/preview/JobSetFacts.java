package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.render.Provenance;
import dev.trainyard.compiler.units.Quantities;
import dev.trainyard.gitops.RunFolder;
import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads {@link RunFacts} from a run's JobSet text: provenance annotations for where it came from,
 * the pod templates for what it asks. Pods per replicated job = {@code replicas × parallelism};
 * requests summed over all containers of all pods, as Kueue admits a JobSet whole. Nodes are
 * counted from the pods ({@link #nodes}); the rest of the topology comes from the env Trainyard
 * sets ({@code GPUS_PER_NODE}, {@code PET_NPROC_PER_NODE}, Open MPI / PRRTE default slots).
 */
final class JobSetFacts {
  private final YamlTrees yaml;
  private final Platform platform;

  JobSetFacts(Platform platform, YamlTrees yaml) {
    this.platform = platform;
    this.yaml = yaml;
  }

  /** The facts of {@code run}, or empty when its JobSet file is missing or not YAML. */
  Optional<RunFacts> read(RunFolder run, Optional<String> jobSetText) {
    return jobSetText.flatMap(t -> parse(run, t)).map(js -> facts(run, js));
  }

  /**
   * The JobSet's provenance annotations only, read from its {@code metadata:} block alone when the
   * file is laid out as Trainyard writes it ({@link BlockYaml}), so scanning the earlier runs of a
   * train.yaml reads a few lines of each; the whole file is parsed otherwise (the block may use an
   * anchor defined above it, which a read of the block alone would miss).
   */
  Map<String, String> annotations(RunFolder run, String text) {
    Optional<JsonNode> root =
        metadataBlock(text).flatMap(BlockYaml::read).or(() -> yaml.once(text));
    Map<String, String> out = new TreeMap<>();
    root.ifPresent(
        r ->
            r.path("metadata")
                .path("annotations")
                .properties()
                .forEach(e -> out.put(e.getKey(), e.getValue().asText())));
    return out;
  }

  /**
   * The file's JobSet: its only object, or the first {@code kind: JobSet} of a file of several
   * objects.
   */
  private Optional<JsonNode> parse(RunFolder run, String text) {
    return yaml.documents(text).objects().stream()
        .filter(o -> o.path("kind").asText("").equals("JobSet"))
        .findFirst()
        .or(() -> yaml.object(text));
  }

  /** The lines from {@code metadata:} to the next top-level key, if the file has such a block. */
  static Optional<String> metadataBlock(String text) {
    int at = text.startsWith("metadata:\n") ? 0 : text.indexOf("\nmetadata:\n");
    if (at < 0) {
      return Optional.empty();
    }
    int start = at == 0 && text.startsWith("metadata:\n") ? 0 : at + 1;
    int end = start + "metadata:\n".length();
    while (end < text.length() && (text.charAt(end) == ' ' || text.charAt(end) == '\n')) {
      int next = text.indexOf('\n', end);
      end = next < 0 ? text.length() : next + 1;
    }
    return Optional.of(text.substring(start, end));
  }

  private RunFacts facts(RunFolder run, JsonNode js) {
    JsonNode meta = js.path("metadata");
    JsonNode a = meta.path("annotations");
    JsonNode first =
        js.path("spec")
            .path("replicatedJobs")
            .path(0)
            .path("template")
            .path("spec")
            .path("template")
            .path("spec");
    JsonNode container = first.path("containers").path(0);
    Map<String, String> env = env(js);
    // What the cluster schedules (the limit) wins over the env a hand edit can leave stale.
    int gpus =
        intOf(
            container.path("resources").path("limits").path(platform.gpu().resourceName()).asText(),
            intOf(env.get("GPUS_PER_NODE"), 0));
    String image = a.path(Provenance.IMAGE).asText(container.path("image").asText(""));
    return new RunFacts(
        run,
        meta.path("labels").path(Provenance.JOB).asText(""),
        a.path(Provenance.SOURCE_REPO).asText(""),
        a.path(Provenance.SOURCE_PATH).asText(""),
        a.path(Provenance.SOURCE_COMMIT).asText(""),
        a.path(Provenance.CREATED_AT).asText(""),
        a.path(Provenance.RUNTIME).asText(""),
        image,
        a.path(Provenance.RUNTIME_DIGEST).asText(""),
        meta.path("labels").path(Provenance.QUEUE_NAME).asText(""),
        nodes(js),
        procs(env),
        gpus,
        gpuType(first.path("nodeSelector")),
        requests(js),
        a.path(Provenance.CHECKPOINT).asText(""),
        a.path(Provenance.CHECKPOINT_RESUME).asText(""));
  }

  /**
   * Plain env values of every replicated job's first container, the first job's winning (MPI sets
   * slots on the launcher only).
   */
  private static Map<String, String> env(JsonNode js) {
    Map<String, String> env = new TreeMap<>();
    for (JsonNode rj : js.path("spec").path("replicatedJobs")) {
      for (JsonNode e :
          rj.path("template")
              .path("spec")
              .path("template")
              .path("spec")
              .path("containers")
              .path(0)
              .path("env")) {
        if (e.has("value")) {
          env.putIfAbsent(e.path("name").asText(), e.path("value").asText());
        }
      }
    }
    return env;
  }

  private static int procs(Map<String, String> env) {
    for (String key :
        new String[] {
          "PET_NPROC_PER_NODE", "PRTE_MCA_prte_set_default_slots", "OMPI_MCA_orte_set_default_slots"
        }) {
      if (env.containsKey(key)) {
        return intOf(env.get(key), 1);
      }
    }
    return 1;
  }

  private String gpuType(JsonNode nodeSelector) {
    for (Map.Entry<String, Map<String, String>> t :
        new TreeMap<>(platform.gpu().types()).entrySet()) {
      boolean all = !t.getValue().isEmpty();
      for (Map.Entry<String, String> label : t.getValue().entrySet()) {
        all &= nodeSelector.path(label.getKey()).asText("").equals(label.getValue());
      }
      if (all) {
        return t.getKey();
      }
    }
    return "";
  }

  /**
   * Pods that run ranks: {@code replicas × parallelism} summed over the replicated jobs (the count
   * the requests and so the queue totals use, so a hand edit of {@code parallelism} shows in both),
   * less an MPI launcher that runs no ranks: its pod template says {@code trainyard.dev/runs-ranks:
   * "false"} (trees of earlier Trainyard versions: its container blanks {@code
   * NVIDIA_VISIBLE_DEVICES}, mpi-operator#476). Not the {@code NNODES} env, which a hand edit
   * leaves stale.
   */
  static int nodes(JsonNode js) {
    int pods = 0;
    for (JsonNode rj : js.path("spec").path("replicatedJobs")) {
      if (!ranklessLauncher(rj)) {
        pods +=
            rj.path("replicas").asInt(1)
                * rj.path("template").path("spec").path("parallelism").asInt(1);
      }
    }
    return pods;
  }

  private static boolean ranklessLauncher(JsonNode replicatedJob) {
    JsonNode podTemplate = replicatedJob.path("template").path("spec").path("template");
    if (podTemplate
        .path("metadata")
        .path("annotations")
        .path(Provenance.RUNS_RANKS)
        .asText("")
        .equals("false")) {
      return true;
    }
    for (JsonNode e :
        replicatedJob
            .path("template")
            .path("spec")
            .path("template")
            .path("spec")
            .path("containers")
            .path(0)
            .path("env")) {
      if (e.path("name").asText().equals("NVIDIA_VISIBLE_DEVICES")
          && e.has("value")
          && e.path("value").asText().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Requests of all pods: per replicated job, replicas × parallelism × the sum over its containers.
   */
  private static TreeMap<String, BigDecimal> requests(JsonNode js) {
    TreeMap<String, BigDecimal> totals = new TreeMap<>();
    for (JsonNode rj : js.path("spec").path("replicatedJobs")) {
      BigDecimal pods =
          BigDecimal.valueOf(
              (long) rj.path("replicas").asInt(1)
                  * rj.path("template").path("spec").path("parallelism").asInt(1));
      for (JsonNode c :
          rj.path("template").path("spec").path("template").path("spec").path("containers")) {
        // Kubernetes defaults a missing request to the limit (and extended resources such as GPUs
        // are limits only).
        Map<String, String> asked = new TreeMap<>();
        c.path("resources")
            .path("limits")
            .properties()
            .forEach(r -> asked.put(r.getKey(), r.getValue().asText()));
        c.path("resources")
            .path("requests")
            .properties()
            .forEach(r -> asked.put(r.getKey(), r.getValue().asText()));
        asked.forEach(
            (name, value) ->
                totals.merge(
                    name,
                    Quantities.parse(value).orElse(BigDecimal.ZERO).multiply(pods),
                    BigDecimal::add));
      }
    }
    return totals;
  }

  private static int intOf(String text, int fallback) {
    try {
      return text == null ? fallback : Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
