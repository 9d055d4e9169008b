package dev.trainyard.gitops;

import java.util.List;
import java.util.Optional;
import java.util.SortedMap;

/**
 * A read-only GitOps tree: the tree of one commit (or of a commit being built), read lazily by path
 * relative to the repository root with {@code /} separators. An empty repository is the empty
 * snapshot.
 */
public interface Snapshot {
  /**
   * The commit this tree belongs to (40 hex digits), or empty for an empty repository or an unbuilt
   * tree.
   */
  Optional<String> commit();

  /** The text of a file (UTF-8), or empty when there is no such file. */
  Optional<String> read(String path);

  /**
   * The git blob id of a file (40 hex digits: its content's SHA-1, so equal ids mean equal texts),
   * or empty when there is no such file or the snapshot does not know ids (one not read from git).
   */
  default Optional<String> blobId(String path) {
    return Optional.empty();
  }

  /**
   * The direct entries of a folder, sorted by name: folder names end with {@code /} ({@code
   * "_queues/"}), file names do not. Empty when the folder does not exist.
   */
  List<String> children(String folder);

  /**
   * Every file below {@code folder}, by path relative to it, with its text. Empty when it does not
   * exist.
   */
  SortedMap<String, String> folder(String folder);

  /** Whether a folder exists. */
  default boolean hasFolder(String folder) {
    int slash = folder.lastIndexOf('/');
    String parent = slash < 0 ? "" : folder.substring(0, slash);
    String name = folder.substring(slash + 1) + "/";
    return children(parent).contains(name);
  }
}
