package dev.trainyard.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.schema.SchemaId;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.compiler.units.Durations;
import dev.trainyard.controller.forge.RetryPolicy;
import dev.trainyard.gitops.GitOpsLocation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Reads the controller's YAML configuration, checked against {@code
 * schemas/controller.v1.schema.json} with the same diagnostics as train.yaml and platform.yaml:
 * settings here, while the forges and the status link come from the platform team's {@code
 * platform.yaml} ({@code status:}, read by {@link PlatformFile}). Durations follow {@link
 * Durations}: {@code 500ms}, {@code 90s}, {@code 10m}, {@code 1h30m}, {@code 2d}.
 *
 * <pre>
 * platform: /etc/trainyard/platform/platform.yaml   # the GitOps repo's platform.yaml, mounted from a ConfigMap
 *                                                  # (a relative path: from this file's folder, as tokens:)
 * tokens: /var/run/secrets/trainyard/forges          # token Secrets mounted as tokens/&lt;secret&gt;/&lt;key&gt;
 * stallAfter: 10m                   # admitted but not started after this: reported (better: platform.yaml status.stallAfter)
 * resync: 60s
 * requestTimeout: 10s
 * requeueAfter: 5m                  # longest back-off of a run the forge could not take (1 s, 2 s, 4 s ... this)
 * port: 8080
 * progress:                         # the progress endpoint, served when platform.yaml sets progressPush.enabled
 *   port: 8443
 *   tls: /var/run/secrets/trainyard/progress-tls   # tls.crt and tls.key (a kubernetes.io/tls Secret)
 * prune:                            # optional: finished runs leave the GitOps repo after platform.yaml's retention
 *   gitops: https://git.example/platform/gitops.git   # push token: env TRAINYARD_GITOPS_TOKEN
 *   branch: main
 *   every: 10m
 *   cache: /tmp/trainyard           # the repo's bare mirror
 * </pre>
 */
public final class ConfigFile {

  /** Where the Deployment mounts platform.yaml. */
  public static final String PLATFORM = "/etc/trainyard/platform/platform.yaml";

  /** Where the Deployment mounts the token Secrets, one folder each. */
  public static final String TOKENS = "/var/run/secrets/trainyard/forges";

  /** Schema of controller.yaml. */
  public static final SchemaId SCHEMA = new SchemaId("controller.v1.schema.json");

  private static final List<String> MOVED = List.of("forges", "targetUrl");

  /** Stall threshold when neither platform.yaml nor controller.yaml sets one. */
  public static final Duration DEFAULT_STALL_AFTER = Duration.ofMinutes(10);

  private ConfigFile() {}

  /**
   * The configuration in {@code file}, with the forges and link of the platform.yaml it names.
   *
   * @throws ConfigException naming the file and field (or platform.yaml's line), never a token
   */
  public static ControllerConfig read(Path file) throws ConfigException {
    JsonNode root = load(file);
    // A relative path is read from controller.yaml's folder, not the working directory, so a
    // configuration folder works from anywhere (the distribution's share/controller/).
    Path folder = file.toAbsolutePath().getParent();
    Path platformFile = folder.resolve(string(root, "platform", PLATFORM));
    PlatformFile.Settings platform =
        PlatformFile.read(platformFile, folder.resolve(string(root, "tokens", TOKENS)));
    Optional<RunPruning.Settings> prune = prune(file, root, platform);
    try {
      return new ControllerConfig(
          platform.forges(),
          platform.targetUrl(),
          stallAfter(file, root, platform.platform()),
          duration(file, root, "resync", "60s"),
          duration(file, root, "requestTimeout", "10s"),
          RetryPolicy.standard(),
          duration(file, root, "requeueAfter", "5m"),
          port(root.path("port")),
          null,
          platform.platform(),
          prune,
          progress(folder, root.path("progress")));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(file + ": " + e.getMessage());
    }
  }

  /**
   * controller.yaml read as every Trainyard file is (at most 1 MiB of UTF-8, YAML with line and
   * column) and checked against {@code schemas/controller.v1.schema.json}, all errors at once; an
   * empty file is all defaults.
   */
  private static JsonNode load(Path file) throws ConfigException {
    StageResult<SourceFile> read = YamlDocumentLoader.readFile(file, file.toString());
    if (read.failed()) {
      throw new ConfigException(PlatformFile.render(read.diagnostics()));
    }
    if (read.value().orElseThrow().text().isBlank()) {
      return JsonNodeFactory.instance.objectNode();
    }
    StageResult<ParsedDocument> doc = new YamlDocumentLoader().load(read.value().orElseThrow());
    if (doc.failed()) {
      throw new ConfigException(PlatformFile.render(doc.diagnostics()));
    }
    JsonNode root = doc.value().orElseThrow().root();
    List<Diagnostic> problems =
        new NetworkntSchemaValidator()
            .validate(doc.value().get(), SCHEMA).stream().map(ConfigFile::moved).toList();
    if (!problems.isEmpty()) {
      throw new ConfigException(PlatformFile.render(problems));
    }
    return root;
  }

  /**
   * An unknown top-level {@code forges} or {@code targetUrl} says where it went (platform.yaml's
   * {@code status:}), among the file's other problems.
   */
  private static Diagnostic moved(Diagnostic d) {
    String key = d.pointer().startsWith("/") ? d.pointer().substring(1) : "";
    if (d.code() != DiagnosticCode.UNKNOWN_FIELD || !MOVED.contains(key)) {
      return d;
    }
    return Diagnostic.error(
            d.code(),
            d.location(),
            d.pointer(),
            "`" + key + "` moved to platform.yaml (status." + key + ")")
        .withHint("set it in platform.yaml under `status:` (schemas/platform.v1.schema.json)");
  }

  /** {@code progress:} its port (8443) and certificate folder, relative to controller.yaml's. */
  static ControllerConfig.ProgressSettings progress(Path folder, JsonNode p) {
    ControllerConfig.ProgressSettings d = ControllerConfig.ProgressSettings.DEFAULT;
    return new ControllerConfig.ProgressSettings(
        p.path("port").isMissingNode() ? d.port() : p.path("port").asInt(),
        folder.resolve(string(p, "tls", d.tls().toString())));
  }

  /** {@code port:} 0..65535 (the schema checks it), 8080 when absent. */
  static int port(JsonNode value) {
    return value.isMissingNode() ? 8080 : value.asInt();
  }

  private static Optional<RunPruning.Settings> prune(
      Path file, JsonNode root, PlatformFile.Settings platform) throws ConfigException {
    if (!root.has("prune")) {
      return Optional.empty();
    }
    JsonNode p = root.path("prune");
    String gitops = string(p, "gitops", "");
    if (!RetentionPlan.configured(platform.platform())) {
      throw new ConfigException(
          file
              + ": prune is set but "
              + platform.platform().origin()
              + " sets no retention, so nothing would ever be pruned"
              + "\n  hint: add `retention: {succeeded: 7d, failed: 30d}` to platform.yaml, or remove prune");
    }
    GitOpsLocation location;
    try {
      location = GitOpsLocation.parse(gitops, Path.of(""));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(file + ": prune.gitops: " + e.getMessage());
    }
    return Optional.of(
        new RunPruning.Settings(
            location,
            string(p, "branch", "main"),
            duration(file, p, "every", "10m"),
            Path.of(string(p, "cache", "/tmp/trainyard"))));
  }

  /**
   * A duration in Trainyard's one grammar ({@link Durations}: "500ms", "90s", "10m", "1h30m",
   * "2d"), so one value means the same in every Trainyard file and flag; IllegalArgumentException
   * otherwise.
   */
  public static Duration parseDuration(String text) {
    return Durations.parse(text)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "'"
                        + text
                        + "' is not a duration like 500ms, 90s, 10m, 1h or 1h30m (at most 36500d)"));
  }

  /**
   * When an admitted run counts as stalled: platform.yaml's {@code status.stallAfter} (which {@code
   * trainyard status --platform} reads too), else controller.yaml's {@code stallAfter}, else 10
   * minutes. Both set to different values is refused: the PR check and the terminal would disagree
   * about "stalled".
   */
  static Duration stallAfter(Path file, JsonNode root, Platform platform) throws ConfigException {
    Optional<Duration> shared = platform.status().stallAfter();
    if (!root.has("stallAfter") || root.path("stallAfter").isNull()) {
      return shared.orElse(DEFAULT_STALL_AFTER);
    }
    Duration own = duration(file, root, "stallAfter", "");
    if (shared.isPresent() && !shared.get().equals(own)) {
      throw new ConfigException(
          file
              + ": stallAfter: "
              + string(root, "stallAfter", "")
              + " differs from "
              + platform.origin()
              + " status.stallAfter ("
              + shared.get().toSeconds()
              + "s)"
              + "\n  hint: remove stallAfter from "
              + file.getFileName()
              + "; platform.yaml's is the one trainyard status reads too");
    }
    return own;
  }

  private static Duration duration(Path file, JsonNode root, String key, String fallback)
      throws ConfigException {
    try {
      return parseDuration(string(root, key, fallback));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(file + ": " + key + ": " + e.getMessage());
    }
  }

  private static String string(JsonNode m, String key, String fallback) {
    JsonNode v = m.path(key);
    return v.isMissingNode() || v.isNull() ? fallback : v.asText();
  }
}
