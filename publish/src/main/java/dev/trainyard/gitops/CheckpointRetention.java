package dev.trainyard.gitops;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.TreeLayout;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.render.Provenance;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which checkpoint claims' folders ({@code clusters/<cluster>/<namespace>/_checkpoint-<key>/},
 * {@link TreeLayout#checkpointFolder}) are past their retention: the namespace's {@code
 * checkpoints.retention} in platform.yaml, counted from the claim's {@code
 * trainyard.dev/last-used-at} (the last submit that used it). A claim is kept while any run of its
 * job ({@code <job>-<6 hex>}, the claim's {@code trainyard.dev/job} label) is in the tree, when its
 * namespace sets no retention, and when it records no valid last use. Pure: it reads the tree.
 *
 * <pre>
 * namespaces: [{name: ml, cluster: prod, checkpoints: {size: 500Gi, accessMode: ReadWriteMany, retention: 30d}}]
 * clusters/prod/ml/_checkpoint-llm-3f2a1b/  last used 2026-10-01, no llm-* run left → removed on 2026-10-31
 * </pre>
 */
public final class CheckpointRetention {
  private CheckpointRetention() {}

  /**
   * A checkpoint claim's folder.
   *
   * @param cluster its cluster
   * @param namespace its namespace
   * @param key the checkpoint key (the claim's name)
   */
  public record CheckpointFolder(String cluster, String namespace, String key) {
    /** {@code clusters/<cluster>/<namespace>/_checkpoint-<key>}. */
    public String path() {
      return TreeLayout.checkpointFolder(cluster, namespace, key);
    }
  }

  /** Every checkpoint folder of {@code tree}, sorted by cluster, namespace and key. */
  public static List<CheckpointFolder> folders(Snapshot tree) {
    List<CheckpointFolder> out = new ArrayList<>();
    for (String cluster : subfolders(tree, TreeLayout.CLUSTERS)) {
      if (TreeLayout.reserved(cluster)) {
        continue;
      }
      String clusterDir = TreeLayout.clusterFolder(cluster);
      for (String namespace : subfolders(tree, clusterDir)) {
        if (TreeLayout.reserved(namespace)) {
          continue;
        }
        for (String child : subfolders(tree, clusterDir + "/" + namespace)) {
          TreeLayout.checkpointKey(child)
              .ifPresent(key -> out.add(new CheckpointFolder(cluster, namespace, key)));
        }
      }
    }
    return List.copyOf(out);
  }

  /** The folders past their retention at {@code now}, sorted. */
  public static List<CheckpointFolder> expired(Snapshot tree, Platform platform, Instant now) {
    List<CheckpointFolder> out = new ArrayList<>();
    for (CheckpointFolder f : folders(tree)) {
      Optional<Duration> retention = retention(platform, f);
      if (retention.isEmpty()) {
        continue;
      }
      Optional<JsonNode> claim = claim(tree, f);
      Optional<Instant> lastUsed = claim.flatMap(CheckpointRetention::lastUsed);
      Optional<String> job =
          claim.map(c -> c.path("metadata").path("labels").path(Provenance.JOB).asText(""));
      if (lastUsed.isEmpty() || job.isEmpty() || job.get().isEmpty()) {
        continue;
      }
      if (!lastUsed.get().plus(retention.get()).isAfter(now) && !inUse(tree, f, job.get())) {
        out.add(f);
      }
    }
    return List.copyOf(out);
  }

  private static Optional<Duration> retention(Platform platform, CheckpointFolder f) {
    return platform.namespaces().stream()
        .filter(n -> n.cluster().equals(f.cluster()) && n.name().equals(f.namespace()))
        .findFirst()
        .flatMap(Platform.NamespaceRule::checkpoints)
        .flatMap(Platform.CheckpointStorage::retention);
  }

  /** Whether a run of {@code job} ({@code <job>-<6 hex>}) is in the namespace's folder. */
  private static boolean inUse(Snapshot tree, CheckpointFolder f, String job) {
    String pattern = Pattern.quote(job) + "-[0-9a-f]{6}";
    return subfolders(tree, TreeLayout.clusterFolder(f.cluster()) + "/" + f.namespace()).stream()
        .anyMatch(name -> name.matches(pattern));
  }

  private static Optional<JsonNode> claim(Snapshot tree, CheckpointFolder f) {
    String path = f.path() + "/persistentvolumeclaim-" + f.key() + ".yaml";
    return tree.read(path)
        .flatMap(text -> new YamlDocumentLoader().load(new SourceFile(path, text)).value())
        .map(doc -> doc.root());
  }

  private static Optional<Instant> lastUsed(JsonNode claim) {
    String value =
        claim.path("metadata").path("annotations").path(Provenance.LAST_USED_AT).asText("");
    try {
      return value.isEmpty() ? Optional.empty() : Optional.of(Instant.parse(value));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  private static List<String> subfolders(Snapshot tree, String parent) {
    return tree.children(parent).stream()
        .filter(c -> c.endsWith("/"))
        .map(c -> c.substring(0, c.length() - 1))
        .toList();
  }
}
