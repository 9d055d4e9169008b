package dev.trainyard.gitops;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.TreeLayout;
import dev.trainyard.compiler.render.Provenance;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The runs a GitOps tree holds, found by the layout alone ({@code
 * clusters/<cluster>/<namespace>/<run>/}), and their provenance, read from the run's JobSet only
 * when asked (listing 10,000 runs reads no file).
 */
public final class RunIndex {
  private final Snapshot tree;

  public RunIndex(Snapshot tree) {
    this.tree = tree;
  }

  /** Every run folder, sorted by cluster, namespace and run. */
  public List<RunFolder> runs() {
    List<RunFolder> runs = new ArrayList<>();
    for (String cluster : folders("clusters")) {
      for (String namespace : folders("clusters/" + cluster)) {
        for (String run : folders("clusters/" + cluster + "/" + namespace)) {
          runs.add(new RunFolder(cluster, namespace, run));
        }
      }
    }
    return List.copyOf(runs);
  }

  /** The runs of one cluster. */
  public List<RunFolder> runs(String cluster) {
    return runs().stream().filter(r -> r.cluster().equals(cluster)).toList();
  }

  /** Whether the tree holds {@code run}. */
  public boolean has(RunFolder run) {
    return tree.hasFolder(run.path());
  }

  /**
   * The provenance annotations of a run's JobSet ({@code trainyard.dev/source-commit}, …), sorted
   * by key; empty when the JobSet file is missing or unreadable.
   */
  public Map<String, String> provenance(RunFolder run) {
    Optional<String> text = tree.read(run.jobSetFile());
    Map<String, String> annotations = new TreeMap<>();
    if (text.isEmpty()) {
      return annotations;
    }
    var doc = new YamlDocumentLoader().load(new SourceFile(run.jobSetFile(), text.get())).value();
    JsonNode node = doc.map(d -> d.root().path("metadata").path("annotations")).orElse(null);
    if (node != null && node.isObject()) {
      node.properties().forEach(e -> annotations.put(e.getKey(), e.getValue().asText()));
    }
    return annotations;
  }

  /** When the run was submitted ({@code trainyard.dev/created-at}), if recorded and valid. */
  public Optional<Instant> createdAt(RunFolder run) {
    String value = provenance(run).get(Provenance.CREATED_AT);
    if (value == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(value));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  private List<String> folders(String parent) {
    List<String> names = new ArrayList<>();
    for (String child : tree.children(parent)) {
      if (child.endsWith("/") && !TreeLayout.reserved(child)) {
        names.add(child.substring(0, child.length() - 1));
      }
    }
    return names;
  }
}
