package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.gitops.RunFolder;
import dev.trainyard.gitops.Snapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Builds a {@link Preview} from two GitOps trees and the paths that differ between them (pure: it
 * reads the snapshots and nothing else). Only the run folders that hold a changed path are read,
 * plus the earlier runs of the same train.yaml files, so the cost follows the size of the change,
 * not of the repository. The runs are read on all cores (the snapshots and this package's readers
 * are safe for concurrent reads); the result does not depend on the order they finish in.
 *
 * <p>An added run is compared with the latest earlier run of its train.yaml ({@link PreviousRuns});
 * that run's name, source commit and creation time are read as the new run's, so its diff shows
 * what the change changed, not the new run id in every name.
 */
public final class PreviewBuilder {
  /**
   * File names kustomize reads as a kustomization (kustomize {@code
   * konfig.RecognizedKustomizationFileNames}).
   */
  private static final Set<String> KUSTOMIZATION_FILES =
      Set.of("kustomization.yaml", "kustomization.yml", "Kustomization");

  /**
   * Added, changed, removed; by path within each (the runs are built in path order, and the sort is
   * stable).
   */
  private static final Comparator<RunChange> ORDER = Comparator.comparing(RunChange::status);

  private final Platform platform;
  private final JobSetFacts reader;
  private final ObjectDiff diff;
  private final YamlTrees yaml;

  /**
   * @param platform the platform.yaml that applies after the change (queues, quotas, GPU types,
   *     secrets policy)
   */
  public PreviewBuilder(Platform platform) {
    this.platform = platform;
    this.yaml = new YamlTrees();
    this.reader = new JobSetFacts(platform, yaml);
    this.diff = new ObjectDiff(yaml);
  }

  /**
   * @param what mode, base and head labels, diagnostics and the note for an empty preview
   * @param base the tree before the change
   * @param head the tree after it
   * @param changed paths of the files that differ ({@code GitOpsRepository.changedFiles})
   */
  public Preview build(Labels what, Snapshot base, Snapshot head, List<String> changed) {
    SortedMap<String, RunFolder> folders = new TreeMap<>();
    TreeSet<String> other = new TreeSet<>();
    for (String path : changed) {
      RunFolder.containing(path)
          .ifPresentOrElse(r -> folders.put(r.path(), r), () -> other.add(path));
    }
    PreviousRuns previous = new PreviousRuns(base, reader);
    // The runs on all cores: each is read, parsed and diffed on its own (a preview of 500 added
    // runs
    // against 10,000 spent ~85 % of its time here on one thread). The stream keeps path order.
    List<RunChange> runs =
        new ArrayList<>(
            folders.values().parallelStream()
                .map(folder -> run(folder, base, head, previous))
                .flatMap(Optional::stream)
                .toList());
    runs.sort(ORDER);
    List<ObjectChange> otherObjects = otherObjects(other, base, head);
    List<QueueTotal> queues = QueueTotals.of(runs, platform);
    List<CallOut> callOuts = new ArrayList<>(CallOuts.of(runs, queues, platform));
    callOuts.addAll(CallOuts.ofObjects("", otherObjects, platform));
    callOuts.addAll(FileProblems.of(changed, head, yaml));
    return new Preview(
        what.mode(),
        what.base(),
        what.head(),
        runs,
        queues,
        callOuts,
        what.diagnostics(),
        List.copyOf(other),
        otherObjects,
        what.note(),
        Optional.empty());
  }

  /**
   * The changed objects of manifests under {@code clusters/} outside run folders (ClusterQueues,
   * LocalQueues, Secrets a platform team commits), named by path. Kustomization files are left out:
   * their resource lists change with every run added or removed, which the runs already show, and
   * an index-keyed diff of a list of 10,000 names would bury the rest.
   */
  private List<ObjectChange> otherObjects(Iterable<String> paths, Snapshot base, Snapshot head) {
    List<ObjectChange> out = new ArrayList<>();
    for (String path : paths) {
      String name = path.substring(path.lastIndexOf('/') + 1);
      if (path.startsWith("clusters/")
          && FileProblems.manifest(path)
          && !KUSTOMIZATION_FILES.contains(name)) {
        out.addAll(changes(path, base.read(path), head.read(path)));
      }
    }
    return out;
  }

  /**
   * What the preview is of.
   *
   * @param note shown when nothing changed, else ""
   */
  public record Labels(
      Preview.Mode mode, String base, String head, List<Diagnostic> diagnostics, String note) {
    public Labels {
      diagnostics = List.copyOf(diagnostics);
    }
  }

  private Optional<RunChange> run(
      RunFolder folder, Snapshot base, Snapshot head, PreviousRuns previous) {
    SortedMap<String, String> was = base.folder(folder.path());
    SortedMap<String, String> now = head.folder(folder.path());
    if (was.isEmpty() && now.isEmpty()) {
      return Optional.empty();
    }
    Optional<RunFacts> before = facts(folder, was);
    Optional<RunFacts> after = facts(folder, now);
    if (!was.isEmpty() && !now.isEmpty()) {
      return Optional.of(
          new RunChange(
              RunChange.Status.CHANGED,
              folder,
              before,
              after,
              Optional.empty(),
              objects(was, now)));
    }
    if (now.isEmpty()) {
      return Optional.of(
          new RunChange(
              RunChange.Status.REMOVED,
              folder,
              before,
              after,
              Optional.empty(),
              objects(was, Map.of())));
    }
    Optional<PreviousRuns.Found> found = after.flatMap(previous::of);
    SortedMap<String, String> prevFiles =
        found
            .map(p -> renamed(base.folder(p.folder().path()), p, after.get()))
            .orElseGet(TreeMap::new);
    // The renamed JobSet is parsed once, for the previous run's facts and for the diff; provenance
    // is the previous run's own.
    Optional<RunFacts> prev =
        found.flatMap(
            p ->
                facts(folder, prevFiles)
                    .map(f -> f.of(p.folder(), p.sourceCommit(), p.createdAt())));
    return Optional.of(
        new RunChange(
            RunChange.Status.ADDED,
            folder,
            before,
            after,
            prev,
            prev.isPresent() ? objects(prevFiles, now) : objects(Map.of(), now)));
  }

  private Optional<RunFacts> facts(RunFolder folder, Map<String, String> files) {
    String name = folder.jobSetFile().substring(folder.path().length() + 1);
    return reader.read(folder, Optional.ofNullable(files.get(name)));
  }

  private List<ObjectChange> objects(Map<String, String> was, Map<String, String> now) {
    TreeSet<String> names = new TreeSet<>(was.keySet());
    names.addAll(now.keySet());
    List<ObjectChange> out = new ArrayList<>();
    for (String file : names) {
      out.addAll(
          changes(file, Optional.ofNullable(was.get(file)), Optional.ofNullable(now.get(file))));
    }
    return out;
  }

  /** The objects of one file that differ (unchanged ones left out). */
  private List<ObjectChange> changes(String file, Optional<String> was, Optional<String> now) {
    return diff.diffAll(file, was, now).stream()
        .filter(c -> c.status() != ObjectChange.Status.UNCHANGED)
        .toList();
  }

  /**
   * The previous run's files with its run name, source commit and creation time read as the new
   * run's.
   */
  private static SortedMap<String, String> renamed(
      Map<String, String> files, PreviousRuns.Found from, RunFacts to) {
    SortedMap<String, String> out = new TreeMap<>();
    files.forEach(
        (name, text) ->
            out.put(
                name.replace(from.folder().run(), to.folder().run()),
                replace(
                    replace(
                        replace(text, from.folder().run(), to.folder().run()),
                        from.sourceCommit(),
                        to.sourceCommit()),
                    from.createdAt(),
                    to.createdAt())));
    return out;
  }

  private static String replace(String text, String from, String to) {
    return from.isEmpty() ? text : text.replace(from, to);
  }
}
