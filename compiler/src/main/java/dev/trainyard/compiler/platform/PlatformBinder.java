package dev.trainyard.compiler.platform;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.platform.Platform.ClusterQueue;
import dev.trainyard.compiler.platform.Platform.FlavorQuota;
import dev.trainyard.compiler.platform.Platform.LocalQueue;
import dev.trainyard.compiler.platform.Platform.SecretsMode;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.units.Durations;
import dev.trainyard.compiler.units.Quantities;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Builds a {@link Platform} from a {@code platform.yaml} that passed {@code
 * schemas/platform.v1.schema.json}, then checks the references a schema cannot: namespaces name a
 * known cluster, LocalQueues name a known ClusterQueue, ClusterQueue flavors exist, default queues
 * exist, the secrets mode has its key material, and the status link uses only known placeholders
 * ({@link PlatformStatusChecks}).
 */
public final class PlatformBinder {
  private PlatformBinder() {}

  /**
   * @param doc schema-valid platform.yaml
   * @param embedded true for the built-in default platform
   * @return the platform, or INVALID_PLATFORM diagnostics located in the platform file
   */
  public static StageResult<Platform> bind(ParsedDocument doc, boolean embedded) {
    JsonNode root = doc.root();
    Platform platform =
        new Platform(
            root.path("defaultRuntime").asText("torch"),
            clusters(root.path("clusters")),
            namespaces(root.path("namespaces")),
            new Platform.GpuSettings(
                root.path("gpu").path("resourceName").asText("nvidia.com/gpu"),
                gpuTypes(root.path("gpu").path("types"))),
            new Platform.CodeSync(
                root.path("codeSync").path("image").asText(Platform.CodeSync.DEFAULT_IMAGE),
                optionalText(root.path("codeSync").path("credentialSecret"))),
            new Platform.EphemeralStorage(
                optionalText(root.path("ephemeralStorage").path("request")),
                optionalText(root.path("ephemeralStorage").path("limit"))),
            new Platform.ServiceMesh(
                root.path("serviceMesh").path("injectMpiPods").asBoolean(false)),
            new Platform.NetworkPolicies(root.path("networkPolicy").path("runs").asBoolean(false)),
            secrets(root.path("secrets")),
            queues(root.path("queues")),
            new Platform.KueueSettings(
                root.path("kueue")
                    .path("maxPodSets")
                    .asInt(Platform.KueueSettings.DEFAULT_MAX_POD_SETS),
                texts(root.path("kueue").path("priorityClasses"), List.of())),
            status(root.path("status")),
            retention(root.path("retention")),
            new Platform.ProgressPush(
                root.path("progressPush").path("enabled").asBoolean(false),
                root.path("progressPush").path("url").asText(Platform.ProgressPush.DEFAULT_URL),
                root.path("progressPush")
                    .path("caConfigMap")
                    .asText(Platform.ProgressPush.DEFAULT_CA_CONFIG_MAP),
                root.path("progressPush").path("caCertificate").asText("")),
            doc.source().displayPath(),
            doc.source().displayPath(),
            embedded,
            doc.map());
    List<Diagnostic> problems = new ArrayList<>(PlatformReferences.check(platform, doc));
    problems.addAll(FlavorRules.check(platform, doc));
    problems.addAll(storageCovered(platform, doc));
    problems.addAll(storageLimit(platform, doc));
    return problems.isEmpty() ? StageResult.of(platform, List.of()) : StageResult.failed(problems);
  }

  /**
   * With {@code ephemeralStorage.request}, every ClusterQueue must cover {@code ephemeral-storage}:
   * Kueue leaves a workload requesting a resource its ClusterQueue does not cover pending forever
   * ("resource ephemeral-storage unavailable in ClusterQueue", kueue#4848).
   */
  private static List<Diagnostic> storageCovered(Platform p, ParsedDocument doc) {
    List<Diagnostic> out = new ArrayList<>();
    if (p.ephemeralStorage().request().isEmpty()) {
      return out;
    }
    List<ClusterQueue> cqs = p.queues().clusterQueues();
    for (int i = 0; i < cqs.size(); i++) {
      if (!cqs.get(i).coveredResources().contains(Platform.EphemeralStorage.RESOURCE)) {
        out.add(
            invalid(
                    doc,
                    "/queues/clusterQueues/" + i + "/flavors",
                    "ClusterQueue `"
                        + cqs.get(i).name()
                        + "` covers no `ephemeral-storage`, but `ephemeralStorage.request` makes"
                        + " every run request it; Kueue would never admit them (kueue#4848)")
                .withHint(
                    "add `ephemeral-storage: <quantity>` to each flavor's quota (the disk the"
                        + " queue's running runs may hold together), or remove"
                        + " `ephemeralStorage.request`"));
      }
    }
    return out;
  }

  /**
   * A limit below the request is refused by the API server (core/v1 validation: "must be less than
   * or equal to ephemeral-storage limit"), so it is an error at platform.yaml's line, found by
   * {@code platform render --check} and the GitOps preview, not first by an ML engineer's submit.
   */
  private static List<Diagnostic> storageLimit(Platform p, ParsedDocument doc) {
    Platform.EphemeralStorage disk = p.ephemeralStorage();
    Optional<BigDecimal> request = disk.request().flatMap(Quantities::parse);
    Optional<BigDecimal> limit = disk.limit().flatMap(Quantities::parse);
    if (request.isEmpty() || limit.isEmpty() || limit.get().compareTo(request.get()) >= 0) {
      return List.of();
    }
    return List.of(
        invalid(
                doc,
                "/ephemeralStorage/limit",
                "`ephemeralStorage.limit` "
                    + disk.limit().get()
                    + " is below `ephemeralStorage.request` "
                    + disk.request().get()
                    + "; the API server refuses a pod whose request exceeds its limit")
            .withHint("raise the limit to at least the request, or remove it"));
  }

  private static List<Platform.Cluster> clusters(JsonNode list) {
    List<Platform.Cluster> out = new ArrayList<>();
    list.forEach(
        c ->
            out.add(
                new Platform.Cluster(
                    c.path("name").asText(), c.path("domain").asText("cluster.local"))));
    return out;
  }

  private static List<Platform.NamespaceRule> namespaces(JsonNode list) {
    List<Platform.NamespaceRule> out = new ArrayList<>();
    list.forEach(
        n ->
            out.add(
                new Platform.NamespaceRule(
                    n.path("name").asText(),
                    n.path("cluster").asText(),
                    texts(n.path("sources"), List.of("*")),
                    n.path("defaultQueue").asText("default"),
                    texts(n.path("runtimes"), List.of("*")),
                    retention(n.path("retention")),
                    checkpoints(n.path("checkpoints")))));
    return out;
  }

  private static Optional<Platform.CheckpointStorage> checkpoints(JsonNode c) {
    if (!c.isObject()) {
      return Optional.empty();
    }
    List<Integer> codes = new ArrayList<>();
    c.path("recoverOnExitCodes").forEach(code -> codes.add(code.intValue()));
    return Optional.of(
        new Platform.CheckpointStorage(
            optionalText(c.path("storageClass")),
            optionalText(c.path("size")),
            optionalText(c.path("claim")),
            c.path("accessMode").asText(),
            duration(c.path("retention")),
            codes,
            c.path("sameNode").asBoolean(false)));
  }

  private static Platform.StatusSettings status(JsonNode s) {
    List<Platform.ForgeRoute> forges = new ArrayList<>();
    s.path("forges")
        .forEach(
            f -> {
              JsonNode secret = f.has("app") ? f.path("app").path("privateKey") : f.path("token");
              forges.add(
                  new Platform.ForgeRoute(
                      f.path("source").asText(),
                      f.path("kind").asText(),
                      f.path("api").asText(),
                      secret.path("secret").asText(),
                      secret.path("key").asText(),
                      f.path("app").path("id").asLong(0)));
            });
    return new Platform.StatusSettings(
        forges,
        s.path("targetUrl").asText("").strip(),
        duration(s.path("stallAfter")),
        progress(s.path("progress")));
  }

  /** {@code status.progress}, each part defaulted ({@link Platform.ProgressSettings#DEFAULT}). */
  private static Platform.ProgressSettings progress(JsonNode p) {
    Platform.ProgressSettings d = Platform.ProgressSettings.DEFAULT;
    int step = p.path("step").asInt(d.step());
    return new Platform.ProgressSettings(
        duration(p.path("stallAfter")).orElse(d.stallAfter()),
        duration(p.path("every")).orElse(d.every()),
        step < 1 || step > 100 ? d.step() : step,
        duration(p.path("failStalledAfter")),
        "failure".equals(p.path("untrained").asText()));
  }

  private static Platform.Retention retention(JsonNode r) {
    return new Platform.Retention(duration(r.path("succeeded")), duration(r.path("failed")));
  }

  /**
   * The schema's pattern admits only d/h/m/s durations; zero ("0d") is refused by the schema's
   * lookahead too. An absent state reads as {@code ""}, which {@link Durations#seconds} gives no
   * duration for.
   */
  private static Optional<Duration> duration(JsonNode node) {
    OptionalLong seconds = Durations.seconds(node.asText());
    return seconds.isPresent()
        ? Optional.of(Duration.ofSeconds(seconds.getAsLong()))
        : Optional.empty();
  }

  private static Map<String, Map<String, String>> gpuTypes(JsonNode types) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    types.properties().forEach(e -> out.put(e.getKey(), textMap(e.getValue())));
    return out;
  }

  private static Platform.SecretsPolicy secrets(JsonNode s) {
    SecretsMode mode =
        SecretsMode.parse(s.path("policy").asText("sealed-secrets"))
            .orElse(SecretsMode.SEALED_SECRETS);
    return new Platform.SecretsPolicy(
        mode,
        s.path("allowPlain").asBoolean(false),
        optionalText(s.path("sealedSecrets").path("certificate")),
        texts(s.path("sopsAge").path("recipients"), List.of()));
  }

  private static Platform.Queues queues(JsonNode q) {
    List<Platform.ResourceFlavor> flavors = new ArrayList<>();
    q.path("resourceFlavors")
        .forEach(
            f ->
                flavors.add(
                    new Platform.ResourceFlavor(
                        f.path("name").asText(),
                        textMap(f.path("nodeLabels")),
                        taints(f.path("nodeTaints")),
                        tolerations(f.path("tolerations")))));
    List<ClusterQueue> clusterQueues = new ArrayList<>();
    q.path("clusterQueues").forEach(c -> clusterQueues.add(clusterQueue(c)));
    List<LocalQueue> localQueues = new ArrayList<>();
    q.path("localQueues")
        .forEach(
            l ->
                localQueues.add(
                    new LocalQueue(
                        l.path("name").asText(),
                        l.path("namespace").asText(),
                        l.path("clusterQueue").asText())));
    return new Platform.Queues(flavors, clusterQueues, localQueues);
  }

  private static List<Platform.Taint> taints(JsonNode list) {
    List<Platform.Taint> out = new ArrayList<>();
    list.forEach(
        t ->
            out.add(
                new Platform.Taint(
                    t.path("key").asText(),
                    t.path("value").asText(""),
                    t.path("effect").asText())));
    return out;
  }

  private static List<Platform.Toleration> tolerations(JsonNode list) {
    List<Platform.Toleration> out = new ArrayList<>();
    list.forEach(
        t ->
            out.add(
                new Platform.Toleration(
                    t.path("key").asText(""),
                    t.path("operator").asText("Equal"),
                    t.path("value").asText(""),
                    t.path("effect").asText(""),
                    t.has("tolerationSeconds")
                        ? Optional.of(t.path("tolerationSeconds").asLong())
                        : Optional.empty())));
    return out;
  }

  private static ClusterQueue clusterQueue(JsonNode c) {
    List<FlavorQuota> quotas = new ArrayList<>();
    c.path("flavors")
        .forEach(
            f -> quotas.add(new FlavorQuota(f.path("name").asText(), textMap(f.path("quota")))));
    return new ClusterQueue(
        c.path("name").asText(),
        texts(c.path("namespaces"), List.of("*")),
        optionalText(c.path("cohort")),
        quotas);
  }

  private static Map<String, String> textMap(JsonNode node) {
    Map<String, String> out = new TreeMap<>();
    node.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }

  private static List<String> texts(JsonNode node, List<String> fallback) {
    if (!node.isArray()) {
      return fallback;
    }
    List<String> out = new ArrayList<>();
    node.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static Optional<String> optionalText(JsonNode node) {
    return node.isTextual() && !node.asText().isBlank()
        ? Optional.of(node.asText())
        : Optional.empty();
  }

  static Diagnostic invalid(ParsedDocument doc, String pointer, String message) {
    return Diagnostic.error(
        DiagnosticCode.INVALID_PLATFORM, doc.map().at(pointer), pointer, message);
  }
}
