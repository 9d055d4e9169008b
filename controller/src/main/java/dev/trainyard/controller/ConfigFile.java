package dev.trainyard.controller;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.resolve.Durations;
import dev.trainyard.controller.forge.RetryPolicy;
import dev.trainyard.gitops.GitOpsLocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the controller's YAML configuration (Jackson YAML; the only class importing it): process
 * settings here, while the forges and the status link come from the platform team's {@code
 * platform.yaml} ({@code status:}, read by {@link PlatformFile}). Durations are written {@code
 * 90s}, {@code 10m} or {@code 1h}.
 *
 * <pre>
 * platform: /etc/trainyard/platform/platform.yaml   # the GitOps repo's platform.yaml, mounted from a ConfigMap
 * tokens: /var/run/secrets/trainyard/forges          # token Secrets mounted as tokens/&lt;secret&gt;/&lt;key&gt;
 * stallAfter: 10m                   # admitted but not started after this: reported (better: platform.yaml status.stallAfter)
 * resync: 60s
 * requestTimeout: 10s
 * requeueAfter: 30s
 * port: 8080
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

  private static final Set<String> TOP =
      Set.of(
          "platform",
          "tokens",
          "stallAfter",
          "resync",
          "requestTimeout",
          "requeueAfter",
          "port",
          "prune");
  private static final Set<String> PRUNE = Set.of("gitops", "branch", "every", "cache");
  private static final Set<String> MOVED = Set.of("forges", "targetUrl");
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

  /** Stall threshold when neither platform.yaml nor controller.yaml sets one. */
  public static final Duration DEFAULT_STALL_AFTER = Duration.ofMinutes(10);

  private ConfigFile() {}

  /**
   * The configuration in {@code file}, with the forges and link of the platform.yaml it names.
   *
   * @throws ConfigException naming the file and field (or platform.yaml's line), never a token
   */
  public static ControllerConfig read(Path file) throws ConfigException {
    Map<String, Object> root;
    try {
      root =
          Snapshots.map(
              new ObjectMapper(new YAMLFactory()).readValue(Files.readString(file), Object.class));
    } catch (JsonProcessingException e) {
      throw new ConfigException(
          file + ": not valid YAML (line " + e.getLocation().getLineNr() + ")");
    } catch (IOException e) {
      throw new ConfigException(file + ": cannot read (" + e.getClass().getSimpleName() + ")");
    }
    for (String key : new TreeSet<>(root.keySet())) {
      if (MOVED.contains(key)) {
        throw new ConfigException(
            file
                + ": "
                + key
                + " moved to platform.yaml (status."
                + key
                + ")"
                + "\n  hint: see schemas/platform.v1.schema.json, property status");
      }
    }
    unknown(file, "", root, TOP);
    Path platformFile = Path.of(string(root, "platform", PLATFORM));
    PlatformFile.Settings platform =
        PlatformFile.read(platformFile, Path.of(string(root, "tokens", TOKENS)));
    Optional<RunPruning.Settings> prune = prune(file, root, platform);
    try {
      return new ControllerConfig(
          platform.forges(),
          platform.targetUrl(),
          stallAfter(file, root, platform.platform()),
          duration(file, root, "resync", "60s"),
          duration(file, root, "requestTimeout", "10s"),
          RetryPolicy.standard(),
          duration(file, root, "requeueAfter", "30s"),
          port(file, root.get("port")),
          null,
          platform.platform(),
          prune);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(file + ": " + e.getMessage());
    }
  }

  /**
   * {@code port:} 0..65535 (0: any free port), 8080 when absent; a non-number or another value is
   * refused.
   */
  static int port(Path file, Object value) throws ConfigException {
    if (value == null) {
      return 8080;
    }
    String text = String.valueOf(value).strip();
    if (!text.matches("\\d{1,5}") || Integer.parseInt(text) > 65_535) {
      throw new ConfigException(
          file
              + ": port: '"
              + text
              + "' is not a port 0..65535"
              + "\n  hint: e.g. `port: 8080` (0: any free port)");
    }
    return Integer.parseInt(text);
  }

  private static Optional<RunPruning.Settings> prune(
      Path file, Map<String, Object> root, PlatformFile.Settings platform) throws ConfigException {
    if (root.get("prune") == null) {
      return Optional.empty();
    }
    Map<String, Object> p = Snapshots.map(root.get("prune"));
    unknown(file, "prune.", p, PRUNE);
    String gitops = string(p, "gitops", "");
    if (gitops.isBlank()) {
      throw new ConfigException(file + ": prune.gitops is required (the GitOps repo URL or path)");
    }
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
   * "90s", "10m", "1h" or "500ms", or the compound form platform.yaml and train.yaml take ("1h30m",
   * "2d", {@link Durations}), so one value means the same in every Trainyard file and flag;
   * IllegalArgumentException otherwise.
   */
  public static Duration parseDuration(String text) {
    Matcher m = DURATION.matcher(text.strip());
    if (!m.matches()) {
      OptionalLong compound = Durations.seconds(text);
      if (compound.isPresent()) {
        return Duration.ofSeconds(compound.getAsLong());
      }
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration like 500ms, 90s, 10m, 1h or 1h30m");
    }
    if (m.group(1).length() > 12) {
      throw new IllegalArgumentException("'" + text + "' is too long a duration");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
  }

  /**
   * When an admitted run counts as stalled: platform.yaml's {@code status.stallAfter} (which {@code
   * trainyard status --platform} reads too), else controller.yaml's {@code stallAfter}, else 10
   * minutes. Both set to different values is refused: the PR check and the terminal would disagree
   * about "stalled".
   */
  static Duration stallAfter(Path file, Map<String, Object> root, Platform platform)
      throws ConfigException {
    Optional<Duration> shared = platform.status().stallAfter();
    if (root.get("stallAfter") == null) {
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

  private static Duration duration(Path file, Map<String, Object> root, String key, String fallback)
      throws ConfigException {
    try {
      return parseDuration(string(root, key, fallback));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(file + ": " + key + ": " + e.getMessage());
    }
  }

  private static void unknown(Path file, String at, Map<String, Object> m, Set<String> known)
      throws ConfigException {
    for (String k : new TreeSet<>(m.keySet())) {
      if (!known.contains(k)) {
        throw new ConfigException(
            file + ": unknown field " + at + k + "; known: " + new TreeSet<>(known));
      }
    }
  }

  private static String string(Map<String, Object> m, String key, String fallback) {
    Object v = m.get(key);
    return v == null ? fallback : v.toString();
  }
}
