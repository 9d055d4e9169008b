package dev.trainyard.gitops;

import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.manifest.TreeLayout;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.render.Provenance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * {@code trainyard platform render}: the queue folders of a GitOps tree brought back in step with
 * its own {@code platform.yaml} and {@code runtimes/}, so a platform change (a quota, a namespace,
 * a flavor) carries its ClusterQueues, ResourceFlavors and LocalQueues in the same pull request
 * instead of waiting for the next {@code submit}. The objects come from {@link
 * Compiler#renderQueues}, the code a submit's compile uses, so the two always agree byte for byte.
 *
 * <pre>
 * clusters/&lt;cluster&gt;/_cluster/              replaced whole (removed when platform.yaml gives none)
 * clusters/&lt;cluster&gt;/&lt;namespace&gt;/_queues/   replaced whole (removed for a namespace platform.yaml dropped)
 * clusters/&lt;cluster&gt;/kustomization.yaml      resources kept in step ({@link ClusterRoots})
 * </pre>
 *
 * Run folders and every other file are never touched. Pure: it reads the tree and returns the edits
 * that differ from it, with each file they change.
 */
public final class PlatformRender {
  private PlatformRender() {}

  /** How a committed file differs from what platform.yaml gives. */
  public enum Difference {
    /** platform.yaml gives it; the tree lacks it. */
    MISSING,
    /** Both have it, with other text. */
    DIFFERS,
    /**
     * Both have it, and the text differs only in the {@code trainyard.dev/platform} annotation's
     * value: the same objects, rendered from a platform.yaml given another way (e.g. {@code submit
     * --platform FILE} before the GitOps repo had its own {@code platform.yaml}).
     */
    ORIGIN,
    /**
     * The tree has it; platform.yaml gives nothing there (a queue, namespace or cluster it
     * dropped).
     */
    EXTRA,
    /**
     * The tree has it in a folder the render owns ({@code _cluster/}, {@code _queues/}),
     * platform.yaml gives nothing there, and it is not Trainyard's: no {@code
     * trainyard.dev/platform} provenance annotation (every queue object carries it) and not the
     * folder's kustomization. Someone wrote it by hand (a LimitRange, a ResourceQuota); the render
     * removes it, as it replaces the folder whole.
     */
    HAND_WRITTEN,
    /**
     * A {@code .trainyard-*} staging folder (or file) an interrupted render or submit left behind
     * under {@code clusters/}; the render removes it.
     */
    LEFTOVER
  }

  /**
   * One file the render changes.
   *
   * @param path from the tree's root ({@code clusters/prod/_cluster/clusterqueue-team-a.yaml})
   * @param difference how the committed file differs
   * @param line the first line (1-based) where a {@link Difference#DIFFERS} or {@link
   *     Difference#ORIGIN} file differs, else 0
   */
  public record StaleFile(String path, Difference difference, int line) {
    public StaleFile {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(difference, "difference");
    }
  }

  /**
   * What the render found.
   *
   * @param edits the folder and root edits that bring the tree in step, in path order; empty when
   *     it already is, or on an error
   * @param stale every file those edits change, sorted by path
   * @param diagnostics platform.yaml's and runtimes' problems (as a compile reports them), W806
   *     without platform.yaml, E803/E804 for a root in the way; with an error, {@code edits} and
   *     {@code stale} are empty
   */
  public record Result(List<TreeEdit> edits, List<StaleFile> stale, List<Diagnostic> diagnostics) {
    public Result {
      edits = List.copyOf(edits);
      stale = List.copyOf(stale);
      diagnostics = List.copyOf(diagnostics);
    }

    /** Whether a diagnostic is an error (nothing can be rendered). */
    public boolean failed() {
      return diagnostics.stream().anyMatch(Diagnostic::isError);
    }
  }

  /**
   * E812 when the GitOps checkout at {@code root} has no regular file {@code platform.yaml}
   * (missing, renamed, or a folder): {@code platform render} then refuses instead of rendering the
   * embedded default platform, which would delete every cluster's queues and add {@code
   * clusters/local/}. Empty when the file is there.
   *
   * @param root the checkout's root folder
   * @param display how to name {@code root/platform.yaml} in the message (the path as given)
   */
  public static Optional<Diagnostic> missingPlatform(Path root, String display) {
    Path file = root.resolve("platform.yaml");
    if (Files.isRegularFile(file)) {
      return Optional.empty();
    }
    String what =
        Files.isDirectory(file)
            ? "is a folder, not a file"
            : Files.exists(file) ? "is not a regular file" : "does not exist";
    return Optional.of(
        Diagnostic.error(
                DiagnosticCode.PLATFORM_FILE_MISSING,
                SourceLocation.ofFile(display),
                "",
                display
                    + " "
                    + what
                    + ": platform render renders the queues only from the GitOps repo's own platform.yaml, never from the embedded default (that would remove every cluster's queues); nothing was changed")
            .withHint(
                "restore platform.yaml at the GitOps repo's root (`git status` shows a rename or deletion; `git checkout -- platform.yaml`), or name the checkout as DIR"));
  }

  /** Renders the queue folders of {@code tree} from its own platform.yaml and runtimes/. */
  public static Result of(Snapshot tree) {
    List<Diagnostic> diagnostics = new ArrayList<>();
    if (tree.read("platform.yaml").isEmpty()) {
      diagnostics.add(PlatformSource.embedded());
    }
    StageResult<OutputTree> rendered;
    try (GitOpsPlatform platform = GitOpsPlatform.of(Optional.empty(), Optional.empty(), tree);
        Compiler compiler = new Compiler(SshSecretProvider.reading(tree::read))) {
      rendered =
          compiler.renderQueues(
              platform.platform(),
              platform.platformDisplay().orElse(PlatformLoader.EMBEDDED_NAME),
              platform.runtimes());
      diagnostics.addAll(platform.repoRelative(rendered.diagnostics()));
    }
    if (rendered.failed()) {
      return new Result(List.of(), List.of(), diagnostics);
    }
    OutputTree out = rendered.value().orElseThrow();
    List<TreeEdit> edits = new ArrayList<>();
    List<StaleFile> stale = new ArrayList<>();
    List<TreeEdit> owned = owned(out, tree);
    for (TreeEdit e : owned) {
      List<StaleFile> changed = changes(e, tree);
      if (!changed.isEmpty()) {
        edits.add(e);
        stale.addAll(changed);
      }
    }
    // The roots of every owned folder, changed or not: a root someone deleted
    // (clusters/<cluster>/kustomization.yaml, a namespace's) is missing even when the queue folders
    // are in step. An unchanged folder's edit is a no-op, so the roots are those after `edits`.
    ClusterRoots.Result roots = ClusterRoots.after(tree, owned);
    if (!roots.diagnostics().isEmpty()) {
      diagnostics.addAll(roots.diagnostics());
      return new Result(List.of(), List.of(), diagnostics);
    }
    for (TreeEdit root : roots.edits()) {
      edits.add(root);
      stale.addAll(changes(root, tree));
    }
    for (String leftover : leftovers(tree)) {
      edits.add(new TreeEdit.DeleteFolder(leftover));
      stale.add(new StaleFile(leftover, Difference.LEFTOVER, 0));
    }
    stale.sort(Comparator.comparing(StaleFile::path));
    return new Result(edits, stale, diagnostics);
  }

  /**
   * E811 for each stale file, at the file (and, for one that differs, its first differing line),
   * sorted by path.
   */
  public static List<Diagnostic> staleDiagnostics(Result result) {
    List<Diagnostic> out = new ArrayList<>();
    for (StaleFile f : result.stale()) {
      String message =
          switch (f.difference()) {
            case MISSING -> "queue file missing: platform.yaml gives it";
            case DIFFERS -> "stale queue file: platform.yaml gives other text from this line on";
            case ORIGIN ->
                "queue file rendered from another platform.yaml: only its trainyard.dev/platform"
                    + " annotation differs, the objects are the same";
            case EXTRA ->
                "queue file platform.yaml no longer gives (its queue, namespace or cluster is gone)";
            case HAND_WRITTEN ->
                "hand-written file in a folder trainyard owns: `trainyard platform render` writes this folder"
                    + " whole from platform.yaml and would remove it";
            case LEFTOVER ->
                "staging left by an interrupted `trainyard platform render` or submit: not part of the tree";
          };
      SourceLocation at =
          f.line() > 0
              ? new SourceLocation(f.path(), f.line(), 1)
              : SourceLocation.ofFile(f.path());
      out.add(
          Diagnostic.error(DiagnosticCode.QUEUE_OBJECTS_STALE, at, "", message)
              .withHint(
                  switch (f.difference()) {
                    case LEFTOVER ->
                        "run `trainyard platform render` at the GitOps repo's root: it removes it; never commit a .trainyard-* folder";
                    case HAND_WRITTEN -> "move it out of the folder: " + HAND_WRITTEN_HINT;
                    case ORIGIN ->
                        "the annotation names the platform.yaml the file was written from (e.g. a"
                            + " submit --platform FILE); this render's is the GitOps repo's own. Run"
                            + " `trainyard platform render` at the GitOps repo's root and commit the result";
                    default ->
                        "run `trainyard platform render` at the GitOps repo's root and commit the result with the platform.yaml change";
                  }));
    }
    return out;
  }

  /**
   * The queue folders platform.yaml gives (ReplaceFolder), and a DeleteFolder for each {@code
   * _cluster} or {@code _queues} folder of the tree that it no longer gives.
   */
  private static List<TreeEdit> owned(OutputTree out, Snapshot tree) {
    Map<String, TreeEdit> edits = new TreeMap<>(Submitter.folders(out));
    for (String cluster : folders(tree, TreeLayout.CLUSTERS)) {
      String dir = TreeLayout.CLUSTERS + "/" + cluster;
      TreeSet<String> queueFolders = new TreeSet<>();
      queueFolders.add(dir + "/" + TreeLayout.CLUSTER_FOLDER);
      for (String ns : folders(tree, dir)) {
        if (!ns.startsWith("_") && !ns.startsWith(".")) {
          queueFolders.add(dir + "/" + ns + "/" + TreeLayout.QUEUES_FOLDER);
        }
      }
      for (String folder : queueFolders) {
        if (!edits.containsKey(folder) && tree.hasFolder(folder)) {
          edits.put(folder, new TreeEdit.DeleteFolder(folder));
        }
      }
    }
    return new ArrayList<>(edits.values());
  }

  /**
   * The {@code .trainyard-*} entries (a {@link TreeWriter} staging folder or file, an old folder
   * moved aside) directly in {@code clusters/<cluster>/} or {@code clusters/<cluster>/<ns>/}, where
   * an interrupted write leaves them.
   */
  static List<String> leftovers(Snapshot tree) {
    List<String> out = new ArrayList<>();
    for (String cluster : folders(tree, TreeLayout.CLUSTERS)) {
      String dir = TreeLayout.CLUSTERS + "/" + cluster;
      List<String> dirs = new ArrayList<>(List.of(dir));
      for (String ns : folders(tree, dir)) {
        if (!ns.startsWith(".")) {
          dirs.add(dir + "/" + ns);
        }
      }
      for (String d : dirs) {
        for (String child : tree.children(d)) {
          if (child.startsWith(".trainyard-")) {
            out.add(
                d + "/" + (child.endsWith("/") ? child.substring(0, child.length() - 1) : child));
          }
        }
      }
    }
    return out;
  }

  private static List<String> folders(Snapshot tree, String dir) {
    return tree.children(dir).stream()
        .filter(c -> c.endsWith("/"))
        .map(c -> c.substring(0, c.length() - 1))
        .toList();
  }

  /** The files {@code edit} would change in {@code tree}. */
  static List<StaleFile> changes(TreeEdit edit, Snapshot tree) {
    SortedMap<String, String> now = new TreeMap<>();
    SortedMap<String, String> want = new TreeMap<>();
    if (edit instanceof TreeEdit.ReplaceFolder r) {
      tree.folder(r.path()).forEach((k, v) -> now.put(r.path() + "/" + k, v));
      r.files().forEach((k, v) -> want.put(r.path() + "/" + k, v));
    } else if (edit instanceof TreeEdit.DeleteFolder d) {
      tree.folder(d.path()).forEach((k, v) -> now.put(d.path() + "/" + k, v));
    } else if (edit instanceof TreeEdit.WriteFile w) {
      tree.read(w.path()).ifPresent(t -> now.put(w.path(), t));
      want.put(w.path(), w.text());
    }
    TreeSet<String> paths = new TreeSet<>(now.keySet());
    paths.addAll(want.keySet());
    List<StaleFile> out = new ArrayList<>();
    for (String path : paths) {
      String was = withoutCarriageReturns(now.get(path));
      String is = want.get(path);
      if (was == null) {
        out.add(new StaleFile(path, Difference.MISSING, 0));
      } else if (is == null) {
        out.add(
            new StaleFile(
                path, handWritten(path, was) ? Difference.HAND_WRITTEN : Difference.EXTRA, 0));
      } else if (!was.equals(is)) {
        int objects = firstObjectDifference(was, is);
        out.add(
            objects == 0
                ? new StaleFile(path, Difference.ORIGIN, firstDifferentLine(was, is))
                : new StaleFile(path, Difference.DIFFERS, objects));
      }
    }
    return out;
  }

  /**
   * Whether {@code text} at {@code path} is no file Trainyard writes: every queue object Trainyard
   * writes is one YAML document whose top-level {@code metadata.annotations} holds the {@link
   * Provenance#PLATFORM} key, as its emitter lays it out (block style, two-space indent; the key
   * under {@code annotations:}, not a label, a comment or a line of a block scalar), and the only
   * other file in a queue folder is its own kustomization (not one in a subfolder of it). A copy of
   * a queue file keeps the annotation and counts as Trainyard's: the annotation is the claim. CRLF
   * line ends count as LF (a queue file committed with CRLF is still Trainyard's, and rewritten).
   */
  static boolean handWritten(String path, String text) {
    boolean kustomization =
        path.endsWith("/" + TreeLayout.QUEUES_FOLDER + "/" + KUSTOMIZATION)
            || path.endsWith("/" + TreeLayout.CLUSTER_FOLDER + "/" + KUSTOMIZATION);
    String lf = withoutCarriageReturns(text);
    return !kustomization && !(ANNOTATED.matcher(lf).find() && !DOCUMENTS.matcher(lf).find());
  }

  /**
   * {@code text} with each CRLF line end as LF (null stays null): Trainyard writes LF, and a
   * checkout with {@code core.autocrlf=true} gives CRLF files whose committed text is LF — up to
   * date, or {@code render} would rewrite them, git would see no change, and {@code --check} would
   * fail again on every such checkout. The same objects either way; the line numbers stay.
   */
  static String withoutCarriageReturns(String text) {
    return text == null ? null : text.replace("\r\n", "\n");
  }

  /**
   * Where {@code was} (the committed file) first differs from {@code is} (what platform.yaml gives)
   * outside the {@link Provenance#PLATFORM} annotation's value: the 1-based line of {@code was}
   * (one past its last line when it ends first); 0 when both hold the annotation and differ only in
   * its value, however the emitter folded it (a long path with spaces continues on more-indented
   * lines). So a file whose quota and origin both changed is reported at the quota's line. When
   * either lacks the annotation, the plain first differing line.
   */
  static int firstObjectDifference(String was, String is) {
    Lines a = outsideOrigin(was);
    Lines b = outsideOrigin(is);
    if (!a.annotated() || !b.annotated()) {
      return firstDifferentLine(was, is);
    }
    int i = 0;
    while (i < a.texts().size()
        && i < b.texts().size()
        && a.texts().get(i).equals(b.texts().get(i))) {
      i++;
    }
    if (i == a.texts().size() && i == b.texts().size()) {
      return 0;
    }
    return i < a.numbers().size() ? a.numbers().get(i) : a.end();
  }

  /**
   * The lines of {@code text} but its annotation's (the key's line and its more-indented
   * continuation lines), each with its 1-based number, whether it has the annotation, and one past
   * its last line number.
   */
  private record Lines(List<String> texts, List<Integer> numbers, boolean annotated, int end) {}

  private static Lines outsideOrigin(String text) {
    String[] lines = text.split("\n", -1);
    List<String> texts = new ArrayList<>();
    List<Integer> numbers = new ArrayList<>();
    boolean annotated = false;
    boolean inValue = false;
    for (int n = 0; n < lines.length; n++) {
      String line = lines[n];
      if (inValue && line.startsWith(CONTINUATION)) {
        continue;
      }
      inValue = !annotated && line.startsWith(ORIGIN_KEY);
      if (inValue) {
        annotated = true;
        continue;
      }
      texts.add(line);
      numbers.add(n + 1);
    }
    return new Lines(texts, numbers, annotated, lines.length + 1);
  }

  /** The platform annotation's line as Trainyard writes it, up to its value. */
  private static final String ORIGIN_KEY = "    " + Provenance.PLATFORM + ":";

  /** A continuation line of a value under {@code annotations:}: indented deeper than its keys. */
  private static final String CONTINUATION = "     ";

  /**
   * The platform annotation as Trainyard writes it: {@code metadata:} at the top level, {@code
   * annotations:} directly under it, the key among the annotations' lines.
   */
  private static final Pattern ANNOTATED =
      Pattern.compile(
          "^metadata:\n  annotations:\n(?:    [^\n]*\n)*?    "
              + Pattern.quote(Provenance.PLATFORM + ":")
              + " ",
          Pattern.MULTILINE);

  /** A document marker: Trainyard writes one document per file. */
  private static final Pattern DOCUMENTS = Pattern.compile("^---", Pattern.MULTILINE);

  /**
   * W813 for each hand-written file the render removes ({@link Difference#HAND_WRITTEN}), at the
   * file: {@code platform render} writes the queue folders whole, so such a file is gone after it
   * (git still has it).
   */
  public static List<Diagnostic> handWrittenWarnings(Result result) {
    List<Diagnostic> out = new ArrayList<>();
    for (StaleFile f : result.stale()) {
      if (f.difference() == Difference.HAND_WRITTEN) {
        out.add(
            Diagnostic.warning(
                    DiagnosticCode.HAND_WRITTEN_QUEUE_FILE,
                    SourceLocation.ofFile(f.path()),
                    "",
                    "removed a hand-written file: trainyard owns this folder and writes it whole from platform.yaml")
                .withHint(HAND_WRITTEN_HINT));
      }
    }
    return out;
  }

  private static final String KUSTOMIZATION = "kustomization.yaml";

  private static final String HAND_WRITTEN_HINT =
      "keep your own objects next to the folder, e.g. clusters/<cluster>/<namespace>/limitrange.yaml, and list"
          + " them in the kustomization.yaml beside them (render and submit keep entries you add there); `git checkout --"
          + " FILE` brings back one that was committed";

  /** The 1-based number of the first line where {@code a} and {@code b} differ. */
  static int firstDifferentLine(String a, String b) {
    String[] x = a.split("\n", -1);
    String[] y = b.split("\n", -1);
    int i = 0;
    while (i < x.length && i < y.length && x[i].equals(y[i])) {
      i++;
    }
    return i + 1;
  }
}
