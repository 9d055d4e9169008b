package dev.trainyard.gitops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.manifest.TreeLayout;
import dev.trainyard.compiler.manifest.YamlWriter;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Keeps the kustomize roots that Flux and Argo CD point at in step with the runs, after any change:
 *
 * <pre>
 * clusters/&lt;cluster&gt;/kustomization.yaml              resources: [_cluster, &lt;namespace&gt;, …]   (everything)
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/kustomization.yaml  resources: [_queues, &lt;run&gt;, …]           (one team)
 * </pre>
 *
 * A Flux Kustomization (or Argo CD Application) per namespace can then sync one team's runs and
 * depend on the cluster's queue objects ({@code _cluster}). Only the roots of namespaces the change
 * touches, and of their cluster, are rewritten, and only their {@code resources} list: entries
 * Trainyard does not own (a hand-written {@code configmap.yaml}, a folder of other apps) and every
 * other field are kept; a folder the change deletes leaves the list, a folder it adds (or a
 * sub-folder with its own {@code kustomization.yaml}) joins it. A root that is not a kustomization
 * Trainyard can read, or a file where the layout needs a folder, is a diagnostic, and the change is
 * refused. Pure: it reads the base tree and the pending edits, and returns more edits.
 */
public final class ClusterRoots {
  private static final String FILE = "kustomization.yaml";

  private ClusterRoots() {}

  /**
   * The root edits, or the problems that refuse the change.
   *
   * @param edits roots to write
   * @param diagnostics errors (E803 unreadable root, E804 a file in the way); with any, {@code
   *     edits} is empty
   */
  public record Result(List<TreeEdit> edits, List<Diagnostic> diagnostics) {
    public Result {
      edits = List.copyOf(edits);
      diagnostics = List.copyOf(diagnostics);
    }
  }

  /**
   * The edits that bring the roots of every namespace and cluster {@code edits} touch up to date.
   */
  public static Result after(Snapshot base, List<TreeEdit> edits) {
    List<Diagnostic> problems = new ArrayList<>(filesInTheWay(base, edits));
    SortedSet<String> clusters = new TreeSet<>();
    SortedSet<String> namespaces = new TreeSet<>();
    for (TreeEdit e : edits) {
      TreeLayout place = TreeLayout.of(e.path());
      place
          .cluster()
          .ifPresent(
              c -> {
                clusters.add(TreeLayout.clusterFolder(c));
                place
                    .namespace()
                    .ifPresent(ns -> namespaces.add(TreeLayout.clusterFolder(c) + "/" + ns));
              });
    }
    List<TreeEdit> roots = new ArrayList<>();
    if (problems.isEmpty()) {
      namespaces.forEach(ns -> root(base, edits, ns, problems).ifPresent(roots::add));
      clusters.forEach(c -> root(base, edits, c, problems).ifPresent(roots::add));
    }
    return problems.isEmpty() ? new Result(roots, List.of()) : new Result(List.of(), problems);
  }

  /**
   * W815 for each folder of {@code written} (a run's, a queue folder) that the kustomization.yaml
   * beside it, when {@code tree} has one, does not list: a sync of that root would not apply it.
   * For {@code compile --out}, which writes folders and leaves the roots to {@code submit} (which
   * keeps them, {@link #after}); a root it cannot read as a list of resources is left to E803.
   */
  public static List<Diagnostic> unlisted(Snapshot tree, OutputTree written) {
    List<Diagnostic> out = new ArrayList<>();
    for (String folder : written.ownedFolders()) {
      int slash = folder.lastIndexOf('/');
      String dir = folder.substring(0, slash);
      String name = folder.substring(slash + 1);
      String path = dir + "/" + FILE;
      Optional<ObjectNode> root =
          tree.read(path).flatMap(text -> parse(path, text, new ArrayList<>()));
      if (root.isEmpty()) {
        continue;
      }
      boolean listed = false;
      for (JsonNode r : root.get().path("resources")) {
        listed |= r.asText().replaceFirst("/$", "").equals(name);
      }
      if (!listed) {
        out.add(
            Diagnostic.warning(
                    DiagnosticCode.FOLDER_NOT_LISTED,
                    SourceLocation.ofFile(path),
                    "/resources",
                    "the folder "
                        + name
                        + " was written but is not in the resources of "
                        + path
                        + ": a sync of "
                        + dir
                        + " does not apply it")
                .withHint(
                    "add `- "
                        + name
                        + "` to its resources, or publish with `trainyard submit`, which keeps"
                        + " that list"));
      }
    }
    return out;
  }

  /**
   * The root of {@code dir} with its resources brought up to date, or empty when they did not
   * change.
   */
  private static Optional<TreeEdit> root(
      Snapshot base, List<TreeEdit> edits, String dir, List<Diagnostic> problems) {
    String path = dir + "/" + FILE;
    Optional<String> text = base.read(path);
    Optional<ObjectNode> existing =
        text.isPresent() ? parse(path, text.get(), problems) : Optional.of(fresh());
    if (existing.isEmpty()) {
      return Optional.empty();
    }
    ObjectNode k = existing.get();
    List<String> before = new ArrayList<>();
    k.path("resources").forEach(r -> before.add(r.asText()));
    SortedSet<String> after = resources(base, edits, dir, before);
    if (text.isPresent() && List.copyOf(after).equals(before)) {
      return Optional.empty();
    }
    ArrayNode list = k.putArray("resources");
    after.forEach(list::add);
    return Optional.of(new TreeEdit.WriteFile(path, YamlWriter.write(k)));
  }

  private static SortedSet<String> resources(
      Snapshot base, List<TreeEdit> edits, String dir, List<String> before) {
    SortedSet<String> deleted = new TreeSet<>();
    SortedSet<String> created = new TreeSet<>();
    direct(edits, dir, deleted, created);
    SortedSet<String> after = new TreeSet<>();
    for (String r : before) {
      if (!deleted.contains(r.replaceFirst("/$", ""))
          || created.contains(r.replaceFirst("/$", ""))) {
        after.add(r);
      }
    }
    for (String folder : folders(base, edits, dir)) {
      boolean listed = after.contains(folder) || after.contains(folder + "/");
      if (!listed
          && !folder.startsWith(".")
          && (created.contains(folder) || base.read(dir + "/" + folder + "/" + FILE).isPresent())) {
        after.add(folder);
      }
    }
    return after;
  }

  /**
   * Direct sub-folders of {@code dir} that {@code edits} delete, and those they create or write
   * into.
   */
  private static void direct(
      List<TreeEdit> edits, String dir, SortedSet<String> deleted, SortedSet<String> created) {
    for (TreeEdit e : edits) {
      if (!e.path().startsWith(dir + "/")) {
        continue;
      }
      String rest = e.path().substring(dir.length() + 1);
      int slash = rest.indexOf('/');
      String first = slash < 0 ? rest : rest.substring(0, slash);
      boolean empties =
          e instanceof TreeEdit.DeleteFolder
              || e instanceof TreeEdit.ReplaceFolder r && r.files().isEmpty();
      if (empties && slash < 0) {
        deleted.add(first);
        created.remove(first);
      } else if (!empties && (slash >= 0 || e instanceof TreeEdit.ReplaceFolder)) {
        created.add(first);
      }
    }
  }

  private static Optional<ObjectNode> parse(String path, String text, List<Diagnostic> problems) {
    Optional<ObjectNode> written = asWritten(text);
    if (written.isPresent()) {
      return written;
    }
    var doc = new YamlDocumentLoader().load(new SourceFile(path, text));
    JsonNode root = doc.value().map(d -> d.root()).orElse(null);
    boolean listOfNames =
        root != null
            && root.isObject()
            && (root.path("resources").isMissingNode() || root.path("resources").isArray());
    if (listOfNames) {
      for (JsonNode r : root.path("resources")) {
        listOfNames &= r.isTextual();
      }
    }
    if (!listOfNames) {
      SourceLocation at =
          doc.diagnostics().isEmpty()
              ? SourceLocation.ofFile(path)
              : doc.diagnostics().get(0).location();
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.GITOPS_ROOT_UNREADABLE,
                  at,
                  "/resources",
                  "cannot update " + path + ": it is not a kustomization with a list of resources")
              .withHint(
                  "fix it in the GitOps repo (Trainyard keeps every entry it does not own), or delete it to have it regenerated"));
      return Optional.empty();
    }
    return Optional.of((ObjectNode) root.deepCopy());
  }

  /** How {@code EmitStage.kustomization} starts a root's text. */
  private static final String HEADER =
      "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n";

  /**
   * The root read without a YAML parser when its text is exactly as Trainyard writes it: the
   * header, then one {@code - name} line per resource, each name a plain YAML string that no reader
   * takes for another type (a letter or {@code _} first, then letters, digits, {@code ._/-}, and at
   * least one {@code -} or {@code _}, as run, queue and checkpoint folders have). A namespace root
   * of 10,000 runs took ~0.15 s to parse with line and column tracking on each submit (issue #24).
   * Anything else is empty, and parsed.
   */
  static Optional<ObjectNode> asWritten(String text) {
    if (!text.startsWith(HEADER) || !text.endsWith("\n") || text.length() == HEADER.length()) {
      return Optional.empty();
    }
    ObjectNode k = fresh();
    ArrayNode list = k.putArray("resources");
    int at = HEADER.length();
    while (at < text.length()) {
      int end = text.indexOf('\n', at);
      if (!text.startsWith("- ", at) || !plainName(text, at + 2, end)) {
        return Optional.empty();
      }
      list.add(text.substring(at + 2, end));
      at = end + 1;
    }
    return Optional.of(k);
  }

  private static boolean plainName(String text, int start, int end) {
    if (start >= end) {
      return false;
    }
    char first = text.charAt(start);
    if (!(Character.isLetter(first) && first < 0x80) && first != '_') {
      return false;
    }
    boolean separator = false;
    for (int i = start; i < end; i++) {
      char c = text.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == '/'
              || c == '-';
      if (!ok) {
        return false;
      }
      separator |= c == '-' || c == '_';
    }
    return separator;
  }

  private static ObjectNode fresh() {
    ObjectNode k = CanonicalJson.mapper().createObjectNode();
    k.put("apiVersion", "kustomize.config.k8s.io/v1beta1").put("kind", "Kustomization");
    return k;
  }

  /**
   * A file of the base where an edit needs a folder ({@code clusters} as a file): git would lose it
   * silently.
   */
  private static List<Diagnostic> filesInTheWay(Snapshot base, List<TreeEdit> edits) {
    SortedSet<String> seen = new TreeSet<>();
    List<Diagnostic> problems = new ArrayList<>();
    // One listing per parent folder, as a set: a submit of 500 runs into a folder of 10,000 asked
    // for (and searched) the 10,000 names once per run.
    Map<String, Set<String>> children = new HashMap<>();
    for (TreeEdit e : edits) {
      String[] parts = e.path().split("/");
      String parent = "";
      int folders = e instanceof TreeEdit.WriteFile ? parts.length - 1 : parts.length;
      for (int i = 0; i < folders; i++) {
        String path = parent.isEmpty() ? parts[i] : parent + "/" + parts[i];
        if (seen.add(path)
            && children
                .computeIfAbsent(parent, p -> new HashSet<>(base.children(p)))
                .contains(parts[i])) {
          problems.add(
              Diagnostic.error(
                      DiagnosticCode.GITOPS_FILE_IN_THE_WAY,
                      SourceLocation.ofFile(path),
                      "",
                      "the GitOps repo has a file " + path + " where Trainyard writes a folder")
                  .withHint(
                      "move or delete it in the GitOps repo; Trainyard never overwrites files it does not own"));
        }
        parent = path;
      }
    }
    return problems;
  }

  /** The sub-folders of {@code folder} once {@code edits} are applied to {@code base}. */
  static SortedSet<String> folders(Snapshot base, List<TreeEdit> edits, String folder) {
    SortedSet<String> names = new TreeSet<>();
    for (String child : base.children(folder)) {
      if (child.endsWith("/")) {
        names.add(child.substring(0, child.length() - 1));
      }
    }
    for (TreeEdit e : edits) {
      SortedSet<String> deleted = new TreeSet<>();
      SortedSet<String> created = new TreeSet<>();
      direct(List.of(e), folder, deleted, created);
      names.removeAll(deleted);
      names.addAll(created);
    }
    return names;
  }
}
