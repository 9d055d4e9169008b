package dev.trainyard.gitops;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.manifest.TreeLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Files someone wrote by hand in a folder Trainyard owns ({@code _cluster/}, {@code _queues/}),
 * which a write of that folder would delete: it is replaced whole. {@code submit} and {@code
 * compile --out} refuse with E814 for each one ({@code platform render}, whose job is the queue
 * folders, removes them with W813 instead: {@link PlatformRender#handWrittenWarnings}). A file is
 * hand-written when Trainyard did not write it ({@link PlatformRender#handWritten}: no {@code
 * trainyard.dev/platform} annotation, not the folder's kustomization).
 */
public final class HandWrittenFiles {
  private HandWrittenFiles() {}

  /**
   * {@code compile --out}'s check of the working tree at {@code root}: E814 for each hand-written
   * file ({@link #inTheWay(Snapshot, OutputTree, String, String)} on a {@link FolderSnapshot}) and
   * each symbolic link (which {@link FolderSnapshot} does not read, and the write would replace) in
   * a queue folder {@code tree} owns; empty when there is none.
   *
   * @throws UncheckedIOException when a folder cannot be listed
   */
  public static List<Diagnostic> onDisk(
      Path root, OutputTree tree, String command, String nothingDone) {
    List<Diagnostic> found =
        new ArrayList<>(inTheWay(new FolderSnapshot(root), tree, command, nothingDone));
    for (String folder : tree.ownedFolders()) {
      Path dir = root.resolve(folder);
      if (!queueFolder(folder)) {
        continue;
      }
      if (Files.isSymbolicLink(dir)) {
        found.add(diagnostic(folder, command, nothingDone));
      }
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      try (Stream<Path> all = Files.walk(dir)) {
        all.filter(Files::isSymbolicLink)
            .map(p -> folder + "/" + dir.relativize(p).toString().replace('\\', '/'))
            .sorted()
            .forEach(path -> found.add(diagnostic(path, command, nothingDone)));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list " + dir + ": " + TreeWriter.why(e), e);
      }
    }
    found.sort(Diagnostic.ORDER);
    return found;
  }

  /**
   * E814 for each hand-written file of {@code base} (e.g. a {@link FolderSnapshot} of {@code
   * compile --out}'s folder) in a queue folder {@code tree} owns and would rewrite, at the file's
   * path; empty when there is none.
   *
   * @param command what rewrites the folder, for the message ({@code "compile --out"})
   * @param nothingDone what the refusal leaves undone, for the hint ({@code "nothing was written"})
   * @throws java.io.UncheckedIOException when {@code base} cannot be read
   */
  private static List<Diagnostic> inTheWay(
      Snapshot base, OutputTree tree, String command, String nothingDone) {
    List<Diagnostic> found = new ArrayList<>();
    for (String folder : tree.ownedFolders()) {
      Map<String, String> files = new TreeMap<>();
      tree.files()
          .subMap(folder + "/", folder + "/\uffff")
          .forEach((path, text) -> files.put(path.substring(folder.length() + 1), text));
      found.addAll(inTheWay(base, folder, files, command, nothingDone));
    }
    return found;
  }

  /**
   * E814 for each hand-written file of {@code base}'s {@code folder} that writing {@code files}
   * (names relative to the folder) there in its place would delete or rewrite; empty for a folder
   * that is no queue folder (run and checkpoint folders hold only Trainyard's files).
   */
  static List<Diagnostic> inTheWay(
      Snapshot base, String folder, Map<String, String> files, String command, String nothingDone) {
    if (!queueFolder(folder)) {
      return List.of();
    }
    List<Diagnostic> found = new ArrayList<>();
    base.folder(folder)
        .forEach(
            (file, text) -> {
              String path = folder + "/" + file;
              if (PlatformRender.handWritten(path, text) && !text.equals(files.get(file))) {
                found.add(diagnostic(path, command, nothingDone));
              }
            });
    return found;
  }

  /** Whether {@code folder} is a queue folder ({@code …/_queues}, {@code …/_cluster}). */
  private static boolean queueFolder(String folder) {
    String name = folder.substring(folder.lastIndexOf('/') + 1);
    return name.equals(TreeLayout.QUEUES_FOLDER) || name.equals(TreeLayout.CLUSTER_FOLDER);
  }

  private static Diagnostic diagnostic(String path, String command, String nothingDone) {
    return Diagnostic.error(
            DiagnosticCode.HAND_WRITTEN_FILE_IN_THE_WAY,
            SourceLocation.ofFile(path),
            "",
            "hand-written file in a folder trainyard owns: this "
                + command
                + " rewrites the folder whole from platform.yaml and would delete it")
        .withHint(instead(path) + "; " + nothingDone);
  }

  /**
   * Where the platform team can keep {@code path} (in a queue folder, or the folder itself)
   * instead: the same name beside the queue folder, listed in the kustomization.yaml there, whose
   * entries Trainyard keeps ({@link ClusterRoots}); for a queue folder that is itself a link, a
   * plain folder in its place.
   *
   * @throws IllegalArgumentException when {@code path} is not in a queue folder
   */
  static String instead(String path) {
    TreeLayout place = TreeLayout.of(path);
    String cluster =
        place
            .cluster()
            .orElseThrow(() -> new IllegalArgumentException("not in a queue folder: " + path));
    String beside =
        TreeLayout.clusterFolder(cluster) + place.namespace().map(ns -> "/" + ns).orElse("");
    String folder =
        place.namespace().isPresent() ? TreeLayout.QUEUES_FOLDER : TreeLayout.CLUSTER_FOLDER;
    String queueFolder = beside + "/" + folder;
    String root = beside + "/kustomization.yaml";
    if (path.equals(queueFolder)) {
      return "ask the platform team to make "
          + path
          + " a plain folder (trainyard writes it whole) and keep their own objects beside it,"
          + " listed in the resources of "
          + root
          + " (trainyard keeps entries it did not write)";
    }
    if (!path.startsWith(queueFolder + "/")) {
      throw new IllegalArgumentException("not in a queue folder: " + path);
    }
    String inside = path.substring(queueFolder.length() + 1);
    String entry = inside.contains("/") ? inside.substring(0, inside.indexOf('/')) : "it";
    return "ask the platform team to move it beside the folder, to "
        + beside
        + "/"
        + inside
        + ", and list "
        + entry
        + " in the resources of "
        + root
        + " with "
        + folder
        + (folder.equals(TreeLayout.QUEUES_FOLDER) ? " and the run folders" : " and the namespaces")
        + " (trainyard keeps entries it did not write)";
  }
}
