package dev.trainyard.gitops;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.manifest.TreeLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
   * E814 for each hand-written file of {@code base} (e.g. a {@link FolderSnapshot} of {@code
   * compile --out}'s folder) in a queue folder {@code tree} owns and would rewrite, at the file's
   * path; empty when there is none.
   *
   * @param command what rewrites the folder, for the message ({@code "compile --out"})
   * @param nothingDone what the refusal leaves undone, for the hint ({@code "nothing was written"})
   * @throws java.io.UncheckedIOException when {@code base} cannot be read
   */
  public static List<Diagnostic> inTheWay(
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
    String name = folder.substring(folder.lastIndexOf('/') + 1);
    if (!name.equals(TreeLayout.QUEUES_FOLDER) && !name.equals(TreeLayout.CLUSTER_FOLDER)) {
      return List.of();
    }
    List<Diagnostic> found = new ArrayList<>();
    base.folder(folder)
        .forEach(
            (file, text) -> {
              String path = folder + "/" + file;
              if (PlatformRender.handWritten(path, text) && !text.equals(files.get(file))) {
                found.add(
                    Diagnostic.error(
                            DiagnosticCode.HAND_WRITTEN_FILE_IN_THE_WAY,
                            SourceLocation.ofFile(path),
                            "",
                            "hand-written file in a folder trainyard owns: this "
                                + command
                                + " rewrites the folder whole from platform.yaml and would delete"
                                + " it")
                        .withHint(
                            "ask the platform team to move it beside the folder, e.g."
                                + " clusters/<cluster>/<namespace>/limitrange.yaml listed in the"
                                + " kustomization.yaml there (trainyard keeps entries it did not"
                                + " write); "
                                + nothingDone));
              }
            });
    return found;
  }
}
